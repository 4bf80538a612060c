/* Consistent Overhead Byte Stuffing (docs/protocol.md §2): removes every 0x00 from a frame
 * so that 0x00 can delimit frames. Overhead: 1 byte per 254, plus 1. */
#ifndef MJT_COBS_H
#define MJT_COBS_H

#include <stddef.h>
#include <stdint.h>

/* Largest encoding of n bytes (without the delimiter). */
#define MJT_COBS_MAX(n) ((n) + (n) / 254u + 1u)

/* Encode `len` bytes of `in` into `out` (room for MJT_COBS_MAX(len)); returns the length
 * written. `in` and `out` must not overlap. */
size_t mjt_cobs_encode(const uint8_t *in, size_t len, uint8_t *out);

/* Decode `len` bytes (no delimiter) into `out` (room for `len` bytes; `out` may equal `in`:
 * decoding in place is safe because the output never runs ahead of the input).
 * Returns the decoded length, or -1 when a block runs past the end or contains a zero. */
int mjt_cobs_decode(const uint8_t *in, size_t len, uint8_t *out);

#endif
