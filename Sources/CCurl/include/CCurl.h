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
    CCURLOPT_FRESH_CONNECT = 74,
    CCURLOPT_XFERINFODATA = 10057,
    CCURLOPT_CAINFO = 10065,
    CCURLOPT_HEADERFUNCTION = 20079,
    CCURLOPT_HTTPGET = 80,
    CCURLOPT_HTTP_VERSION = 84,
    CCURLOPT_BUFFERSIZE = 98,
    CCURLOPT_NOSIGNAL = 99,
    CCURLOPT_ACCEPT_ENCODING = 10102,
    CCURLOPT_PRIVATE = 10103,
    CCURLOPT_NOPROXY = 10177,
    CCURLOPT_INFILESIZE_LARGE = 30115,
    CCURLOPT_POSTFIELDSIZE_LARGE = 30120,
    CCURLOPT_XFERINFOFUNCTION = 20219,
    CCURLOPT_EXPECT_100_TIMEOUT_MS = 227,
    CCURLOPT_PIPEWAIT = 237,
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
    CCURLMOPT_MAX_HOST_CONNECTIONS = 7,
};

// Information (CURLINFO).
enum {
    CCURLINFO_RESPONSE_CODE = 0x200000 + 2,
    CCURLINFO_NUM_CONNECTS = 0x200000 + 26,
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

// HTTP versions (CURL_HTTP_VERSION_*).
enum {
    CCURL_HTTP_VERSION_1_1 = 2,
    CCURL_HTTP_VERSION_2TLS = 4,
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

ccurl_slist *ccurl_slist_append(ccurl_slist *list, const char *text);
void ccurl_slist_free_all(ccurl_slist *list);

#endif
