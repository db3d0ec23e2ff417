#include <zlib.h>
#include <brotli/encode.h>
#include <zstd.h>

