/* The reference multi-tag RFID reader frame (docs/rfid.md), parsed a byte at a time:
 *   AA 55 | len:u16 | reader:u8 | seq:u8 | count:u8 | count × UID(8)           | crc:u16
 *   AA 56 | len:u16 | reader:u8 | seq:u8 | count:u8 | count × (n:u8 | UID(n)) | crc:u16
 * The first has len = 3 + 8·count; the second (sent when some UID is not 8 bytes: a member's
 * card) carries UIDs of 1..32 bytes, each after its size, filling len exactly. count 0..136,
 * CRC-16/CCITT-FALSE over len .. last UID. A bad candidate drops one byte and the search for
 * the next sync goes on, so a real frame behind a false sync byte is still found. */
#ifndef MJT_REF_FRAME_H
#define MJT_REF_FRAME_H

#include <stddef.h>
#include <stdint.h>

#define MJT_REF_MAX_TAGS 136u
#define MJT_REF_MAX_UID 32u /* the longest UID a sized frame may carry */
#define MJT_REF_MAX_LEN (3u + (1u + MJT_REF_MAX_UID) * MJT_REF_MAX_TAGS)
#define MJT_REF_MAX_FRAME (2u + 2u + MJT_REF_MAX_LEN + 2u)

typedef struct {
    uint8_t reader, seq, count;
    uint8_t sized;       /* 0: uids is count × 8 bytes; 1: count × (n | UID(n)) */
    uint16_t size;       /* the bytes at uids */
    const uint8_t *uids; /* valid until the next feed */
} mjt_ref_inventory;

typedef struct {
    uint8_t buf[MJT_REF_MAX_FRAME];
    uint16_t len;
    uint16_t consume; /* bytes of a frame returned by the last call, dropped on the next */
    uint32_t frames, bad_crc, dropped_bytes;
} mjt_ref_parser;

void mjt_ref_init(mjt_ref_parser *p);
/* Feed one byte; returns 1 and fills `out` when it completes a valid frame. */
int mjt_ref_byte(mjt_ref_parser *p, uint8_t byte, mjt_ref_inventory *out);

#endif
