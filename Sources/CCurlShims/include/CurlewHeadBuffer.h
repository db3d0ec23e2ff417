// The lines of a response head, gathered in C as libcurl's header callback hands them over, so
// that Swift is called once per head (at its blank line) instead of once per line. Internal
// to Curlew: not API.
#ifndef CURLEW_HEAD_BUFFER_H
#define CURLEW_HEAD_BUFFER_H

#include <stddef.h>
#include <stdint.h>

typedef struct curlew_head_buffer {
    /// The current head's lines as libcurl passed them, line ends included.
    unsigned char *bytes;
    size_t count;
    size_t capacity;
    /// Every header byte of the hop (interim heads, the final head, trailers), against `limit`.
    size_t hop_bytes;
    size_t limit;
    /// Lines seen since the buffer was made: activity, for the idle timeout.
    uint64_t lines;
    /// Why the callback refused a line: 1 when the hop's header bytes would pass `limit`, 2 when
    /// memory ran out; 0 otherwise.
    int refused;
    /// Nonzero once the hop wants no more heads (it has its final head, or a redirect's): lines
    /// are counted against the limit and passed, not kept.
    int passing;
    /// Called with `context` after a head's blank line is kept; a zero answer aborts the transfer.
    int (*head_ended)(void *context);
    void *context;
} curlew_head_buffer;

/// A buffer for one easy handle; NULL when out of memory.
curlew_head_buffer *curlew_head_buffer_create(size_t limit, int (*head_ended)(void *context), void *context);
void curlew_head_buffer_free(curlew_head_buffer *buffer);
/// A new hop: no bytes kept or counted, no refusal, heads wanted again; room over 16 KiB, which
/// only an outsized head takes, is given back.
void curlew_head_buffer_reset_hop(curlew_head_buffer *buffer);
/// `CURLOPT_HEADERFUNCTION`, with the buffer as `CURLOPT_HEADERDATA`.
size_t curlew_head_buffer_callback(char *data, size_t size, size_t nitems, void *buffer);

#endif
