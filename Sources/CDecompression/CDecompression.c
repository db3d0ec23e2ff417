#include "CDecompression.h"

int curlew_inflate_init(z_stream *stream, int window_bits) {
    return inflateInit2(stream, window_bits);
}

int curlew_deflate_init(z_stream *stream, int level, int window_bits, int mem_level, int strategy) {
    return deflateInit2(stream, level, Z_DEFLATED, window_bits, mem_level, strategy);
}
