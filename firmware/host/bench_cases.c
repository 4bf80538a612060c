/* The benchmark's cases, shared by the host driver (callgrind) and the ARM one (QEMU
 * -icount): one frame of each kind through the board's link, rx or tx. See bench_link.c. */
#include "bench_cases.h"

#include <string.h>

#include "link.h"

size_t sink_bytes;
static void sink(void *ctx, const uint8_t *d, size_t n)
{
    (void)ctx, (void)d;
    sink_bytes += n;
}

static void ignore(void *ctx, const mjt_msg *m, const uint8_t *p, size_t n)
{
    (void)ctx, (void)m, (void)p, (void)n;
}

static mjt_link board;
static uint8_t raw[MJT_MAX_RAW], wire[MJT_MAX_WIRE], ack_wire[16];

__attribute__((noinline)) void bench_rx_one(const uint8_t *w, size_t n, uint32_t now);
__attribute__((noinline)) void bench_tx_one(uint8_t type, const uint8_t *p, size_t n,
                                            const uint8_t *ack, size_t ack_n, uint32_t now);

void bench_rx_one(const uint8_t *w, size_t n, uint32_t now)
{
    mjt_link_receive(&board, w, n, now);
    mjt_link_poll(&board, now);
}

void bench_tx_one(uint8_t type, const uint8_t *p, size_t n, const uint8_t *ack, size_t ack_n,
                  uint32_t now)
{
    mjt_link_send(&board, type, p, n);
    mjt_link_poll(&board, now);
    mjt_link_receive(&board, ack, ack_n, now);
}

size_t bench_payload_for(const char *kind, uint8_t *p, uint8_t *type)
{
    if (!strcmp(kind, "button")) {
        *type = MJT_BUTTON;
        p[0] = 2, p[1] = 3;
        return 2;
    }
    if (!strcmp(kind, "text")) {
        *type = MJT_DISPLAY_TEXT;
        p[0] = 1, p[1] = 22;
        memcpy(p + 2, "E +1250  S -300  W +50", 22);
        return 24;
    }
    if (!strcmp(kind, "inventory")) {
        *type = MJT_INVENTORY;
        p[0] = 1, p[1] = 4, p[2] = 14;
        for (int i = 0; i < 14; i++) {
            static const uint8_t uid[8] = {0xe0, 0x04, 0x01, 0x50, 0x12, 0x34, 0x00, 0x00};
            memcpy(p + 3 + 8 * i, uid, 8);
            p[3 + 8 * i + 7] = (uint8_t)(i * 37 + 1);
        }
        return 3 + 14 * 8;
    }
    *type = 0x2F; /* reserved board report: acked and skipped, like any unknown type */
    for (int i = 0; i < 1024; i++) {
        p[i] = (uint8_t)(i * 7 + 1);
    }
    return 1024;
}


int bench_setup(void)
{
    mjt_link_config cfg = {.window = 8, .role = MJT_ROLE_TABLE_BOARD, .software = "bench",
                           .write = sink, .deliver = ignore};
    mjt_link_init(&board, &cfg, 0xB0A4D, 0);
    /* Up: a hello from the host that has heard the board. */
    static const char sw[] = "host";
    uint8_t hp[64];
    mjt_hello h = {0x4057, 0xB0A4D, 1, 1, 0, MJT_ROLE_HOST, 8, 1024, 4, (const uint8_t *)sw};
    mjt_frame hf = {1, MJT_HELLO, 0, 0, 0, hp, (uint16_t)mjt_hello_encode(&h, hp)};
    size_t hw = mjt_frame_encode(&hf, raw, wire, 1);
    mjt_link_receive(&board, wire, hw, 0);
    mjt_link_poll(&board, 0);
    return board.state == MJT_UP;
}

size_t bench_prepare(int rx, int i, uint8_t type, const uint8_t *payload, size_t len)
{
    if (rx) {
        mjt_frame f = {1, type, (uint8_t)i, 0, 0, payload, (uint16_t)len};
        return mjt_frame_encode(&f, raw, wire, 0);
    }
    mjt_frame a = {1, MJT_ACK, 0, (uint8_t)(i + 1), 0, NULL, 0};
    return mjt_frame_encode(&a, raw, ack_wire, 0);
}

void bench_run(int rx, int i, uint8_t type, const uint8_t *payload, size_t len, size_t prepared)
{
    uint32_t now = (uint32_t)i; /* a millisecond per frame: no timer fires */
    if (rx) {
        bench_rx_one(wire, prepared, now);
    } else {
        bench_tx_one(type, payload, len, ack_wire, prepared, now);
    }
}

int bench_ok(void) { return !board.counters.bad_ack && board.n_msgs == 0; }
