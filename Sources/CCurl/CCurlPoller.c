// The poller: curl_multi_socket_action over epoll; see include/CCurl.h.

#define _GNU_SOURCE  // dup3, before any system header

#include "CCurl.h"

#if defined(__linux__)

#include "CCurlLibrary.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

// The most readiness events one wait takes.
#define CCURL_POLLER_BATCH 64

// libcurl's constants (curl.h, multi.h).
enum {
    POLL_IN = 1,
    POLL_OUT = 2,
    POLL_REMOVE = 4,
    SELECT_IN = 1,
    SELECT_OUT = 2,
    SELECT_ERR = 4,
    SOCKET_TIMEOUT = -1,
    MOPT_SOCKETFUNCTION = 20001,
    MOPT_SOCKETDATA = 10002,
    MOPT_TIMERFUNCTION = 20004,
    MOPT_TIMERDATA = 10005,
    EASY_PREREQFUNCTION = 20312,
    EASY_PREREQDATA = 10313,
    EASY_CLOSESOCKETFUNCTION = 20208,
    EASY_CLOSESOCKETDATA = 10209,
};

// What the poller knows of a socket.
enum socket_state {
    UNKNOWN = 0,
    // libcurl watches it for a transfer.
    ACTIVE,
    // libcurl stopped watching it: a paused transfer's, or one whose connection goes back to
    // the pool or is about to be closed. Not watched.
    RELEASED,
    // Its connection rests in libcurl's pool (its transfer finished): watched once for bytes.
    IDLE,
    // Retired: its descriptor now refers to a socket whose peer is gone.
    RETIRED,
    // A CONNECT_ONLY connection the application reads and writes itself: readiness goes to the
    // channel callback, never to libcurl.
    CHANNEL,
};

struct socket_entry {
    unsigned char state;
    unsigned char multiplexed;
    // Whether local_port and remote_port are the current socket's: read once per connection
    // (two system calls), forgotten when the descriptor is added to the epoll set again, which
    // happens for every new socket behind it (see watch).
    unsigned char ports_known;
    // The connection's local and remote ports while it is IDLE: how a transfer that reuses it
    // is recognised (see on_connection).
    int local_port;
    int remote_port;
    // The easy handle libcurl last named for it (only meaningful for an HTTP/1 connection, which
    // carries one transfer at a time).
    void *easy;
};

struct ccurl_poller {
    void *multi;
    int epoll;
    int wake;
    // Monotonic milliseconds at which libcurl wants its timeout action; -1 for none.
    int64_t timer;
    struct socket_entry *sockets;
    int capacity;
    // One past the highest socket seen.
    int highest;
    long retired;
    // Monotonic milliseconds at which the owner's current (or next) wait ends.
    int64_t wait_until;
    // What the last ccurl_poller_wait saw, for ccurl_poller_dispatch.
    struct epoll_event ready[CCURL_POLLER_BATCH];
    int ready_count;
    ccurl_activity_callback activity;
    ccurl_channel_callback channel;
    void *context;
};

