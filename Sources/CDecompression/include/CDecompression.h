#ifndef CURLEW_CDECOMPRESSION_H
#define CURLEW_CDECOMPRESSION_H

// zlib, brotli and zstd decoders for Curlew's own content decoding. Not API.
#include <zlib.h>
#include <brotli/decode.h>
#include <zstd.h>

/// `inflateInit2` is a macro; this is it as a function Swift can call.
int curlew_inflate_init(z_stream *stream, int window_bits);

#endif
