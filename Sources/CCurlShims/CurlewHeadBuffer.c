#include <stdlib.h>
#include <string.h>
#include "CurlewHeadBuffer.h"

/// The most room a buffer keeps from one hop to the next.
#define CURLEW_HEAD_BUFFER_KEPT_CAPACITY (16 * 1024)

curlew_head_buffer *curlew_head_buffer_create(size_t limit, int (*head_ended)(void *context), void *context) {
    curlew_head_buffer *buffer = calloc(1, sizeof *buffer);
    if (buffer == NULL) return NULL;
    buffer->limit = limit;
    buffer->head_ended = head_ended;
    buffer->context = context;
    return buffer;
}

void curlew_head_buffer_free(curlew_head_buffer *buffer) {
    if (buffer == NULL) return;
    free(buffer->bytes);
    free(buffer);
}

void curlew_head_buffer_reset_hop(curlew_head_buffer *buffer) {
    // A pooled handle keeps a usual head's room, not the room an outsized head once took.
    if (buffer->capacity > CURLEW_HEAD_BUFFER_KEPT_CAPACITY) {
        free(buffer->bytes);
        buffer->bytes = NULL;
        buffer->capacity = 0;
    }
    buffer->count = 0;
    buffer->hop_bytes = 0;
    buffer->refused = 0;
    buffer->passing = 0;
}

size_t curlew_head_buffer_callback(char *data, size_t size, size_t nitems, void *userdata) {
    curlew_head_buffer *buffer = userdata;
    size_t length = size * nitems;
    buffer->lines += 1;
    // hop_bytes never exceeds limit, so the subtraction cannot wrap.
    if (length > buffer->limit - buffer->hop_bytes) {
        buffer->refused = 1;
        return 0;
    }
    buffer->hop_bytes += length;
    if (buffer->passing) return length;
    if (length > buffer->capacity - buffer->count) {
        // Bounded by limit: count + length <= hop_bytes <= limit.
        size_t wanted = buffer->count + length;
        size_t capacity = buffer->capacity ? buffer->capacity : 1024;
        while (capacity < wanted) capacity *= 2;
        unsigned char *grown = realloc(buffer->bytes, capacity);
        if (grown == NULL) {
            buffer->refused = 2;
            return 0;
        }
        buffer->bytes = grown;
        buffer->capacity = capacity;
    }
    memcpy(buffer->bytes + buffer->count, data, length);
    buffer->count += length;
    // A line of nothing but CR and LF ends the head; any other byte, and it is a field or status line.
    for (size_t index = 0; index < length; index++) {
        if (data[index] != '\r' && data[index] != '\n') return length;
    }
    return buffer->head_ended(buffer->context) ? length : 0;
}
