/* CRC-16/CCITT-FALSE: poly 0x1021, init 0xFFFF, not reflected, no final XOR.
 * Check value: crc16("123456789") == 0x29B1. Used by the frame (docs/protocol.md §2) and
 * by the reference RFID reader frame (docs/rfid.md). */
#ifndef MJT_CRC16_H
#define MJT_CRC16_H

#include <stddef.h>
#include <stdint.h>

#define MJT_CRC16_INIT 0xFFFFu

extern const uint16_t mjt_crc16_table[256];

/* Continue a CRC over more bytes: crc16_update(MJT_CRC16_INIT, ...) starts one. */
uint16_t mjt_crc16_update(uint16_t crc, const uint8_t *data, size_t len);

static inline uint16_t mjt_crc16(const uint8_t *data, size_t len)
{
    return mjt_crc16_update(MJT_CRC16_INIT, data, len);
}

#endif
