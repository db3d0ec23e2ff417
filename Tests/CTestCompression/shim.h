#include <zlib.h>
#include <brotli/encode.h>