static int64_t now_milliseconds(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

// The entry for `socket`, growing the table as needed; NULL for a negative socket or no memory.
static struct socket_entry *entry(struct ccurl_poller *poller, int socket) {
    if (socket < 0) return NULL;
    if (socket >= poller->highest) poller->highest = socket + 1;
    if (socket >= poller->capacity) {
        int capacity = poller->capacity;
        while (capacity <= socket) capacity *= 2;
        struct socket_entry *grown = realloc(poller->sockets, (size_t)capacity * sizeof *grown);
        if (grown == NULL) return NULL;
        memset(grown + poller->capacity, 0, (size_t)(capacity - poller->capacity) * sizeof *grown);
        poller->sockets = grown;
        poller->capacity = capacity;
    }
    return &poller->sockets[socket];
}

// Adds `socket` to the epoll set, or changes what it is watched for.
static void watch(struct ccurl_poller *poller, int socket, uint32_t events) {
    struct epoll_event event;
    memset(&event, 0, sizeof event);
    event.events = events;
    event.data.fd = socket;
    if (epoll_ctl(poller->epoll, EPOLL_CTL_MOD, socket, &event) != 0 && errno == ENOENT) {
        // Not in the set: the descriptor's socket is new to the poller (the kernel took an
        // earlier one out of the set when it was closed or replaced by retire, and libcurl names
        // every socket it uses to the socket callback before a transfer on it can end).
        struct socket_entry *found = entry(poller, socket);
        if (found != NULL) found->ports_known = 0;
        epoll_ctl(poller->epoll, EPOLL_CTL_ADD, socket, &event);
    }
}

// libcurl's socket callback: what to watch a socket for, or that it no longer needs watching.
static int on_socket(void *easy, int socket, int what, void *user, void *socket_data) {
    (void)socket_data;
    struct ccurl_poller *poller = user;
    struct socket_entry *found = entry(poller, socket);
    if (found == NULL) return -1;
    if (what == POLL_REMOVE) {
        if (found->state == ACTIVE) {
            // A paused transfer's socket is released too, and its bytes are its own: only once
            // the transfer has finished (ccurl_poller_watch_idle) are bytes nobody's.
            found->state = RELEASED;
            found->easy = NULL;
            watch(poller, socket, 0);
        }
        return 0;
    }
    found->state = ACTIVE;
    found->easy = easy;
    uint32_t events = 0;
    if (what & POLL_IN) events |= EPOLLIN;
    if (what & POLL_OUT) events |= EPOLLOUT;
    watch(poller, socket, events);
    return 0;
}

// libcurl's timer callback: when to call curl_multi_socket_action with CURL_SOCKET_TIMEOUT.
static int on_timer(void *multi, long milliseconds, void *user) {
    (void)multi;
    struct ccurl_poller *poller = user;
    poller->timer = milliseconds < 0 ? -1 : now_milliseconds() + milliseconds;
    return 0;
}

// Bytes arrived on an idle connection: for HTTP/1, nothing asked for them, so the connection
// must never carry another request. Its descriptor is made to refer to a socket whose peer is
// gone (so the TCP connection is closed now, its unread bytes with it), and libcurl's liveness
// check on reuse finds it dead and opens a new one.
static void retire(struct ccurl_poller *poller, int socket, struct socket_entry *found) {
    if (found->multiplexed) return;  // HTTP/2 frames (PING, SETTINGS, GOAWAY) that libcurl reads
    int pair[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0) return;
    close(pair[1]);
    if (dup3(pair[0], socket, O_CLOEXEC) >= 0) {
        found->state = RETIRED;
        found->ports_known = 0;
        poller->retired += 1;
    }
    close(pair[0]);
}

ccurl_poller *ccurl_poller_create(
    ccurl_multi *multi, ccurl_activity_callback activity, ccurl_channel_callback channel, void *context) {
    if (ccurl_load() != 0 || multi == NULL) return NULL;
    struct ccurl_poller *poller = calloc(1, sizeof *poller);
    if (poller == NULL) return NULL;
    poller->multi = multi;
    poller->timer = -1;
    poller->activity = activity;
    poller->channel = channel;
    poller->context = context;
    poller->capacity = 64;
    poller->sockets = calloc((size_t)poller->capacity, sizeof *poller->sockets);
    poller->epoll = epoll_create1(EPOLL_CLOEXEC);
    poller->wake = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (poller->sockets == NULL || poller->epoll < 0 || poller->wake < 0) {
        ccurl_poller_destroy(poller);
        return NULL;
    }
    struct epoll_event event;
    memset(&event, 0, sizeof event);
    event.events = EPOLLIN;
    event.data.fd = poller->wake;
    if (epoll_ctl(poller->epoll, EPOLL_CTL_ADD, poller->wake, &event) != 0
        || ccurl_lib.multi_setopt(multi, MOPT_SOCKETFUNCTION, on_socket) != 0
        || ccurl_lib.multi_setopt(multi, MOPT_SOCKETDATA, poller) != 0
        || ccurl_lib.multi_setopt(multi, MOPT_TIMERFUNCTION, on_timer) != 0
        || ccurl_lib.multi_setopt(multi, MOPT_TIMERDATA, poller) != 0) {
        ccurl_poller_destroy(poller);
        return NULL;
    }
    return poller;
}

void ccurl_poller_destroy(ccurl_poller *poller) {
    if (poller == NULL) return;
    if (poller->epoll >= 0) close(poller->epoll);
    if (poller->wake >= 0) close(poller->wake);
    free(poller->sockets);
    free(poller);
}

void ccurl_poller_wake(ccurl_poller *poller) {
    uint64_t one = 1;
    // EAGAIN means a wake-up is already pending: nothing is lost.
    ssize_t written = write(poller->wake, &one, sizeof one);
    (void)written;
}

int ccurl_poller_plan_wait(ccurl_poller *poller, int max_wait_milliseconds) {
    int wait = max_wait_milliseconds;
    int64_t now = now_milliseconds();
    if (poller->timer >= 0) {
        int64_t until = poller->timer - now;
        if (until < wait) wait = until < 0 ? 0 : (int)until;
    }
    poller->wait_until = now + wait;
    return wait;
}

int ccurl_poller_wait(ccurl_poller *poller, int milliseconds) {
    // Only the owner's thread reads and writes `ready`, so this needs no lock.
    int count = epoll_wait(poller->epoll, poller->ready, CCURL_POLLER_BATCH, milliseconds);
    if (count < 0) {
        poller->ready_count = 0;
        return errno == EINTR ? 0 : -errno;
    }
    poller->ready_count = count;
    return count;
}

void ccurl_poller_dispatch(ccurl_poller *poller, int *running) {
    struct epoll_event *events = poller->ready;
    int count = poller->ready_count;
    poller->ready_count = 0;
    // Idle connections first: one that received bytes is retired before a transfer started
    // below could take it from the pool. An entry may have changed since the wait (a transfer
    // added meanwhile took the connection): what it is now decides.
    for (int index = 0; index < count; index++) {
        int socket = events[index].data.fd;
        if (socket == poller->wake) {
            uint64_t value;
            ssize_t drained = read(poller->wake, &value, sizeof value);
            (void)drained;
            continue;
        }
        struct socket_entry *found = entry(poller, socket);
        if (found != NULL && found->state == IDLE) retire(poller, socket, found);
    }
    for (int index = 0; index < count; index++) {
        int socket = events[index].data.fd;
        struct socket_entry *found = socket == poller->wake ? NULL : entry(poller, socket);
        if (found != NULL && found->state == CHANNEL && poller->channel != NULL) {
            uint32_t ready = events[index].events;
            int what = 0;
            if (ready & EPOLLIN) what |= CCURL_CHANNEL_READABLE;
            if (ready & EPOLLOUT) what |= CCURL_CHANNEL_WRITABLE;
            if (ready & (EPOLLERR | EPOLLHUP | EPOLLRDHUP)) what |= CCURL_CHANNEL_CLOSED;
            poller->channel(poller->context, socket, what);
            continue;
        }
        if (found == NULL || found->state != ACTIVE) continue;
        uint32_t ready = events[index].events;
        int mask = 0;
        if (ready & (EPOLLIN | EPOLLRDHUP | EPOLLHUP)) mask |= SELECT_IN;
        if (ready & EPOLLOUT) mask |= SELECT_OUT;
        if (ready & (EPOLLERR | EPOLLHUP)) mask |= SELECT_ERR;
        // A head that drips in a byte at a time is activity, though libcurl calls its header
        // callback only for whole lines. (On HTTP/2 the bytes may be any stream's.)
        if ((mask & SELECT_IN) && found->easy != NULL && !found->multiplexed && poller->activity != NULL) {
            poller->activity(poller->context, found->easy);
        }
        ccurl_lib.multi_socket_action(poller->multi, socket, mask, running);
    }
    ccurl_poller_run_timer(poller, running);
}

void ccurl_poller_run_timer(ccurl_poller *poller, int *running) {
    if (poller->timer >= 0 && poller->timer <= now_milliseconds()) {
        poller->timer = -1;
        ccurl_lib.multi_socket_action(poller->multi, SOCKET_TIMEOUT, 0, running);
    }
}

int ccurl_poller_must_wake(ccurl_poller *poller, int64_t deadline_milliseconds) {
    if (poller->timer >= 0 && poller->timer < poller->wait_until) return 1;
    return deadline_milliseconds >= 0 && now_milliseconds() + deadline_milliseconds < poller->wait_until;
}

// The port of an IPv4 or IPv6 socket address; 0 for any other kind.
static int port_of(const struct sockaddr_storage *address) {
    if (address->ss_family == AF_INET) return ntohs(((const struct sockaddr_in *)address)->sin_port);
    if (address->ss_family == AF_INET6) return ntohs(((const struct sockaddr_in6 *)address)->sin6_port);
    return 0;
}

void ccurl_poller_watch_idle(ccurl_poller *poller, int socket, int multiplexed) {
    struct socket_entry *found = entry(poller, socket);
    if (found == NULL) return;
    found->multiplexed = multiplexed != 0;
    // Taken from the pool (on_connection) and never named to the socket callback since: the
    // transfer reused it, sent, read its answer and ended within one call of libcurl's. Nothing
    // else holds it: a transfer that took it after this one and did not end in that same call
    // would have been named. Without this, such a connection was never watched again, and bytes
    // that came on it while idle answered the next request (measured: 3 runs in 8 of the stress
    // test of stray bytes).
    if (found->state == ACTIVE && found->easy == NULL) found->state = RELEASED;
    // Still in use (by other HTTP/2 streams, or already by the next transfer): libcurl watches it.
    if (found->state != RELEASED) return;
    if (!found->ports_known) {
        struct sockaddr_storage local, remote;
        socklen_t local_length = sizeof local, remote_length = sizeof remote;
        // Without its ports, a reuse could not be recognised: such a connection is not watched.
        if (getsockname(socket, (struct sockaddr *)&local, &local_length) != 0
            || getpeername(socket, (struct sockaddr *)&remote, &remote_length) != 0
            || port_of(&local) == 0) {
            return;
        }
        found->local_port = port_of(&local);
        found->remote_port = port_of(&remote);
        found->ports_known = 1;
    }
    found->state = IDLE;
    watch(poller, socket, EPOLLIN | EPOLLRDHUP | EPOLLONESHOT);
}

// Whether an idle connection has bytes waiting to be read, or its peer has closed it: then
// nothing may be sent on it.
static int has_unread_bytes(int socket) {
    char byte;
    ssize_t peeked = recv(socket, &byte, 1, MSG_PEEK | MSG_DONTWAIT);
    return peeked >= 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR);
}

