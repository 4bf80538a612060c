/* docs/protocol.md §6, byte for byte: each example's "raw" and "wire" bytes are read from
 * the document itself (so the C and the doc cannot drift apart) and compared with what the
 * firmware's encoders build from the example's values; then the wire bytes are decoded. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "counters.h"
#include "frame.h"
#include "msg.h"

#define MAX_EXAMPLES 16
#define MAX_BYTES 128

typedef struct {
    uint8_t raw[MAX_BYTES], wire[MAX_BYTES];
    size_t raw_len, wire_len;
} example;

static example ex[MAX_EXAMPLES];
static size_t n_ex;

static size_t hex_tokens(const char *s, uint8_t *out, size_t n)
{
    unsigned v;
    int used;
    while (sscanf(s, " %2x%n", &v, &used) == 1) {
        out[n++] = (uint8_t)v;
        s += used;
    }
    return n;
}

static int load_doc(void **state)
{
    (void)state;
    FILE *f = fopen(PROTOCOL_DOC, "r");
    assert_non_null(f);
    char line[512];
    uint8_t *into = NULL;
    size_t *len = NULL;
    while (fgets(line, sizeof line, f)) {
        if (!strncmp(line, "raw :", 5)) {
            assert_true(n_ex < MAX_EXAMPLES);
            into = ex[n_ex].raw, len = &ex[n_ex].raw_len;
            n_ex++;
            *len = hex_tokens(line + 5, into, 0);
        } else if (!strncmp(line, "wire:", 5) && n_ex) {
            into = ex[n_ex - 1].wire, len = &ex[n_ex - 1].wire_len;
            *len = hex_tokens(line + 5, into, 0);
        } else if (into && line[0] == ' ') {
            *len = hex_tokens(line, into, *len);
        } else {
            into = NULL;
        }
    }
    fclose(f);
    return n_ex == 9 ? 0 : -1; /* the nine examples of §6 */
}

static const uint8_t UID1[8] = {0xe0, 0x04, 0x01, 0x50, 0, 0, 0, 0x01};
static const uint8_t UID2[8] = {0xe0, 0x04, 0x01, 0x50, 0, 0, 0, 0x02};
static const uint8_t UID3[8] = {0xe0, 0x04, 0x01, 0x50, 0, 0, 0x01, 0x03};

static void check(size_t i, uint8_t type, uint8_t seq, uint8_t ack, uint8_t sack,
                  const uint8_t *payload, size_t len)
{
    static uint8_t raw[MJT_MAX_RAW], wire[MJT_MAX_WIRE];
    mjt_frame f = {MJT_VERSION, type, seq, ack, sack, payload, (uint16_t)len};
    size_t w = mjt_frame_encode(&f, raw, wire, type == MJT_HELLO);
    assert_int_equal(MJT_HEADER_LEN + len + MJT_CRC_LEN, ex[i].raw_len);
    assert_memory_equal(raw, ex[i].raw, ex[i].raw_len);
    assert_int_equal(w, ex[i].wire_len);
    assert_memory_equal(wire, ex[i].wire, w);

    /* And back: the decoder takes the wire a byte at a time and finds the same frame. */
    mjt_decoder d;
    mjt_counters c = {0};
    mjt_frame got;
    int found = 0;
    mjt_decoder_init(&d);
    for (size_t k = 0; k < w; k++) {
        if (mjt_decoder_byte(&d, wire[k], &c, &got)) {
            found++;
            assert_int_equal(got.type, type);
            assert_int_equal(got.seq, seq);
            assert_int_equal(got.ack, ack);
            assert_int_equal(got.sack, sack);
            assert_int_equal(got.len, len);
            if (len) {
                assert_memory_equal(got.payload, payload, len);
            }
        }
    }
    assert_int_equal(found, 1);
    assert_int_equal(c.resyncs, 0);
}

