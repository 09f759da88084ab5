// The few libcurl functions and constants Osprey's curl transport uses, declared here so that
// nothing needs libcurl's development headers: the library is loaded with dlopen at run time
// (libcurl.so.4, which FoundationNetworking links too). The option and info numbers are part of
// libcurl's stable ABI (curl.h: CURLOPT(name, type, number) = type base + number).
//
// Every function returns a failure (or NULL) when the library is not loaded; on platforms other
// than Linux nothing is ever loaded.

#ifndef OSPREY_CCURL_H
#define OSPREY_CCURL_H

#include <stddef.h>
#include <stdint.h>

typedef struct ccurl_easy ccurl_easy;
typedef struct ccurl_multi ccurl_multi;
typedef struct ccurl_slist ccurl_slist;

/// Loads libcurl once (later calls return the first answer): 0 when it is usable, else -1 with
/// a reason in ccurl_load_error().
int ccurl_load(void);
/// Why loading failed, or NULL.
const char *ccurl_load_error(void);
/// libcurl's version text, such as "libcurl/7.88.1 OpenSSL/3.0.15 …", or NULL.
const char *ccurl_version(void);
/// libcurl's feature bits (curl_version_info's `features`), or 0 when it is not loaded.
int ccurl_features(void);

// Feature bits (CURL_VERSION_*).
enum {
    CCURL_VERSION_HTTP2 = 1 << 16,
};

// Options (CURLoption).
enum {
    CCURLOPT_WRITEDATA = 10001,
    CCURLOPT_URL = 10002,
    CCURLOPT_PROXY = 10004,
    CCURLOPT_READDATA = 10009,
    CCURLOPT_ERRORBUFFER = 10010,
    CCURLOPT_WRITEFUNCTION = 20011,
    CCURLOPT_READFUNCTION = 20012,
    CCURLOPT_POSTFIELDS = 10015,
    CCURLOPT_HTTPHEADER = 10023,
    CCURLOPT_HEADERDATA = 10029,
    CCURLOPT_CUSTOMREQUEST = 10036,
    CCURLOPT_NOPROGRESS = 43,
    CCURLOPT_NOBODY = 44,
    CCURLOPT_UPLOAD = 46,
    CCURLOPT_POST = 47,
    CCURLOPT_FOLLOWLOCATION = 52,
    CCURLOPT_HTTPPROXYTUNNEL = 61,
    CCURLOPT_CONNECT_ONLY = 141,
    CCURLOPT_FRESH_CONNECT = 74,
    CCURLOPT_MAXAGE_CONN = 288,
    CCURLOPT_XFERINFODATA = 10057,
    CCURLOPT_CAINFO = 10065,
    CCURLOPT_CAPATH = 10097,
    CCURLOPT_SSLCERT = 10025,
    CCURLOPT_SSLKEY = 10087,
    CCURLOPT_KEYPASSWD = 10026,
    CCURLOPT_SSLVERSION = 32,
    CCURLOPT_PINNEDPUBLICKEY = 10230,
    CCURLOPT_HEADERFUNCTION = 20079,
    CCURLOPT_HTTPGET = 80,
    CCURLOPT_HTTP_VERSION = 84,
    CCURLOPT_BUFFERSIZE = 98,
    CCURLOPT_NOSIGNAL = 99,
    CCURLOPT_ACCEPT_ENCODING = 10102,
    CCURLOPT_PRIVATE = 10103,
    CCURLOPT_NOPROXY = 10177,
    CCURLOPT_PROXYUSERNAME = 10175,
    CCURLOPT_PROXYPASSWORD = 10176,
    CCURLOPT_UNIX_SOCKET_PATH = 10231,
    CCURLOPT_INFILESIZE_LARGE = 30115,
    CCURLOPT_POSTFIELDSIZE_LARGE = 30120,
    CCURLOPT_XFERINFOFUNCTION = 20219,
    CCURLOPT_EXPECT_100_TIMEOUT_MS = 227,
    CCURLOPT_PIPEWAIT = 237,
    CCURLOPT_SUPPRESS_CONNECT_HEADERS = 265,
    CCURLOPT_PROTOCOLS = 181,
    CCURLOPT_REDIR_PROTOCOLS = 182,
    CCURLOPT_PROTOCOLS_STR = 10318,
    CCURLOPT_REDIR_PROTOCOLS_STR = 10319,
};

// Protocol bits (CURLPROTO_*), for the older CURLOPT_PROTOCOLS.
enum {
    CCURLPROTO_HTTP = 1 << 0,
    CCURLPROTO_HTTPS = 1 << 1,
};

// Multi handle options (CURLMoption).
enum {
    CCURLMOPT_MAXCONNECTS = 6,
    CCURLMOPT_MAX_HOST_CONNECTIONS = 7,
};

// Information (CURLINFO).
enum {
    CCURLINFO_RESPONSE_CODE = 0x200000 + 2,
    CCURLINFO_NUM_CONNECTS = 0x200000 + 26,
    CCURLINFO_HTTP_VERSION = 0x200000 + 46,
};

