// Loads libcurl with dlopen and forwards to it; see include/CCurl.h.

#define _GNU_SOURCE  // pthread_setname_np, before any system header

#include "CCurl.h"

#include <string.h>

#if defined(__linux__)

#include "CCurlLibrary.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>

struct ccurl_library ccurl_lib;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int loaded = -1;
static const char *load_error = NULL;

#define FIND(field, name)                                                                          \
    do {                                                                                           \
        *(void **)(&ccurl_lib.field) = dlsym(library, name);                                            \
        if (ccurl_lib.field == NULL) {                                                                  \
            load_error = "libcurl.so.4 lacks " name " (libcurl 7.68 or later is needed)";          \
            return;                                                                                \
        }                                                                                          \
    } while (0)

static void load(void) {
    void *library = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        load_error = "libcurl.so.4 could not be loaded";
        return;
    }
    FIND(global_init, "curl_global_init");
    FIND(version, "curl_version");
    FIND(version_info, "curl_version_info");
    FIND(easy_init, "curl_easy_init");
    FIND(easy_cleanup, "curl_easy_cleanup");
    FIND(easy_reset, "curl_easy_reset");
    FIND(easy_setopt, "curl_easy_setopt");
    FIND(easy_getinfo, "curl_easy_getinfo");
    FIND(easy_pause, "curl_easy_pause");
    FIND(easy_strerror, "curl_easy_strerror");
    FIND(easy_send, "curl_easy_send");
    FIND(easy_recv, "curl_easy_recv");
    FIND(multi_init, "curl_multi_init");
    FIND(multi_cleanup, "curl_multi_cleanup");
    FIND(multi_setopt, "curl_multi_setopt");
    FIND(multi_add_handle, "curl_multi_add_handle");
    FIND(multi_remove_handle, "curl_multi_remove_handle");
    FIND(multi_perform, "curl_multi_perform");
    FIND(multi_poll, "curl_multi_poll");
    FIND(multi_wakeup, "curl_multi_wakeup");
    FIND(multi_info_read, "curl_multi_info_read");
    FIND(slist_append, "curl_slist_append");
    FIND(slist_free_all, "curl_slist_free_all");
    FIND(multi_socket_action, "curl_multi_socket_action");
    // CURL_GLOBAL_ALL; reference-counted, and FoundationNetworking makes the same call.
    if (ccurl_lib.global_init(3) != 0) {
        load_error = "curl_global_init failed";
        return;
    }
    loaded = 0;
}

int ccurl_load(void) {
    pthread_once(&once, load);
    return loaded;
}

const char *ccurl_load_error(void) { return ccurl_load() == 0 ? NULL : load_error; }

const char *ccurl_version(void) { return ccurl_load() == 0 ? ccurl_lib.version() : NULL; }

int ccurl_features(void) {
    if (ccurl_load() != 0) return 0;
    struct ccurl_version_info *info = ccurl_lib.version_info(0);  // CURLVERSION_FIRST: features is there
    return info == NULL ? 0 : info->features;
}

ccurl_easy *ccurl_easy_init(void) { return ccurl_load() == 0 ? ccurl_lib.easy_init() : NULL; }

void ccurl_easy_cleanup(ccurl_easy *easy) {
    if (ccurl_load() == 0 && easy != NULL) ccurl_lib.easy_cleanup(easy);
}

void ccurl_easy_reset(ccurl_easy *easy) {
    if (ccurl_load() == 0 && easy != NULL) ccurl_lib.easy_reset(easy);
}

// The variadic curl_easy_setopt takes a long, a pointer, a curl_off_t or a function pointer
// depending on the option: one typed wrapper each, so Swift never calls a variadic C function.
int ccurl_easy_setopt_long(ccurl_easy *easy, int option, long value) {
    return ccurl_load() == 0 ? ccurl_lib.easy_setopt(easy, option, value) : -1;
}

int ccurl_easy_setopt_pointer(ccurl_easy *easy, int option, const void *value) {
    return ccurl_load() == 0 ? ccurl_lib.easy_setopt(easy, option, value) : -1;
}

