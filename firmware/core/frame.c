#include "frame.h"

#include <string.h>

#include "crc16.h"

size_t mjt_frame_encode(const mjt_frame *f, uint8_t *raw, uint8_t *wire, int lead_zero)
{
    raw[0] = f->version;
    raw[1] = f->type;
    raw[2] = f->seq;
    raw[3] = f->ack;
    raw[4] = f->sack;
    if (f->len) {
        memcpy(raw + MJT_HEADER_LEN, f->payload, f->len);
    }
    size_t n = MJT_HEADER_LEN + f->len;
    uint16_t crc = mjt_crc16(raw, n);
    raw[n++] = (uint8_t)(crc >> 8);
    raw[n++] = (uint8_t)crc;
    size_t w = 0;
    if (lead_zero) {
        wire[w++] = 0;
    }
    w += mjt_cobs_encode(raw, n, wire + w);
    wire[w++] = 0;
    return w;
}

void mjt_decoder_init(mjt_decoder *d)
{
    d->len = 0;
    d->skipping = 0;
}

static int drop(mjt_decoder *d, mjt_counters *c, uint32_t *reason)
{
    (*reason)++;
    c->resyncs++;
    d->len = 0;
    return 0;
}

int mjt_decoder_byte(mjt_decoder *d, uint8_t byte, mjt_counters *c, mjt_frame *out)
{
    if (byte != 0) {
        if (d->skipping) {
            return 0;
        }
        if (d->len == sizeof d->buf) {
            d->skipping = 1;
            return drop(d, c, &c->oversize);
        }
        d->buf[d->len++] = byte;
        return 0;
    }
    if (d->skipping) { /* the delimiter ending an oversize segment: aligned again */
        d->skipping = 0;
        return 0;
    }
    if (d->len == 0) { /* idle fill */
        return 0;
    }
    int n = mjt_cobs_decode(d->buf, d->len, d->buf);
    if (n < 0) {
        return drop(d, c, &c->bad_cobs);
    }
    if ((size_t)n > MJT_MAX_RAW) {
        return drop(d, c, &c->oversize);
    }
    if ((size_t)n < MJT_MIN_RAW) {
        return drop(d, c, &c->runts);
    }
    size_t body = (size_t)n - MJT_CRC_LEN;
    uint16_t crc = (uint16_t)((d->buf[body] << 8) | d->buf[body + 1]);
    if (mjt_crc16(d->buf, body) != crc) {
        return drop(d, c, &c->bad_crc);
    }
    if (d->buf[0] != MJT_VERSION) {
        return drop(d, c, &c->bad_version);
    }
    c->frames++;
    out->version = d->buf[0];
    out->type = d->buf[1];
    out->seq = d->buf[2];
    out->ack = d->buf[3];
    out->sack = d->buf[4];
    out->payload = d->buf + MJT_HEADER_LEN;
    out->len = (uint16_t)(body - MJT_HEADER_LEN);
    d->len = 0;
    return 1;
}
