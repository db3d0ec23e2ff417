#include <zlib.h>
#include <brotli/encode.h>
#include <zstd.h>

// Not compression: the one other C call the test helpers need. The bytes malloc has handed out
// and not had back (arena chunks in use plus mmapped chunks), for memory bounds that should not
// count what the allocator keeps for reuse.
#include <malloc.h>
static inline size_t curlew_test_heap_in_use(void) {
    struct mallinfo2 info = mallinfo2();
    return info.uordblks + info.hblkhd;
}
