// Loads zlib with dlopen; see include/CZlib.h.

#include "CZlib.h"

#if defined(__linux__)

#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

// zlib's z_stream, laid out as zlib.h lays it out (every zlib 1.x since 1.0).
typedef struct {
    const unsigned char *next_in;
    unsigned avail_in;
    unsigned long total_in;
    unsigned char *next_out;
    unsigned avail_out;
    unsigned long total_out;
    const char *msg;
    void *state;
    void *zalloc;
    void *zfree;
    void *opaque;
    int data_type;
    unsigned long adler;
    unsigned long reserved;
} z_stream_layout;

struct czlib_stream {
    z_stream_layout z;
    int inflating;
};

// zlib's constants (zlib.h).
enum { Z_OK = 0, Z_STREAM_END = 1, Z_BUF_ERROR = -5, Z_NO_FLUSH = 0, Z_SYNC_FLUSH = 2, Z_DEFLATED = 8 };

static struct {
    const char *(*version)(void);
    int (*inflate_init)(z_stream_layout *, int, const char *, int);
    int (*inflate)(z_stream_layout *, int);
    int (*inflate_reset)(z_stream_layout *);
    int (*inflate_end)(z_stream_layout *);
    int (*deflate_init)(z_stream_layout *, int, int, int, int, int, const char *, int);
    int (*deflate)(z_stream_layout *, int);
    int (*deflate_reset)(z_stream_layout *);
    int (*deflate_end)(z_stream_layout *);
} zlib;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static const char *load_error = "zlib was not loaded";

#define FIND(field, name)                                                                          \
    do {                                                                                           \
        *(void **)(&zlib.field) = dlsym(library, name);                                            \
        if (zlib.field == NULL) {                                                                  \
            load_error = "libz.so.1 lacks " name;                                                  \
            return;                                                                                \
        }                                                                                          \
    } while (0)

static void load(void) {
    void *library = dlopen("libz.so.1", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        load_error = "libz.so.1 could not be loaded";
        return;
    }
    FIND(version, "zlibVersion");
    FIND(inflate_init, "inflateInit2_");
    FIND(inflate, "inflate");
    FIND(inflate_reset, "inflateReset");
    FIND(inflate_end, "inflateEnd");
    FIND(deflate_init, "deflateInit2_");
    FIND(deflate, "deflate");
    FIND(deflate_reset, "deflateReset");
    FIND(deflate_end, "deflateEnd");
    load_error = NULL;
}

const char *czlib_load_error(void) {
    pthread_once(&once, load);
    return load_error;
}

static czlib_stream *create(int inflating, int window_bits) {
    if (czlib_load_error() != NULL) return NULL;
    czlib_stream *stream = calloc(1, sizeof *stream);
    if (stream == NULL) return NULL;
    stream->inflating = inflating;
    // Negative window bits: raw deflate, no zlib header or checksum (RFC 7692 §7.2.1).
    int result = inflating
        ? zlib.inflate_init(&stream->z, -window_bits, zlib.version(), (int)sizeof stream->z)
        : zlib.deflate_init(&stream->z, 6, Z_DEFLATED, -window_bits, 8, 0, zlib.version(), (int)sizeof stream->z);
    if (result != Z_OK) {
        free(stream);
        return NULL;
    }
    return stream;
}

czlib_stream *czlib_inflater_create(int window_bits) { return create(1, window_bits); }

czlib_stream *czlib_deflater_create(int window_bits) { return create(0, window_bits); }

void czlib_stream_destroy(czlib_stream *stream) {
    if (stream == NULL) return;
    if (stream->inflating) zlib.inflate_end(&stream->z); else zlib.deflate_end(&stream->z);
    free(stream);
}

int czlib_stream_reset(czlib_stream *stream) {
    int result = stream->inflating ? zlib.inflate_reset(&stream->z) : zlib.deflate_reset(&stream->z);
    return result == Z_OK ? 0 : -1;
}

static int run(
    czlib_stream *stream, int flush, const void *input, size_t input_count, size_t *consumed, void *output,
    size_t output_capacity, size_t *produced) {
    // zlib counts in unsigned int: larger buffers are taken a part at a time by the caller.
    unsigned in = input_count > 0x40000000u ? 0x40000000u : (unsigned)input_count;
    unsigned out = output_capacity > 0x40000000u ? 0x40000000u : (unsigned)output_capacity;
    stream->z.next_in = input;
    stream->z.avail_in = in;
    stream->z.next_out = output;
    stream->z.avail_out = out;
    int result = stream->inflating ? zlib.inflate(&stream->z, flush) : zlib.deflate(&stream->z, flush);
    *consumed = in - stream->z.avail_in;
    *produced = out - stream->z.avail_out;
    stream->z.next_in = NULL;
    stream->z.next_out = NULL;
    if (result == Z_STREAM_END) return 1;
    // No progress possible (no input, or no room) is not an error.
    if (result == Z_OK || result == Z_BUF_ERROR) return 0;
    return -1;
}

int czlib_inflate(
    czlib_stream *stream, const void *input, size_t input_count, size_t *consumed, void *output,
    size_t output_capacity, size_t *produced) {
    return run(stream, Z_NO_FLUSH, input, input_count, consumed, output, output_capacity, produced);
}

int czlib_deflate(
    czlib_stream *stream, const void *input, size_t input_count, size_t *consumed, void *output,
    size_t output_capacity, size_t *produced) {
    return run(stream, Z_SYNC_FLUSH, input, input_count, consumed, output, output_capacity, produced);
}

#else

const char *czlib_load_error(void) { return "WebSocket compression uses zlib through libcurl's transport, on Linux"; }
czlib_stream *czlib_inflater_create(int window_bits) { (void)window_bits; return NULL; }
czlib_stream *czlib_deflater_create(int window_bits) { (void)window_bits; return NULL; }
void czlib_stream_destroy(czlib_stream *stream) { (void)stream; }
int czlib_stream_reset(czlib_stream *stream) { (void)stream; return -1; }
int czlib_inflate(czlib_stream *stream, const void *input, size_t input_count, size_t *consumed, void *output,
                  size_t output_capacity, size_t *produced) {
    (void)stream; (void)input; (void)input_count; (void)output; (void)output_capacity;
    *consumed = 0; *produced = 0; return -1;
}
int czlib_deflate(czlib_stream *stream, const void *input, size_t input_count, size_t *consumed, void *output,
                  size_t output_capacity, size_t *produced) {
    (void)stream; (void)input; (void)input_count; (void)output; (void)output_capacity;
    *consumed = 0; *produced = 0; return -1;
}

#endif