// Special return values of callbacks, and pause bits.
enum {
    CCURL_WRITEFUNC_PAUSE = 0x10000001,
    CCURL_READFUNC_ABORT = 0x10000000,
    CCURL_READFUNC_PAUSE = 0x10000001,
    CCURLPAUSE_RECV = 1 << 0,
    CCURLPAUSE_SEND = 1 << 2,
    CCURLPAUSE_CONT = 0,
};

// A channel's readiness (ccurl_channel_callback), and CURLE_AGAIN.
enum {
    CCURL_CHANNEL_READABLE = 1,
    CCURL_CHANNEL_WRITABLE = 2,
    CCURL_CHANNEL_CLOSED = 4,
    CCURLE_AGAIN = 81,
};

// HTTP versions (CURL_HTTP_VERSION_*).
enum {
    CCURL_HTTP_VERSION_1_1 = 2,
    CCURL_HTTP_VERSION_2TLS = 4,
    CCURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE = 5,
};

/// `size_t (char *data, size_t size, size_t count, void *context)`: body bytes, header lines,
/// or (for reading) the buffer to fill.
typedef size_t (*ccurl_data_callback)(char *, size_t, size_t, void *);
/// `int (void *context, total down, now down, total up, now up)`: non-zero aborts the transfer.
typedef int (*ccurl_progress_callback)(void *, int64_t, int64_t, int64_t, int64_t);

ccurl_easy *ccurl_easy_init(void);
void ccurl_easy_cleanup(ccurl_easy *easy);
void ccurl_easy_reset(ccurl_easy *easy);
int ccurl_easy_setopt_long(ccurl_easy *easy, int option, long value);
int ccurl_easy_setopt_pointer(ccurl_easy *easy, int option, const void *value);
int ccurl_easy_setopt_offset(ccurl_easy *easy, int option, int64_t value);
int ccurl_easy_setopt_data_callback(ccurl_easy *easy, int option, ccurl_data_callback callback);
int ccurl_easy_setopt_progress_callback(ccurl_easy *easy, int option, ccurl_progress_callback callback);
int ccurl_easy_getinfo_long(ccurl_easy *easy, int info, long *value);
int ccurl_easy_pause(ccurl_easy *easy, int bits);
const char *ccurl_easy_strerror(int code);
/// curl_easy_send and curl_easy_recv, on a connection made with CURLOPT_CONNECT_ONLY: the CURLcode
/// (CCURLE_AGAIN when the socket is not ready), and in `sent` or `received` how many bytes moved.
/// A recv that returns 0 with 0 bytes means the peer closed the connection.
int ccurl_easy_send(ccurl_easy *easy, const void *bytes, size_t count, size_t *sent);
int ccurl_easy_recv(ccurl_easy *easy, void *buffer, size_t capacity, size_t *received);

ccurl_multi *ccurl_multi_init(void);
int ccurl_multi_cleanup(ccurl_multi *multi);
int ccurl_multi_setopt_long(ccurl_multi *multi, int option, long value);
int ccurl_multi_add_handle(ccurl_multi *multi, ccurl_easy *easy);
int ccurl_multi_remove_handle(ccurl_multi *multi, ccurl_easy *easy);
int ccurl_multi_perform(ccurl_multi *multi, int *running);
int ccurl_multi_poll(ccurl_multi *multi, int timeout_milliseconds, int *descriptors);
int ccurl_multi_wakeup(ccurl_multi *multi);
/// The next finished transfer and its CURLcode, or NULL when none is left.
ccurl_easy *ccurl_multi_next_done(ccurl_multi *multi, int *result);

/// The socket a transfer used last (CURLINFO_ACTIVESOCKET), or -1.
int ccurl_easy_active_socket(ccurl_easy *easy);

/// What a finished transfer measured: times in microseconds since it started, each the end of a
/// phase (0 for a phase that did not happen: TLS on plain HTTP), and sizes in bytes.
typedef struct ccurl_metrics {
    int64_t name_lookup;      // CURLINFO_NAMELOOKUP_TIME_T
    int64_t connect;          // CURLINFO_CONNECT_TIME_T
    int64_t tls;              // CURLINFO_APPCONNECT_TIME_T
    int64_t first_byte;       // CURLINFO_STARTTRANSFER_TIME_T
    int64_t total;            // CURLINFO_TOTAL_TIME_T
    int64_t body_sent;        // CURLINFO_SIZE_UPLOAD_T
    int64_t body_received;    // CURLINFO_SIZE_DOWNLOAD_T
    long head_sent;           // CURLINFO_REQUEST_SIZE
    long head_received;       // CURLINFO_HEADER_SIZE
    long new_connections;     // CURLINFO_NUM_CONNECTS
    long http_version;        // CURLINFO_HTTP_VERSION (CURL_HTTP_VERSION_*)
} ccurl_metrics;

/// Fills `metrics` for the transfer on `easy` (call before the handle is reset); non-zero when
/// libcurl could not say (every field is then 0).
int ccurl_easy_metrics(ccurl_easy *easy, ccurl_metrics *metrics);

