// What CCurl.c loads from libcurl, shared with the poller (CCurlPoller.c). Not public: Swift
// sees only include/CCurl.h.

#ifndef OSPREY_CCURL_LIBRARY_H
#define OSPREY_CCURL_LIBRARY_H

#include "CCurl.h"

#include <stddef.h>

// curl_multi_info_read's answer, laid out as libcurl's struct CURLMsg.
struct ccurl_message {
    int msg;  // CURLMSG_DONE is 1
    void *easy_handle;
    union {
        void *whatever;
        int result;
    } data;
};

// The start of libcurl's curl_version_info_data, as every version since 7.10 lays it out.
struct ccurl_version_info {
    int age;
    const char *version;
    unsigned int version_num;
    const char *host;
    int features;
};

// libcurl's functions, found with dlsym.
struct ccurl_library {
    int (*global_init)(long flags);
    const char *(*version)(void);
    struct ccurl_version_info *(*version_info)(int age);
    void *(*easy_init)(void);
    void (*easy_cleanup)(void *);
    void (*easy_reset)(void *);
    int (*easy_setopt)(void *, int, ...);
    int (*easy_getinfo)(void *, int, ...);
    int (*easy_pause)(void *, int);
    const char *(*easy_strerror)(int);
    int (*easy_send)(void *, const void *, size_t, size_t *);
    int (*easy_recv)(void *, void *, size_t, size_t *);
    void *(*multi_init)(void);
    int (*multi_cleanup)(void *);
    int (*multi_setopt)(void *, int, ...);
    int (*multi_add_handle)(void *, void *);
    int (*multi_remove_handle)(void *, void *);
    int (*multi_perform)(void *, int *);
    int (*multi_poll)(void *, void *, unsigned, int, int *);
    int (*multi_wakeup)(void *);
    struct ccurl_message *(*multi_info_read)(void *, int *);
    int (*multi_socket_action)(void *, int, int, int *);
    void *(*slist_append)(void *, const char *);
    void (*slist_free_all)(void *);
};

/// Filled by ccurl_load; use only once it returned 0.
extern struct ccurl_library ccurl_lib;

#endif
