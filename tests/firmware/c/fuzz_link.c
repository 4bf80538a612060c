/* libFuzzer over everything a stranger can send the board: the host line (the link and the
 * application behind it), the reader line and the panel console. The input is split into
 * chunks, each routed with a time step, so the link's timers, hellos and retransmissions
 * run between the bytes. A chunk is raw line bytes, or a frame body (type, seq, ack, sack,
 * payload) that gets a good CRC and COBS here: random bytes alone almost never pass the
 * CRC, and the link logic behind it is what most needs the fuzzing. ASan/UBSan catch memory and arithmetic
 * faults; the checks below catch a link that stops answering. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "app.h"
#include "fake_board.h"
#include "link.h"
#include "panel_console.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fake_board_reset();
    mjt_link *link = app_init(0x5EED, 0);
    size_t i = 0;
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
            app_reader_bytes(data + i, n, fake_now_ms);
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
            link->rto_ms > MJT_RTO_MAX_MS) {
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
