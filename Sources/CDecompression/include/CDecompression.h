#ifndef CURLEW_CDECOMPRESSION_H
#define CURLEW_CDECOMPRESSION_H

// zlib, brotli and zstd decoders for Curlew's own content decoding. Not API.
#include <zlib.h>
#include <brotli/decode.h>
#include <zstd.h>

/// `inflateInit2` is a macro; this is it as a function Swift can call.
int curlew_inflate_init(z_stream *stream, int window_bits);

/// `deflateInit2` is a macro too (WebSocket permessage-deflate compresses with it).
int curlew_deflate_init(z_stream *stream, int level, int window_bits, int mem_level, int strategy);

#endif
