// zlib's raw deflate for WebSocket compression (RFC 7692), loaded with dlopen on Linux like
// libcurl, so that nothing needs installing. Elsewhere every function fails: Osprey's WebSockets
// run over libcurl on Linux only.

#ifndef OSPREY_CZLIB_H
#define OSPREY_CZLIB_H

#include <stddef.h>

typedef struct czlib_stream czlib_stream;

/// Why zlib cannot be used here, or NULL when it can.
const char *czlib_load_error(void);

/// A raw inflater (no zlib header) with a window of 2^`window_bits` bytes (8 to 15); NULL on
/// failure.
czlib_stream *czlib_inflater_create(int window_bits);
/// A raw deflater with a window of 2^`window_bits` bytes (9 to 15); NULL on failure.
czlib_stream *czlib_deflater_create(int window_bits);
void czlib_stream_destroy(czlib_stream *stream);
/// Forgets the stream's history (no context takeover). 0, or -1.
int czlib_stream_reset(czlib_stream *stream);

/// Inflates from `input` into `output`: how much of each moved goes to `consumed` and
/// `produced`. 0 when it may go on (more input, or more room), 1 at the end of a deflate
/// stream, -1 on corrupt data (the message is not valid deflate).
int czlib_inflate(
    czlib_stream *stream, const void *input, size_t input_count, size_t *consumed, void *output,
    size_t output_capacity, size_t *produced);

/// Deflates `input` with a sync flush into `output`: the output ends with the empty stored block
/// `00 00 FF FF` once all input was taken and `produced` < `output_capacity`. 0, or -1.
int czlib_deflate(
    czlib_stream *stream, const void *input, size_t input_count, size_t *consumed, void *output,
    size_t output_capacity, size_t *produced);

#endif