int ccurl_easy_setopt_offset(ccurl_easy *easy, int option, int64_t value) {
    return ccurl_load() == 0 ? ccurl_lib.easy_setopt(easy, option, (long long)value) : -1;
}

int ccurl_easy_setopt_data_callback(ccurl_easy *easy, int option, ccurl_data_callback callback) {
    return ccurl_load() == 0 ? ccurl_lib.easy_setopt(easy, option, callback) : -1;
}

int ccurl_easy_setopt_progress_callback(ccurl_easy *easy, int option, ccurl_progress_callback callback) {
    return ccurl_load() == 0 ? ccurl_lib.easy_setopt(easy, option, callback) : -1;
}

int ccurl_easy_getinfo_long(ccurl_easy *easy, int info, long *value) {
    return ccurl_load() == 0 ? ccurl_lib.easy_getinfo(easy, info, value) : -1;
}

int ccurl_easy_pause(ccurl_easy *easy, int bits) { return ccurl_load() == 0 ? ccurl_lib.easy_pause(easy, bits) : -1; }

const char *ccurl_easy_strerror(int code) { return ccurl_load() == 0 ? ccurl_lib.easy_strerror(code) : "libcurl not loaded"; }

int ccurl_easy_send(ccurl_easy *easy, const void *bytes, size_t count, size_t *sent) {
    *sent = 0;
    return ccurl_load() == 0 ? ccurl_lib.easy_send(easy, bytes, count, sent) : -1;
}

int ccurl_easy_recv(ccurl_easy *easy, void *buffer, size_t capacity, size_t *received) {
    *received = 0;
    return ccurl_load() == 0 ? ccurl_lib.easy_recv(easy, buffer, capacity, received) : -1;
}

ccurl_multi *ccurl_multi_init(void) { return ccurl_load() == 0 ? ccurl_lib.multi_init() : NULL; }

int ccurl_multi_cleanup(ccurl_multi *multi) { return ccurl_load() == 0 ? ccurl_lib.multi_cleanup(multi) : -1; }

int ccurl_multi_setopt_long(ccurl_multi *multi, int option, long value) {
    return ccurl_load() == 0 ? ccurl_lib.multi_setopt(multi, option, value) : -1;
}

int ccurl_multi_add_handle(ccurl_multi *multi, ccurl_easy *easy) {
    return ccurl_load() == 0 ? ccurl_lib.multi_add_handle(multi, easy) : -1;
}

int ccurl_multi_remove_handle(ccurl_multi *multi, ccurl_easy *easy) {
    return ccurl_load() == 0 ? ccurl_lib.multi_remove_handle(multi, easy) : -1;
}

int ccurl_multi_perform(ccurl_multi *multi, int *running) {
    return ccurl_load() == 0 ? ccurl_lib.multi_perform(multi, running) : -1;
}

int ccurl_multi_poll(ccurl_multi *multi, int timeout_milliseconds, int *descriptors) {
    return ccurl_load() == 0 ? ccurl_lib.multi_poll(multi, NULL, 0, timeout_milliseconds, descriptors) : -1;
}

int ccurl_multi_wakeup(ccurl_multi *multi) { return ccurl_load() == 0 ? ccurl_lib.multi_wakeup(multi) : -1; }

ccurl_easy *ccurl_multi_next_done(ccurl_multi *multi, int *result) {
    if (ccurl_load() != 0) return NULL;
    int left = 0;
    struct ccurl_message *message;
    while ((message = ccurl_lib.multi_info_read(multi, &left)) != NULL) {
        if (message->msg == 1) {  // CURLMSG_DONE
            *result = message->data.result;
            return message->easy_handle;
        }
    }
    return NULL;
}

int ccurl_easy_active_socket(ccurl_easy *easy) {
    int socket = -1;  // curl_socket_t is int on Linux
    if (ccurl_load() != 0 || ccurl_lib.easy_getinfo(easy, 0x500000 + 44, &socket) != 0) return -1;
    return socket;
}