// The poller: drives a multi handle with curl_multi_socket_action over epoll. Its owner (one
// thread at a time: a loop, or a thread that holds the loop's lock while the loop waits) calls
// every function; the loop's thread alone calls ccurl_poller_wait, and any thread
// ccurl_poller_wake.
//
// libcurl says which sockets to watch (its socket callback) and when to call it back (its timer
// callback); the poller waits on an epoll set for those, plus an eventfd that other threads
// write to wake it, and plus the sockets of idle connections in libcurl's pool: bytes arriving
// on an idle HTTP/1 connection are bytes no request asked for (a forged answer, or the rest of
// an overlong body), so that connection is retired before libcurl can reuse it.

typedef struct ccurl_poller ccurl_poller;
/// Told that the HTTP/1 connection of the transfer on `easy` became readable: activity for its
/// idle timeout, whether or not libcurl then makes anything of the bytes.
typedef void (*ccurl_activity_callback)(void *context, ccurl_easy *easy);

/// Told that the socket of a channel (ccurl_poller_watch_channel) is ready: `events` has
/// CCURL_CHANNEL_READABLE, CCURL_CHANNEL_WRITABLE and CCURL_CHANNEL_CLOSED (an error or a hang-up).
typedef void (*ccurl_channel_callback)(void *context, int socket, int events);

/// Installs the socket and timer callbacks on `multi`; NULL on failure (no epoll or eventfd).
ccurl_poller *ccurl_poller_create(
    ccurl_multi *multi, ccurl_activity_callback activity, ccurl_channel_callback channel, void *context);
/// Frees the poller; call after curl_multi_cleanup (which may still call its callbacks).
void ccurl_poller_destroy(ccurl_poller *poller);
/// Wakes a waiting ccurl_poller_wait, from any thread.
void ccurl_poller_wake(ccurl_poller *poller);
/// How long the next wait may be: `max_wait_milliseconds`, or less when libcurl's timer is due
/// sooner. Records when that wait ends (see ccurl_poller_must_wake).
int ccurl_poller_plan_wait(ccurl_poller *poller, int max_wait_milliseconds);
/// Waits up to `milliseconds` for sockets or a wake-up, and keeps what is ready for
/// ccurl_poller_dispatch. Touches nothing the owner changes (the loop's thread may call it
/// without the lock). The number of events, or -errno on an epoll error (an interruption
/// counts as no event).
int ccurl_poller_wait(ccurl_poller *poller, int milliseconds);
/// Lets libcurl act on what the last wait found ready, and on its timer if it is due.
void ccurl_poller_dispatch(ccurl_poller *poller, int *running);
/// Lets libcurl act on its timer if it is due (a transfer just added is due at once).
void ccurl_poller_run_timer(ccurl_poller *poller, int *running);
/// Whether the waiting loop must be woken to act in time: libcurl's timer is due before the
/// planned wait ends, or `deadline_milliseconds` from now (negative: none) comes before it.
int ccurl_poller_must_wake(ccurl_poller *poller, int64_t deadline_milliseconds);
/// Says that the transfer which used `socket` last has finished: once libcurl has released the
/// socket, its connection rests in the pool and is watched for bytes. `multiplexed` says whether
/// it carries several transfers at once (HTTP/2): bytes on such an idle connection are frames
/// libcurl reads (PING, SETTINGS), never a forged answer, so it is never retired.
void ccurl_poller_watch_idle(ccurl_poller *poller, int socket, int multiplexed);
/// Lets the poller see which connection a transfer on `easy` takes (CURLOPT_PREREQFUNCTION, since
/// libcurl 7.80): set on every transfer. Non-zero when libcurl lacks it: then no idle connection
/// may be watched (ccurl_poller_watch_idle must not be called), since a reuse would go unseen.
int ccurl_poller_prepare(ccurl_poller *poller, ccurl_easy *easy);
/// How many idle connections the poller retired so far.
long ccurl_poller_retired_count(ccurl_poller *poller);
/// The local ports the poller holds for its idle connections (tests): writes at most `capacity`
/// of them to `ports` and returns how many there are.
int ccurl_poller_idle_ports(ccurl_poller *poller, int *ports, int capacity);
/// Watches the socket of a connection made with CURLOPT_CONNECT_ONLY, which the application now
/// reads and writes itself (a WebSocket), for `events` (CCURL_CHANNEL_READABLE and or WRITABLE;
/// 0 takes it out of the epoll set, so a hang-up is not reported over and over while its reader
/// is paused). Readiness goes to the channel callback. Call again to change the events.
void ccurl_poller_watch_channel(ccurl_poller *poller, int socket, int events);
/// Stops watching a channel's socket: call before its connection is closed.
void ccurl_poller_forget_channel(ccurl_poller *poller, int socket);

ccurl_slist *ccurl_slist_append(ccurl_slist *list, const char *text);
void ccurl_slist_free_all(ccurl_slist *list);

/// Names the calling thread for debuggers, `perf` and `/proc` (at most 15 bytes are kept).
/// Foundation's `Thread.name` does not always reach the system on Linux: a thread that sets it
/// before its `Thread` object learnt its own pthread (a race with `start()`) keeps its creator's.
void ccurl_name_current_thread(const char *name);

#endif