static void hello_check(size_t i, uint32_t session, uint32_t peer, uint8_t role, uint8_t window,
                        const char *sw)
{
    uint8_t p[MJT_MAX_PAYLOAD];
    mjt_hello h = {session, peer, 1, 1, MJT_HELLO_NEED_REPLY, role, window, 1024,
                   (uint8_t)strlen(sw), (const uint8_t *)sw};
    size_t n = mjt_hello_encode(&h, p);
    check(i, MJT_HELLO, 0, 0, 0, p, n);
    mjt_hello back;
    assert_int_equal(mjt_hello_decode(p, n, &back), 0);
    assert_int_equal(back.session, session);
    assert_int_equal(back.peer_session, peer);
    assert_int_equal(back.window, window);
    assert_memory_equal(back.software, sw, strlen(sw));
}

static void msg_check(size_t i, const mjt_msg *m, uint8_t seq, uint8_t ack, uint8_t sack)
{
    uint8_t p[MJT_MAX_PAYLOAD];
    size_t n = mjt_msg_encode(m, p);
    assert_true(n > 0);
    check(i, m->type, seq, ack, sack, p, n);
    mjt_msg back;
    assert_int_equal(mjt_msg_decode(m->type, p, n, &back), MJT_DECODE_OK);
    uint8_t again[MJT_MAX_PAYLOAD];
    assert_int_equal(mjt_msg_encode(&back, again), n);
    assert_memory_equal(again, p, n);
}

static void test_host_hello(void **state)
{
    (void)state;
    hello_check(0, 0x1a2b3c4d, 0, MJT_ROLE_HOST, 8, "mjtable");
}

static void test_board_hello(void **state)
{
    (void)state;
    hello_check(1, 0x00c0ffee, 0x1a2b3c4d, MJT_ROLE_TABLE_BOARD, 4, "tb-2.1");
}

static void test_button(void **state)
{
    (void)state;
    mjt_msg m = {.type = MJT_BUTTON, .u.button = {2, 3}};
    msg_check(2, &m, 5, 3, 0);
}

static void test_bare_ack(void **state)
{
    (void)state;
    check(3, MJT_ACK, 0, 6, 0x05, NULL, 0);
}

static void test_inventory(void **state)
{
    (void)state;
    uint8_t uids[24];
    memcpy(uids, UID1, 8), memcpy(uids + 8, UID2, 8), memcpy(uids + 16, UID3, 8);
    mjt_msg m = {.type = MJT_INVENTORY, .u.inventory = {1, 4, 3, uids}};
    msg_check(4, &m, 9, 0, 0);
}

static void test_status(void **state)
{
    (void)state;
    mjt_msg m = {.type = MJT_STATUS, .u.status = {.state = MJT_FAULT, .count = 1}};
    m.u.status.faults[0] = 0x0102;
    msg_check(5, &m, 10, 0, 0);
}

static void test_wall_order(void **state)
{
    (void)state;
    uint8_t uids[16];
    memcpy(uids, UID1, 8), memcpy(uids + 8, UID2, 8);
    mjt_msg m = {.type = MJT_WALL_ORDER, .u.wall_order = {0, 136, 2, uids}};
    msg_check(6, &m, 12, 0, 0);
}

static void test_heartbeat(void **state)
{
    (void)state;
    uint8_t p[4];
    check(7, MJT_HEARTBEAT, 11, 0, 0, p, mjt_heartbeat_encode(60000, p));
}

static void test_inventory_sized(void **state)
{
    (void)state;
    static const uint8_t uids[17] = {7, 0x04, 0xa1, 0xb2, 0xc3, 0xd4, 0xe5, 0xf6,
                                     8, 0xe0, 0x04, 0x01, 0x50, 0, 0, 0, 0x01};
    mjt_msg m = {.type = MJT_INVENTORY_SIZED, .u.inventory = {2, 0, 2, uids, sizeof uids}};
    msg_check(8, &m, 13, 0, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_host_hello), cmocka_unit_test(test_board_hello),
        cmocka_unit_test(test_button),     cmocka_unit_test(test_bare_ack),
        cmocka_unit_test(test_inventory),  cmocka_unit_test(test_status),
        cmocka_unit_test(test_wall_order), cmocka_unit_test(test_heartbeat),
        cmocka_unit_test(test_inventory_sized),
    };
    return cmocka_run_group_tests_name("protocol.md examples", tests, load_doc, NULL);
}