int ccurl_easy_metrics(ccurl_easy *easy, ccurl_metrics *metrics) {
    memset(metrics, 0, sizeof *metrics);
    if (ccurl_load() != 0) return -1;
    // CURLINFO_OFF_T (0x600000) and CURLINFO_LONG (0x200000) values, as in curl.h.
    int failed = 0;
    failed |= ccurl_lib.easy_getinfo(easy, 0x600000 + 51, &metrics->name_lookup);
    failed |= ccurl_lib.easy_getinfo(easy, 0x600000 + 52, &metrics->connect);
    failed |= ccurl_lib.easy_getinfo(easy, 0x600000 + 56, &metrics->tls);
    failed |= ccurl_lib.easy_getinfo(easy, 0x600000 + 54, &metrics->first_byte);
    failed |= ccurl_lib.easy_getinfo(easy, 0x600000 + 50, &metrics->total);
    failed |= ccurl_lib.easy_getinfo(easy, 0x600000 + 7, &metrics->body_sent);
    failed |= ccurl_lib.easy_getinfo(easy, 0x600000 + 8, &metrics->body_received);
    failed |= ccurl_lib.easy_getinfo(easy, 0x200000 + 12, &metrics->head_sent);
    failed |= ccurl_lib.easy_getinfo(easy, 0x200000 + 11, &metrics->head_received);
    failed |= ccurl_lib.easy_getinfo(easy, 0x200000 + 26, &metrics->new_connections);
    failed |= ccurl_lib.easy_getinfo(easy, 0x200000 + 46, &metrics->http_version);
    if (failed != 0) {
        memset(metrics, 0, sizeof *metrics);
        return -1;
    }
    return 0;
}

ccurl_slist *ccurl_slist_append(ccurl_slist *list, const char *text) {
    return ccurl_load() == 0 ? ccurl_lib.slist_append(list, text) : NULL;
}

void ccurl_slist_free_all(ccurl_slist *list) {
    if (ccurl_load() == 0 && list != NULL) ccurl_lib.slist_free_all(list);
}

void ccurl_name_current_thread(const char *name) {
    char truncated[16];
    strncpy(truncated, name, sizeof truncated - 1);
    truncated[sizeof truncated - 1] = '\0';
    pthread_setname_np(pthread_self(), truncated);
}

#else

// Not Linux: libcurl is never loaded, and URLSession is used.

