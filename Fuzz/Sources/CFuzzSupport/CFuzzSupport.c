#include "CFuzzSupport.h"

#include <string.h>
#include <zlib.h>
#include <brotli/encode.h>
#include <zstd.h>

size_t curlew_fuzz_deflate(const unsigned char *input, size_t count, int format, int level,
                           unsigned char *output, size_t capacity) {
    z_stream stream;
    memset(&stream, 0, sizeof stream);
    int bits = format == 0 ? 15 + 16 : (format == 1 ? 15 : -15);
    if (deflateInit2(&stream, level, Z_DEFLATED, bits, 8, Z_DEFAULT_STRATEGY) != Z_OK) return 0;
    stream.next_in = (Bytef *)input;
    stream.avail_in = (uInt)count;
    stream.next_out = output;
    stream.avail_out = (uInt)capacity;
    int status = deflate(&stream, Z_FINISH);
    size_t produced = capacity - stream.avail_out;
    deflateEnd(&stream);
    return status == Z_STREAM_END ? produced : 0;
}

size_t curlew_fuzz_brotli(const unsigned char *input, size_t count, int quality,
                          unsigned char *output, size_t capacity) {
    size_t size = capacity;
    if (!BrotliEncoderCompress(quality, BROTLI_DEFAULT_WINDOW, BROTLI_MODE_GENERIC, count, input,
                               &size, output))
        return 0;
    return size;
}

size_t curlew_fuzz_zstd(const unsigned char *input, size_t count, int level,
                        unsigned char *output, size_t capacity) {
    size_t size = ZSTD_compress(output, capacity, input, count, level);
    return ZSTD_isError(size) ? 0 : size;
}
