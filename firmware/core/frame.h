/* The frame (docs/protocol.md §2): header, payload, CRC-16, COBS, 0x00 delimiter. */
#ifndef MJT_FRAME_H
#define MJT_FRAME_H

#include <stddef.h>
#include <stdint.h>

#include "cobs.h"
#include "counters.h"

#define MJT_VERSION 1u
#define MJT_HEADER_LEN 5u
#define MJT_CRC_LEN 2u
#define MJT_MAX_PAYLOAD 1024u
#define MJT_MIN_RAW (MJT_HEADER_LEN + MJT_CRC_LEN)                     /* 7 */
#define MJT_MAX_RAW (MJT_HEADER_LEN + MJT_MAX_PAYLOAD + MJT_CRC_LEN)   /* 1031 */
#define MJT_MAX_ENCODED MJT_COBS_MAX(MJT_MAX_RAW)                       /* 1036 */
/* A leading 0x00 (before a hello), the encoding, the delimiter. */
#define MJT_MAX_WIRE (1u + MJT_MAX_ENCODED + 1u)

typedef struct {
    uint8_t version, type, seq, ack, sack;
    const uint8_t *payload; /* points into the decoder's buffer: valid until the next feed */
    uint16_t len;
} mjt_frame;

/* Build the raw frame in `raw` (room for MJT_MAX_RAW) and write its wire form into `wire`
 * (room for MJT_MAX_WIRE): [0x00 if lead_zero] COBS(raw) 0x00. Returns the wire length. */
size_t mjt_frame_encode(const mjt_frame *f, uint8_t *raw, uint8_t *wire, int lead_zero);

/* Byte-at-a-time decoder: never fails, counts what it drops. The encoded segment is
 * buffered (at most MJT_MAX_ENCODED bytes) and decoded in place at the delimiter. */
typedef struct {
    uint8_t buf[MJT_MAX_ENCODED];
    uint16_t len;
    uint8_t skipping; /* oversize: drop the rest of the segment */
} mjt_decoder;

void mjt_decoder_init(mjt_decoder *d);

/* Feed one byte. Returns 1 and fills `out` when it completes a valid frame. */
int mjt_decoder_byte(mjt_decoder *d, uint8_t byte, mjt_counters *c, mjt_frame *out);

#endif