// CURLOPT_PREREQFUNCTION: a transfer got its connection, new or from the pool, and is about to
// send. libcurl may reuse an idle connection, send, read the answer and pause all in one call,
// without a socket callback: this is how the poller learns that the connection is no longer idle.
static int on_connection(void *user, char *remote_ip, char *local_ip, int remote_port, int local_port) {
    (void)remote_ip;
    (void)local_ip;
    struct ccurl_poller *poller = user;
    for (int socket = 0; socket < poller->highest && socket < poller->capacity; socket++) {
        struct socket_entry *found = &poller->sockets[socket];
        if (found->state == IDLE && found->local_port == local_port && found->remote_port == remote_port) {
            // Bytes that came while it was idle may not have been dispatched yet: the loop can be
            // between its wait and its dispatch while a caller starts a transfer directly, and
            // libcurl would read them as this request's answer (measured: 2 runs in 30 of the
            // stray-bytes test). Retired now, the send fails on a dead socket, and the transfer
            // is tried again on a new connection.
            if (!found->multiplexed && has_unread_bytes(socket)) {
                retire(poller, socket, found);
                continue;
            }
            // Its one-shot watch may still fire: bytes on it are then the transfer's, for libcurl.
            found->state = ACTIVE;
            found->easy = NULL;
        }
    }
    return 0;  // CURL_PREREQFUNC_OK
}

