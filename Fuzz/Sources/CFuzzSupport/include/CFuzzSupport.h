#ifndef CURLEW_CFUZZSUPPORT_H
#define CURLEW_CFUZZSUPPORT_H

#include <stddef.h>
#include <stdint.h>

// libFuzzer's entry point for programs that have a `main` of their own. SwiftPM links an
// executable with `main` aliased to `<module>_main`, which `-parse-as-library` code does not
// define, so each target defines `<module>_main` and starts libFuzzer through this.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

// Encoders for the content-decoder fuzz target: each writes the coded form of `input` into
// `output` (of `capacity` bytes) and returns its length, or 0 when it does not fit or fails.

/// `format`: 0 gzip, 1 zlib (HTTP "deflate"), 2 raw deflate. `level` 0...9.
size_t curlew_fuzz_deflate(const unsigned char *input, size_t count, int format, int level,
                           unsigned char *output, size_t capacity);
/// brotli at `quality` 0...11 (keep it low: the fuzzer calls this for every input).
size_t curlew_fuzz_brotli(const unsigned char *input, size_t count, int quality,
                          unsigned char *output, size_t capacity);
/// zstd at `level` 1...19.
size_t curlew_fuzz_zstd(const unsigned char *input, size_t count, int level,
                        unsigned char *output, size_t capacity);

#endif