int ccurl_load(void) { return -1; }
const char *ccurl_load_error(void) { return "the curl transport is for Linux"; }
const char *ccurl_version(void) { return NULL; }
int ccurl_features(void) { return 0; }
ccurl_easy *ccurl_easy_init(void) { return NULL; }
void ccurl_easy_cleanup(ccurl_easy *easy) { (void)easy; }
void ccurl_easy_reset(ccurl_easy *easy) { (void)easy; }
int ccurl_easy_setopt_long(ccurl_easy *easy, int option, long value) { (void)easy; (void)option; (void)value; return -1; }
int ccurl_easy_setopt_pointer(ccurl_easy *easy, int option, const void *value) { (void)easy; (void)option; (void)value; return -1; }
int ccurl_easy_setopt_offset(ccurl_easy *easy, int option, int64_t value) { (void)easy; (void)option; (void)value; return -1; }
int ccurl_easy_setopt_data_callback(ccurl_easy *easy, int option, ccurl_data_callback callback) { (void)easy; (void)option; (void)callback; return -1; }
int ccurl_easy_setopt_progress_callback(ccurl_easy *easy, int option, ccurl_progress_callback callback) { (void)easy; (void)option; (void)callback; return -1; }
int ccurl_easy_getinfo_long(ccurl_easy *easy, int info, long *value) { (void)easy; (void)info; (void)value; return -1; }
int ccurl_easy_pause(ccurl_easy *easy, int bits) { (void)easy; (void)bits; return -1; }
const char *ccurl_easy_strerror(int code) { (void)code; return "libcurl not loaded"; }
int ccurl_easy_send(ccurl_easy *easy, const void *bytes, size_t count, size_t *sent) { (void)easy; (void)bytes; (void)count; *sent = 0; return -1; }
int ccurl_easy_recv(ccurl_easy *easy, void *buffer, size_t capacity, size_t *received) { (void)easy; (void)buffer; (void)capacity; *received = 0; return -1; }
ccurl_multi *ccurl_multi_init(void) { return NULL; }
int ccurl_multi_cleanup(ccurl_multi *multi) { (void)multi; return -1; }
int ccurl_multi_setopt_long(ccurl_multi *multi, int option, long value) { (void)multi; (void)option; (void)value; return -1; }
int ccurl_multi_add_handle(ccurl_multi *multi, ccurl_easy *easy) { (void)multi; (void)easy; return -1; }
int ccurl_multi_remove_handle(ccurl_multi *multi, ccurl_easy *easy) { (void)multi; (void)easy; return -1; }
int ccurl_multi_perform(ccurl_multi *multi, int *running) { (void)multi; (void)running; return -1; }
int ccurl_multi_poll(ccurl_multi *multi, int timeout_milliseconds, int *descriptors) { (void)multi; (void)timeout_milliseconds; (void)descriptors; return -1; }
int ccurl_multi_wakeup(ccurl_multi *multi) { (void)multi; return -1; }
ccurl_easy *ccurl_multi_next_done(ccurl_multi *multi, int *result) { (void)multi; (void)result; return NULL; }
int ccurl_easy_active_socket(ccurl_easy *easy) { (void)easy; return -1; }
int ccurl_easy_metrics(ccurl_easy *easy, ccurl_metrics *metrics) { (void)easy; memset(metrics, 0, sizeof *metrics); return -1; }
ccurl_poller *ccurl_poller_create(ccurl_multi *multi, ccurl_activity_callback activity, ccurl_channel_callback channel, void *context) { (void)multi; (void)activity; (void)channel; (void)context; return NULL; }
void ccurl_poller_watch_channel(ccurl_poller *poller, int socket, int events) { (void)poller; (void)socket; (void)events; }
void ccurl_poller_forget_channel(ccurl_poller *poller, int socket) { (void)poller; (void)socket; }
void ccurl_poller_destroy(ccurl_poller *poller) { (void)poller; }
void ccurl_poller_wake(ccurl_poller *poller) { (void)poller; }
int ccurl_poller_plan_wait(ccurl_poller *poller, int max_wait_milliseconds) { (void)poller; return max_wait_milliseconds; }
int ccurl_poller_wait(ccurl_poller *poller, int milliseconds) { (void)poller; (void)milliseconds; return -1; }
void ccurl_poller_dispatch(ccurl_poller *poller, int *running) { (void)poller; (void)running; }
void ccurl_poller_run_timer(ccurl_poller *poller, int *running) { (void)poller; (void)running; }
int ccurl_poller_timer_due_before_wait_ends(ccurl_poller *poller) { (void)poller; return 1; }
int ccurl_poller_wait_remaining(ccurl_poller *poller) { (void)poller; return 0; }
void ccurl_poller_watch_idle(ccurl_poller *poller, int socket, int multiplexed) { (void)poller; (void)socket; (void)multiplexed; }
int ccurl_poller_prepare(ccurl_poller *poller, ccurl_easy *easy) { (void)poller; (void)easy; return -1; }
long ccurl_poller_retired_count(ccurl_poller *poller) { (void)poller; return 0; }
int ccurl_poller_idle_ports(ccurl_poller *poller, int *ports, int capacity) { (void)poller; (void)ports; (void)capacity; return 0; }
ccurl_slist *ccurl_slist_append(ccurl_slist *list, const char *text) { (void)list; (void)text; return NULL; }
void ccurl_slist_free_all(ccurl_slist *list) { (void)list; }
void ccurl_name_current_thread(const char *name) { (void)name; }

#endif