// CURLOPT_CLOSESOCKETFUNCTION: libcurl closes one of its sockets. It says so for every socket,
// including an idle connection it closes without a socket callback (past its idle age
// (CURLOPT_MAXAGE_CONN), or to make room in its pool): the entry is forgotten, so that no stale
// IDLE entry outlives its connection and the number is anyone's again.
static int on_close(void *user, int socket) {
    struct ccurl_poller *poller = user;
    struct socket_entry *found = poller != NULL ? entry(poller, socket) : NULL;
    if (found != NULL) memset(found, 0, sizeof *found);
    // Closing takes the descriptor out of the epoll set too (the poller holds no copy of it).
    return close(socket);
}

int ccurl_poller_prepare(ccurl_poller *poller, ccurl_easy *easy) {
    // A connection keeps the close callback of the handle that opened it: every handle sets it.
    if (ccurl_lib.easy_setopt(easy, EASY_CLOSESOCKETDATA, poller) != 0
        || ccurl_lib.easy_setopt(easy, EASY_CLOSESOCKETFUNCTION, on_close) != 0) {
        return -1;
    }
    if (ccurl_lib.easy_setopt(easy, EASY_PREREQFUNCTION, on_connection) != 0) return -1;
    return ccurl_lib.easy_setopt(easy, EASY_PREREQDATA, poller);
}

long ccurl_poller_retired_count(ccurl_poller *poller) { return poller->retired; }

int ccurl_poller_idle_ports(ccurl_poller *poller, int *ports, int capacity) {
    int count = 0;
    for (int socket = 0; socket < poller->highest && socket < poller->capacity; socket++) {
        if (poller->sockets[socket].state != IDLE) continue;
        if (count < capacity) ports[count] = poller->sockets[socket].local_port;
        count += 1;
    }
    return count;
}

void ccurl_poller_watch_channel(ccurl_poller *poller, int socket, int events) {
    struct socket_entry *found = entry(poller, socket);
    if (found == NULL) return;
    found->state = CHANNEL;
    found->easy = NULL;
    if (events == 0) {
        epoll_ctl(poller->epoll, EPOLL_CTL_DEL, socket, NULL);
        return;
    }
    uint32_t wanted = 0;
    // A hang-up is reported with reading only: a paused reader must not be told over and over.
    if (events & CCURL_CHANNEL_READABLE) wanted |= EPOLLIN | EPOLLRDHUP;
    if (events & CCURL_CHANNEL_WRITABLE) wanted |= EPOLLOUT;
    watch(poller, socket, wanted);
}

void ccurl_poller_forget_channel(ccurl_poller *poller, int socket) {
    struct socket_entry *found = entry(poller, socket);
    if (found == NULL || found->state != CHANNEL) return;
    epoll_ctl(poller->epoll, EPOLL_CTL_DEL, socket, NULL);
    // libcurl closes it with the connection: the number is then anyone's.
    found->state = UNKNOWN;
}

#endif
