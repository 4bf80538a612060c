#include "ref_frame.h"

#include <string.h>

#include "crc16.h"

void mjt_ref_init(mjt_ref_parser *p) { memset(p, 0, sizeof *p); }

static void shift(mjt_ref_parser *p, uint16_t n)
{
    memmove(p->buf, p->buf + n, (size_t)(p->len - n));
    p->len = (uint16_t)(p->len - n);
}

static void drop(mjt_ref_parser *p, uint16_t n)
{
    shift(p, n);
    p->dropped_bytes += n;
}

/* Whether count sized UIDs (n | UID(n), n 1..MJT_REF_MAX_UID) fill p[0..len) exactly. */
static int sized_fill(const uint8_t *p, uint16_t len, uint8_t count)
{
    uint16_t i = 0;
    for (uint8_t k = 0; k < count; k++) {
        if (i >= len || p[i] < 1 || p[i] > MJT_REF_MAX_UID || len - i - 1u < p[i]) {
            return 0;
        }
        i = (uint16_t)(i + 1u + p[i]);
    }
    return i == len;
}

/* 1: buf holds a complete valid frame at 0; 0: need more bytes; -1: bad candidate at 0. */
static int check(mjt_ref_parser *p)
{
    const uint8_t *b = p->buf;
    if (p->len >= 1 && b[0] != 0xAA) {
        return -1;
    }
    if (p->len >= 2 && b[1] != 0x55 && b[1] != 0x56) {
        return -1;
    }
    if (p->len < 7) {
        return 0;
    }
    uint16_t len = (uint16_t)((b[2] << 8) | b[3]);
    int sized = b[1] == 0x56;
    /* The length must match the count: rejects false syncs early. */
    if (b[6] > MJT_REF_MAX_TAGS ||
        (!sized && len != 3u + 8u * b[6]) ||
        (sized && (len < 3u + 2u * b[6] || len > 3u + (1u + MJT_REF_MAX_UID) * b[6]))) {
        return -1;
    }
    uint16_t total = (uint16_t)(4u + len + 2u);
    if (p->len < total) {
        return 0;
    }
    uint16_t crc = (uint16_t)((b[total - 2] << 8) | b[total - 1]);
    if (mjt_crc16(b + 2, 2u + len) != crc) {
        p->bad_crc++;
        return -1;
    }
    if (sized && !sized_fill(b + 7, (uint16_t)(len - 3u), b[6])) {
        return -1; /* sizes that do not fill len: no frame the reader sends */
    }
    return 1;
}

int mjt_ref_byte(mjt_ref_parser *p, uint8_t byte, mjt_ref_inventory *out)
{
    if (p->consume) { /* the frame returned last time */
        shift(p, p->consume);
        p->consume = 0;
    }
    p->buf[p->len++] = byte;
    for (;;) {
        int r = check(p);
        if (r == 0) {
            return 0;
        }
        if (r < 0) {
            /* Drop one byte, then up to the next candidate sync. */
            uint16_t n = 1;
            while (n < p->len && p->buf[n] != 0xAA) {
                n++;
            }
            drop(p, n);
            if (p->len == 0) {
                return 0;
            }
            continue;
        }
        uint16_t len = (uint16_t)((p->buf[2] << 8) | p->buf[3]);
        out->reader = p->buf[4];
        out->seq = p->buf[5];
        out->count = p->buf[6];
        out->sized = p->buf[1] == 0x56;
        out->size = (uint16_t)(len - 3u);
        out->uids = p->buf + 7;
        p->frames++;
        p->consume = (uint16_t)(4u + len + 2u);
        return 1;
    }
}
