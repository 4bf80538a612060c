/* libFuzzer over everything a stranger can send the board: the host line (the link and the
 * application behind it), the reader line and the panel console. The input is split into
 * chunks, each routed with a time step, so the link's timers, hellos and retransmissions
 * run between the bytes. A chunk is raw line bytes, or a frame body (type, seq, ack, sack,
 * payload) that gets a good CRC and COBS here: random bytes alone almost never pass the
 * CRC, and the link logic behind it is what most needs the fuzzing. An odd first byte starts
 * with the link up (a host's hello heard), so that the application's sends are reached; a
 * reader chunk may be wrapped into a well-made reader frame, of 8-byte UIDs or sized ones. ASan/UBSan catch memory and
 * arithmetic faults; the checks below catch a link that stops answering or a queue whose
 * bytes no longer add up. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "crc16.h"
#include "fake_board.h"
#include "link.h"
#include "panel_console.h"
#include "ref_frame.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A reader frame with a good CRC around `uids` (the reader id folded onto a few readers, so
 * that newer sets supersede queued ones). */
static void reader_frame(uint8_t reader, const uint8_t *uids, size_t n)
{
    static uint8_t frame[MJT_REF_MAX_FRAME];
    uint8_t count = (uint8_t)(n / 8u > MJT_REF_MAX_TAGS ? MJT_REF_MAX_TAGS : n / 8u);
    uint16_t len = (uint16_t)(3u + 8u * count);
    uint8_t head[7] = {0xAA, 0x55, (uint8_t)(len >> 8), (uint8_t)len, reader % 5u, 0, count};
    memcpy(frame, head, sizeof head);
    memcpy(frame + sizeof head, uids, 8u * count);
    uint16_t crc = mjt_crc16(frame + 2, 2u + len);
    frame[sizeof head + 8u * count] = (uint8_t)(crc >> 8);
    frame[sizeof head + 8u * count + 1u] = (uint8_t)crc;
    app_reader_bytes(frame, sizeof head + 8u * count + 2u, fake_now_ms);
}

/* A sized reader frame (AA 56) around `data`: each UID's size is a byte of it folded onto
 * 1..32 (the card sizes the link carries and the ones it leaves out), its bytes follow. */
static void reader_sized_frame(uint8_t reader, const uint8_t *data, size_t n)
{
    static uint8_t frame[MJT_REF_MAX_FRAME];
    size_t o = 7, j = 0;
    uint8_t count = 0;
    while (j < n && count < MJT_REF_MAX_TAGS) {
        uint8_t size = (uint8_t)(1u + data[j++] % MJT_REF_MAX_UID);
        if (size > n - j) {
            break;
        }
        frame[o++] = size;
        memcpy(frame + o, data + j, size);
        o += size, j += size, count++;
    }
    uint16_t len = (uint16_t)(o - 4u);
    uint8_t head[7] = {0xAA, 0x56, (uint8_t)(len >> 8), (uint8_t)len, reader % 5u, 0, count};
    memcpy(frame, head, sizeof head);
    uint16_t crc = mjt_crc16(frame + 2, 2u + len);
    frame[o++] = (uint8_t)(crc >> 8);
    frame[o++] = (uint8_t)crc;
    app_reader_bytes(frame, o, fake_now_ms);
}

/* The queued messages' sizes (a 3-byte head each, then the payload) add up to the ring's. */
static uint32_t ring_bytes(const mjt_link *l)
{
    uint32_t off = l->ring_head, total = 0;
    for (uint32_t i = 0; i < l->n_msgs; i++) {
        uint32_t len = (uint32_t)(l->ring[(off + 1u) % MJT_TX_RING] << 8) |
                       l->ring[(off + 2u) % MJT_TX_RING];
        total += 3u + len;
        off = (off + 3u + len) % MJT_TX_RING;
    }
    return total;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fake_board_reset();
    mjt_link *link = app_init(0x5EED, 0);
    size_t i = 0;
    if (size && (data[i++] & 1u)) { /* start with the link up: a host's hello heard */
        static uint8_t raw[MJT_MAX_RAW], wire[MJT_MAX_WIRE];
        uint8_t hp[64];
        mjt_hello h = {0x4057, 0x5EED, 1, 1, 0, MJT_ROLE_HOST, 8, 1024, 0, NULL};
        mjt_frame f = {MJT_VERSION, MJT_HELLO, 0, 0, 0, hp, (uint16_t)mjt_hello_encode(&h, hp)};
        mjt_link_receive(link, wire, mjt_frame_encode(&f, raw, wire, 1), fake_now_ms);
        app_poll(fake_now_ms);
    }
    while (i < size) {
        uint8_t ctl = data[i++];
        size_t n = (size_t)(ctl & 0x3Fu) + 1u;
        if ((ctl >> 6) == 1 && i < size) { /* frames may be long: a second length byte */
            n += (size_t)data[i++] * 4u;
        }
        if (n > size - i) {
            n = size - i;
        }
        switch (ctl >> 6) {
        case 0:
            mjt_link_receive(link, data + i, n, fake_now_ms);
            break;
        case 1:
            if (n >= 4 && n - 4 <= MJT_MAX_PAYLOAD) { /* encode only what a frame can hold */
                static uint8_t raw[MJT_MAX_RAW], wire[MJT_MAX_WIRE];
                const uint8_t *b = data + i;
                mjt_frame f = {MJT_VERSION, b[0], b[1], b[2], b[3], b + 4, (uint16_t)(n - 4)};
                size_t w = mjt_frame_encode(&f, raw, wire, 0);
                mjt_link_receive(link, wire, w, fake_now_ms);
            }
            break;
        case 2:
            if (n >= 2 && (data[i] & 3u) == 1u) { /* a well-made reader frame: the inventory path */
                reader_frame(data[i + 1], data + i + 2, n - 2);
            } else if (n >= 2 && (data[i] & 3u) == 3u) { /* a sized one: member cards */
                reader_sized_frame(data[i + 1], data + i + 2, n - 2);
            } else {
                app_reader_bytes(data + i, n, fake_now_ms);
            }
            break;
        default:
            panel_console_feed(data + i, n);
        }
        i += n;
        fake_now_ms += (uint32_t)(ctl & 0x0Fu) * 37u;
        app_poll(fake_now_ms);
        fake_wire_len = 0;
        /* Invariants a garbled peer must never break. */
        if (link->n_inflight > MJT_WINDOW || link->ring_used > MJT_TX_RING ||
            link->decoder.len > sizeof link->decoder.buf || link->rto_ms < MJT_RTO_MIN_MS ||
            link->rto_ms > MJT_RTO_MAX_MS || link->n_unsent > link->n_msgs ||
            ring_bytes(link) != link->ring_used) {
            abort();
        }
        /* The board keeps talking: something is due within the longest backoff. */
        uint32_t wait = mjt_link_next_deadline(link, fake_now_ms) - fake_now_ms;
        if (wait > MJT_RTO_MAX_MS + MJT_HEARTBEAT_MS) {
            abort();
        }
    }
    return 0;
}
