/* The link in memory (two C ends, explicit time) and the board application behind it:
 * handshake, in-order delivery, the board's answers to host commands, the panel console,
 * reader frames forwarded as inventories, a newer inventory superseding one not yet sent. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "app.h"
#include "crc16.h"
#include "fake_board.h"
#include "link.h"
#include "panel_console.h"

/* The host end: a C link whose output is collected and whose deliveries are recorded. */
static mjt_link host;
static uint8_t host_out[65536];
static size_t host_out_len;
static mjt_msg got[64];
static uint8_t got_text[64][MJT_MAX_PAYLOAD];
static size_t n_got;

static void host_write(void *ctx, const uint8_t *d, size_t n)
{
    (void)ctx;
    assert_true(host_out_len + n <= sizeof host_out);
    memcpy(host_out + host_out_len, d, n);
    host_out_len += n;
}

static void host_deliver(void *ctx, const mjt_msg *m, const uint8_t *p, size_t n)
{
    (void)ctx;
    assert_true(n_got < 64 && n <= MJT_MAX_PAYLOAD);
    got[n_got] = *m;
    memcpy(got_text[n_got], p, n);
    n_got++;
}

static mjt_link *board;

/* What the board transmits while the host has not answered yet: its frames are in flight. */
static uint8_t held[65536];
static size_t held_len;

/* Run both ends for `ms` milliseconds of fake time, 1 ms steps, lossless. */
static void run(uint32_t ms)
{
    for (uint32_t i = 0; i < ms; i++) {
        fake_now_ms++;
        app_poll(fake_now_ms);
        mjt_link_poll(&host, fake_now_ms);
        if (host_out_len) {
            mjt_link_receive(board, host_out, host_out_len, fake_now_ms);
            host_out_len = 0;
        }
        if (fake_wire_len) {
            mjt_link_receive(&host, fake_wire, fake_wire_len, fake_now_ms);
            fake_wire_len = 0;
        }
    }
}

static int setup(void **state)
{
    (void)state;
    fake_board_reset();
    host_out_len = n_got = held_len = 0;
    board = app_init(0xB0A4D, 0);
    mjt_link_config cfg = {.window = 8, .role = MJT_ROLE_HOST, .software = "test host",
                           .write = host_write, .deliver = host_deliver};
    mjt_link_init(&host, &cfg, 0x4057, 0);
    run(50);
    return 0;
}

static void test_handshake_then_status(void **state)
{
    (void)state;
    assert_int_equal(board->state, MJT_UP);
    assert_int_equal(host.state, MJT_UP);
    assert_int_equal(board->peer_session, 0x4057);
    assert_int_equal(n_got, 1); /* the board's status, sent as the link came up */
    assert_int_equal(got[0].type, MJT_STATUS);
    assert_int_equal(got[0].u.status.state, MJT_IDLE);
    assert_non_null(strstr(fake_console, "link up\n"));
    /* A handful of hellos, no storm. */
    assert_true(board->counters.hellos_tx <= 3 && host.counters.hellos_tx <= 3);
}

static void test_dice_roll_answered_and_shown(void **state)
{
    (void)state;
    mjt_msg roll = {.type = MJT_DICE_ROLL, .u.dice.count = 2};
    assert_int_equal(mjt_link_send_msg(&host, &roll), 0);
    run(20);
    assert_int_equal(got[n_got - 1].type, MJT_DICE_RESULT);
    const mjt_dice *d = &got[n_got - 1].u.dice;
    assert_int_equal(d->count, 2);
    char line[32];
    snprintf(line, sizeof line, "dice %u %u\n", d->values[0], d->values[1]);
    assert_non_null(strstr(fake_console, line));
}

static void test_display_text_and_led_reach_the_console(void **state)
{
    (void)state;
    const char *text = "東 25000"; /* UTF-8 */
    mjt_msg m = {.type = MJT_DISPLAY_TEXT};
    m.u.display_text = (mjt_display_text){2, (uint8_t)strlen(text), (const uint8_t *)text};
    assert_int_equal(mjt_link_send_msg(&host, &m), 0);
    mjt_msg led = {.type = MJT_LED, .u.led = {3, 2, 255, 0, 10}};
    assert_int_equal(mjt_link_send_msg(&host, &led), 0);
    run(20);
    assert_non_null(strstr(fake_console, "text 2 e69db1203235303030\n"));
    assert_non_null(strstr(fake_console, "led 3 2 255 0 10\n"));
    /* Bad UTF-8 is malformed: acked, counted, not shown. */
    static const uint8_t bad[] = {0, 2, 0xC0, 0x80};
    assert_int_equal(mjt_link_send(&host, MJT_DISPLAY_TEXT, bad, sizeof bad), 0);
    run(20);
    assert_int_equal(board->counters.bad_payload, 1);
    assert_int_equal(host.n_msgs, 0);
}

static void test_panel_buttons_and_state(void **state)
{
    (void)state;
    const char *cmds = "b 2 3\ns 3\ns 4 258 7\nb 9 1\nzzz\nc\n";
    panel_console_feed((const uint8_t *)cmds, strlen(cmds));
    run(20);
    assert_int_equal(n_got, 4);
    assert_int_equal(got[1].type, MJT_BUTTON);
    assert_int_equal(got[1].u.button.seat, 2);
    assert_int_equal(got[1].u.button.button, 3);
    assert_int_equal(got[2].u.status.state, MJT_WALLS_UP);
    assert_int_equal(got[3].u.status.state, MJT_FAULT);
    assert_int_equal(got[3].u.status.count, 2);
    assert_int_equal(got[3].u.status.faults[0], 258);
    assert_non_null(strstr(fake_console, "? b 9 1\n"));
    assert_non_null(strstr(fake_console, "? zzz\n"));
    assert_non_null(strstr(fake_console, "counters "));
}

static size_t ref_frame(uint8_t *out, uint8_t reader, uint8_t seq, uint8_t count)
{
    uint16_t len = (uint16_t)(3u + 8u * count);
    size_t n = 0;
    out[n++] = 0xAA, out[n++] = 0x55;
    out[n++] = (uint8_t)(len >> 8), out[n++] = (uint8_t)len;
    out[n++] = reader, out[n++] = seq, out[n++] = count;
    for (uint8_t i = 0; i < count; i++) {
        static const uint8_t uid[7] = {0xe0, 0x04, 0x01, 0x50, 0, 0, 0};
        memcpy(out + n, uid, 7);
        out[n + 7] = (uint8_t)(i + 1);
        n += 8;
    }
    uint16_t crc = mjt_crc16(out + 2, 2u + len);
    out[n++] = (uint8_t)(crc >> 8), out[n++] = (uint8_t)crc;
    return n;
}

static void test_reader_frames_become_inventories(void **state)
{
    (void)state;
    uint8_t buf[4096];
    size_t n = 0;
    buf[n++] = 0xAA; /* a false sync, then junk */
    buf[n++] = 0x13;
    n += ref_frame(buf + n, 7, 3, 1);
    n += ref_frame(buf + n, 7, 4, 1); /* the same set again: not forwarded yet */
    n += ref_frame(buf + n, 5, 1, 0); /* an empty zone is a report too */
    size_t bad_at = n;
    n += ref_frame(buf + n, 6, 1, 2);
    buf[bad_at + 8] ^= 1; /* a damaged frame: dropped */
    app_reader_bytes(buf, n, fake_now_ms);
    run(20);
    assert_int_equal(n_got, 3);
    assert_int_equal(got[1].type, MJT_INVENTORY);
    assert_int_equal(got[1].u.inventory.reader, 7);
    assert_int_equal(got[1].u.inventory.count, 1);
    assert_int_equal(got[2].u.inventory.reader, 5);
    assert_int_equal(got[2].u.inventory.count, 0);
    assert_int_equal(app_counters()->reader_bad_crc, 1);
    /* Unchanged sets are refreshed once a second. */
    run(MJT_APP_REFRESH_MS);
    n = ref_frame(buf, 7, 5, 1);
    app_reader_bytes(buf, n, fake_now_ms);
    run(20);
    assert_int_equal(n_got, 4);
}


/* A sized reference frame (AA 56) of UIDs of the given sizes, UID k filled with k + 1. */
static size_t sized_frame(uint8_t *out, uint8_t reader, uint8_t count, const uint8_t *sizes)
{
    size_t n = 7;
    for (uint8_t k = 0; k < count; k++) {
        out[n++] = sizes[k];
        memset(out + n, k + 1, sizes[k]);
        n += sizes[k];
    }
    uint16_t len = (uint16_t)(n - 4u);
    const uint8_t head[7] = {0xAA, 0x56, (uint8_t)(len >> 8), (uint8_t)len, reader, 0, count};
    memcpy(out, head, sizeof head);
    uint16_t crc = mjt_crc16(out + 2, 2u + len);
    out[n++] = (uint8_t)(crc >> 8), out[n++] = (uint8_t)crc;
    return n;
}

/* Feeds a sized frame (into `buf`) to the board: the host gets one message of `type`. */
static const mjt_inventory *sized_set(uint8_t *buf, uint8_t reader, uint8_t count,
                                      const uint8_t *sizes, uint8_t type)
{
    size_t before = n_got;
    app_reader_bytes(buf, sized_frame(buf, reader, count, sizes), fake_now_ms);
    run(20);
    assert_int_equal(n_got, before + 1);
    assert_int_equal(got[before].type, type);
    return &got[before].u.inventory;
}

static void test_member_cards_of_every_size_reach_the_host(void **state)
{
    (void)state;
    static const uint8_t sizes[5] = {7, 8, 4, 10, 8};
    uint8_t buf[256];
    const mjt_inventory *v = sized_set(buf, 2, 5, sizes, MJT_INVENTORY_SIZED);
    assert_int_equal(v->reader, 2);
    assert_int_equal(v->count, 5);
    assert_int_equal(v->size, 5 + 7 + 8 + 4 + 10 + 8);
    assert_memory_equal(got_text[1] + 3, buf + 7, v->size); /* as the reader sent them */
}

static void test_a_sized_frame_of_8_byte_uids_goes_as_a_plain_inventory(void **state)
{
    (void)state;
    static const uint8_t sizes[2] = {8, 8};
    uint8_t buf[64];
    assert_int_equal(sized_set(buf, 3, 2, sizes, MJT_INVENTORY)->count, 2);
    assert_memory_equal(got_text[1] + 3, buf + 8, 8); /* UID 1, its size byte gone */
    assert_memory_equal(got_text[1] + 11, buf + 17, 8);
}

static void test_a_uid_of_no_card_size_is_left_out_and_the_reader_goes_on(void **state)
{
    (void)state;
    static const uint8_t sizes[4] = {12, 7, 1, 32};
    uint8_t buf[256];
    assert_int_equal(sized_set(buf, 4, 4, sizes, MJT_INVENTORY_SIZED)->count, 1); /* 7 bytes */
    assert_int_equal(got_text[1][3], 7);
    assert_int_equal(got_text[1][4], 2);
    assert_int_equal(app_counters()->uids_refused, 3);
    /* Sizes that do not fill the frame (good CRC): no frame; the next one still counts. */
    size_t n = sized_frame(buf, 4, 1, sizes + 1);
    buf[7] = 6;
    uint16_t crc = mjt_crc16(buf + 2, (size_t)(n - 4));
    buf[n - 2] = (uint8_t)(crc >> 8), buf[n - 1] = (uint8_t)crc;
    n += ref_frame(buf + n, 4, 1, 1);
    app_reader_bytes(buf, n, fake_now_ms);
    run(20);
    assert_int_equal(n_got, 3);
    assert_int_equal(got[2].type, MJT_INVENTORY);
    assert_int_equal(app_counters()->reader_frames, 2);
}

static void test_a_set_in_either_form_supersedes_the_other(void **state)
{
    (void)state;
    static const uint8_t sizes[1] = {7};
    uint8_t buf[256];
    for (int r = 1; r <= MJT_WINDOW; r++) { /* fill the window: what follows waits */
        size_t n = ref_frame(buf, (uint8_t)(10 + r), 0, 1);
        app_reader_bytes(buf, n, fake_now_ms);
    }
    size_t n = ref_frame(buf, 9, 0, 2);
    app_reader_bytes(buf, n, fake_now_ms);
    n = sized_frame(buf, 9, 1, sizes); /* the card came, the tiles went */
    app_reader_bytes(buf, n, fake_now_ms);
    n = ref_frame(buf, 9, 1, 1);
    app_reader_bytes(buf, n, fake_now_ms);
    assert_int_equal(app_counters()->inventories_replaced, 2);
    run(200);
    assert_int_equal(got[n_got - 1].type, MJT_INVENTORY);
    assert_int_equal(got[n_got - 1].u.inventory.reader, 9);
    assert_int_equal(got[n_got - 1].u.inventory.count, 1);
    assert_int_equal(got[n_got - 2].u.inventory.reader, 10 + MJT_WINDOW);
}

static void board_sends_unheard(void)
{
    fake_now_ms++;
    app_poll(fake_now_ms);
    assert_true(held_len + fake_wire_len <= sizeof held);
    memcpy(held + held_len, fake_wire, fake_wire_len);
    held_len += fake_wire_len;
    fake_wire_len = 0;
}

static void host_hears_it_all(void)
{
    mjt_link_receive(&host, held, held_len, fake_now_ms);
    held_len = 0;
    run(100);
}

static void test_a_newer_inventory_supersedes_one_not_yet_sent(void **state)
{
    (void)state;
    uint8_t buf[4096];
    size_t n = 0, base = n_got;
    /* Eight readers' sets fill the link's window and wait for the host's acks. */
    for (uint8_t r = 1; r <= MJT_WINDOW; r++) {
        n += ref_frame(buf + n, r, 0, 1);
    }
    app_reader_bytes(buf, n, fake_now_ms);
    board_sends_unheard();
    assert_int_equal(board->n_inflight, MJT_WINDOW);
    /* A burst: reader 7 (whose last set is in flight) five times, reader 3 twice in
     * between, reader 12 once. */
    n = 0;
    for (uint8_t k = 2; k <= 6; k++) {
        n += ref_frame(buf + n, 7, k, k);
        if (k <= 3) {
            n += ref_frame(buf + n, 3, k, k);
        }
    }
    n += ref_frame(buf + n, 12, 0, 4);
    app_reader_bytes(buf, n, fake_now_ms);
    board_sends_unheard();
    assert_int_equal(board->n_inflight, MJT_WINDOW);
    assert_int_equal(board->n_unsent, 3); /* one per reader: 3, 7, 12 */
    assert_int_equal(app_counters()->inventories_replaced, 4 + 1);
    host_hears_it_all();
    assert_int_equal(n_got, base + MJT_WINDOW + 3);
    for (uint8_t r = 1; r <= MJT_WINDOW; r++) { /* the one in flight was not touched */
        assert_int_equal(got[base + r - 1].u.inventory.reader, r);
        assert_int_equal(got[base + r - 1].u.inventory.count, 1);
    }
    /* Then each reader's newest, in the order the board last heard them. */
    static const uint8_t order[3][2] = {{3, 3}, {7, 6}, {12, 4}};
    for (size_t i = 0; i < 3; i++) {
        const mjt_inventory *inv = &got[base + MJT_WINDOW + i].u.inventory;
        assert_int_equal(inv->reader, order[i][0]);
        assert_int_equal(inv->count, order[i][1]);
        assert_int_equal(got_text[base + MJT_WINDOW + i][3 + 8 * inv->count - 1], inv->count);
    }
    assert_int_equal(board->n_msgs, 0);
}

static void test_a_full_queue_is_counted_and_the_next_frame_retries(void **state)
{
    (void)state;
    static uint8_t buf[8192];
    size_t n = 0, base = n_got;
    /* Four of the largest inventories fill a 4 KB queue; the fifth finds no room. */
    for (uint8_t r = 1; r <= 5; r++) {
        n += ref_frame(buf + n, r, 0, (uint8_t)MJT_MAX_UIDS);
    }
    app_reader_bytes(buf, n, fake_now_ms);
    assert_int_equal(app_counters()->inventories_queue_full, 1); /* MJT_TX_RING 4096 */
    host_hears_it_all();
    /* The same set again, at once: it was never queued, so it goes now. */
    n = ref_frame(buf, 5, 1, (uint8_t)MJT_MAX_UIDS);
    app_reader_bytes(buf, n, fake_now_ms);
    run(100);
    assert_int_equal(n_got, base + 5);
    assert_int_equal(got[base + 4].u.inventory.reader, 5);
    assert_int_equal(got[base + 4].u.inventory.count, MJT_MAX_UIDS);
}

/* mjt_link_drop_unsent against a model, through the ring's wrap-around: random messages
 * (inventories and buttons, keys 0..3) queued, dropped by key and delivered in random
 * steps; the host must get exactly what was queued and not dropped, in order. */
static struct {
    uint8_t type, key, id;
} expected[20000];
static size_t n_expected, n_checked;

static void check_deliveries(void)
{
    for (size_t i = 0; i < n_got; i++, n_checked++) {
        assert_true(n_checked < n_expected);
        assert_int_equal(got[i].type, expected[n_checked].type);
        assert_int_equal(got_text[i][0], expected[n_checked].key);
        if (got[i].type == MJT_INVENTORY) {
            assert_int_equal(got[i].u.inventory.zone, expected[n_checked].id);
        }
    }
    n_got = 0;
}

static void test_drop_unsent_against_a_model(void **state)
{
    (void)state;
    n_got = n_expected = n_checked = 0; /* past the status */
    uint32_t x = 7;
    uint8_t payload[3 + 8 * 60] = {0};
    uint8_t id = 0;
    int dropped = 0;
    for (int step = 0; step < 20000; step++) {
        x = x * 1664525u + 1013904223u;
        uint32_t r = x >> 8;
        uint8_t key = (uint8_t)(r % 4u);
        if (r % 10u < 5u) {
            uint8_t type = (r / 10u) % 3u ? MJT_INVENTORY : MJT_BUTTON;
            size_t len = 2;
            payload[0] = key;
            payload[1] = type == MJT_INVENTORY ? ++id : 1; /* the zone byte carries an id */
            if (type == MJT_INVENTORY) {
                payload[2] = (uint8_t)((r / 40u) % 61u);
                len = 3u + 8u * payload[2];
            }
            if (mjt_link_send(board, type, payload, len) == 0) {
                assert_true(n_expected < sizeof expected / sizeof expected[0]);
                expected[n_expected].type = type;
                expected[n_expected].key = key;
                expected[n_expected++].id = payload[1];
            }
        } else if (r % 10u < 8u) {
            /* Not yet transmitted: the last n_unsent of what is queued. */
            size_t kept = n_expected - board->n_unsent;
            int model = 0;
            for (size_t i = kept; i < n_expected; i++) {
                if (expected[i].type == MJT_INVENTORY && expected[i].key == key) {
                    model++;
                } else {
                    expected[kept++] = expected[i];
                }
            }
            n_expected = kept;
            assert_int_equal(mjt_link_drop_unsent(board, MJT_INVENTORY, key), model);
            dropped += model;
        } else {
            run((r / 10u) % 4u);
        }
        check_deliveries();
        assert_true(board->ring_used <= MJT_TX_RING);
    }
    for (int i = 0; i < 200; i++) {
        run(10);
        check_deliveries();
    }
    assert_int_equal(n_checked, n_expected);
    assert_true(dropped > 1000 && n_expected > 1000); /* both sides of it were exercised */
}

static void test_garbage_from_the_host_never_stops_the_board(void **state)
{
    (void)state;
    static uint8_t junk[20000];
    uint32_t x = 99;
    for (size_t i = 0; i < sizeof junk; i++) {
        x = x * 1664525u + 1013904223u;
        junk[i] = (uint8_t)(x >> 24);
    }
    mjt_link_receive(board, junk, sizeof junk, fake_now_ms);
    run(100);
    panel_console_feed((const uint8_t *)"b 1 1\n", 6);
    run(1000);
    assert_int_equal(board->state, MJT_UP);
    assert_int_equal(got[n_got - 1].type, MJT_BUTTON);
    assert_true(board->counters.resyncs > 0);
}


/* Feed the board one frame built here (any header), then let it answer. */
static void feed_frame(uint8_t type, uint8_t seq, uint8_t ack, uint8_t sack, const uint8_t *p,
                       size_t n)
{
    static uint8_t raw[MJT_MAX_RAW], wire[MJT_MAX_WIRE];
    mjt_frame f = {MJT_VERSION, type, seq, ack, sack, p, (uint16_t)n};
    size_t w = mjt_frame_encode(&f, raw, wire, type == MJT_HELLO);
    mjt_link_receive(board, wire, w, fake_now_ms);
    fake_now_ms++;
    app_poll(fake_now_ms);
}

static void test_link_counts_what_it_refuses(void **state)
{
    (void)state;
    fake_board_reset();
    board = app_init(0xB0A4D, 0);
    static const uint8_t button[] = {1, 2};
    /* Before any hello: data is dropped, not delivered. */
    feed_frame(MJT_BUTTON, 0, 0, 0, button, 2);
    assert_int_equal(board->counters.no_session, 1);
    /* A hello whose versions do not overlap ours is ignored. */
    uint8_t hp[64];
    mjt_hello h = {0x77, 0, 2, 3, MJT_HELLO_NEED_REPLY, MJT_ROLE_HOST, 8, 1024, 0, NULL};
    feed_frame(MJT_HELLO, 0, 0, 0, hp, mjt_hello_encode(&h, hp));
    assert_int_equal(board->counters.version_mismatch, 1);
    assert_int_equal(board->peer_session, 0);
    /* A good hello that has heard us: up at once, and the status goes out as seq 0. */
    h = (mjt_hello){0x77, 0xB0A4D, 1, 1, 0, MJT_ROLE_HOST, 8, 1024, 0, NULL};
    feed_frame(MJT_HELLO, 0, 0, 0, hp, mjt_hello_encode(&h, hp));
    assert_int_equal(board->state, MJT_UP);
    assert_int_equal(board->n_inflight, 1);
    /* An ack for frames never sent. */
    feed_frame(MJT_ACK, 0, 5, 0, NULL, 0);
    assert_int_equal(board->counters.bad_ack, 1);
    assert_int_equal(board->n_inflight, 1);
    /* Beyond the window: dropped; an unknown type and a malformed payload: acked, skipped,
     * and the frame after them delivered. */
    feed_frame(MJT_BUTTON, 40, 0, 0, button, 2);
    assert_int_equal(board->counters.out_of_window, 1);
    static const uint8_t bad_button[] = {9, 9};
    feed_frame(0x2E, 0, 0, 0, button, 2);
    feed_frame(MJT_BUTTON, 1, 0, 0, bad_button, 2);
    uint8_t beat[4];
    feed_frame(MJT_HEARTBEAT, 2, 1, 0, beat, mjt_heartbeat_encode(1234, beat));
    static const uint8_t roll[] = {2};
    feed_frame(MJT_DICE_ROLL, 3, 1, 0, roll, 1);
    assert_int_equal(board->counters.unknown_type, 1);
    assert_int_equal(board->counters.bad_payload, 1);
    assert_int_equal(board->counters.heartbeats_rx, 1);
    assert_int_equal(board->counters.messages_delivered, 1); /* the dice roll */
    assert_int_equal(board->rcv_nxt, 4);
    assert_non_null(strstr(fake_console, "dice "));
    /* A duplicate of a delivered frame: counted, acked again, not delivered twice. */
    feed_frame(MJT_DICE_ROLL, 3, 1, 0, roll, 1);
    assert_int_equal(board->counters.duplicates, 1);
    assert_int_equal(board->counters.messages_delivered, 1);
}

static void test_host_silent_link_fails_then_recovers_on_hello(void **state)
{
    (void)state;
    fake_board_reset();
    board = app_init(0xB0A4D, 0);
    uint8_t hp[64];
    mjt_hello h = {0x77, 0xB0A4D, 1, 1, 0, MJT_ROLE_HOST, 8, 1024, 0, NULL};
    feed_frame(MJT_HELLO, 0, 0, 0, hp, mjt_hello_encode(&h, hp));
    assert_int_equal(board->state, MJT_UP);
    /* Nobody acks the status: 8 rounds of backoff (250 ms doubling to 2 s), then FAILED. */
    for (uint32_t t = 0; t < 20000 && board->state == MJT_UP; t++) {
        fake_now_ms++;
        app_poll(fake_now_ms);
    }
    assert_int_equal(board->state, MJT_FAILED);
    assert_int_equal(board->counters.timeouts, 9);
    assert_int_equal(board->counters.failures, 1);
    assert_int_equal(board->n_msgs, 1); /* kept */
    uint32_t hellos = board->counters.hellos_tx;
    for (uint32_t t = 0; t < 10000; t++) {
        fake_now_ms++;
        app_poll(fake_now_ms);
    }
    assert_true(board->counters.hellos_tx - hellos >= 5); /* still calling, backed off */
    assert_true(board->counters.hellos_tx - hellos <= 8);
    size_t before = board->counters.retransmits;
    feed_frame(MJT_HELLO, 0, 0, 0, hp, mjt_hello_encode(&h, hp));
    assert_int_equal(board->state, MJT_UP);
    assert_int_equal(board->counters.retransmits, before + 1); /* resent at once */
    assert_int_equal(board->n_msgs, 2); /* and the status again: the link came up */
    feed_frame(MJT_ACK, 0, 2, 0, NULL, 0);
    assert_int_equal(board->n_msgs, 0);
}

/* The retransmission timer from the config (mjt-host --rto-*): the floor holds a fast
 * round trip's RTO, the backoff stops at the ceiling, FAILED comes after nine timeouts, and
 * the hellos that follow back off to the ceiling too. */
static void test_rto_floor_and_ceiling_from_the_config(void **state)
{
    (void)state;
    mjt_link_config cfg = {.window = 8, .role = MJT_ROLE_HOST, .software = "t",
                           .write = host_write, .deliver = host_deliver, .rto_min_ms = 5,
                           .rto_initial_ms = 20, .rto_max_ms = 50};
    mjt_link_init(&host, &cfg, 0x4057, 0);
    assert_int_equal(host.rto_ms, 20);
    uint8_t hp[64], raw[MJT_MAX_RAW], wire[MJT_MAX_WIRE];
    mjt_hello h = {0x77, 0x4057, 1, 1, 0, MJT_ROLE_TABLE_BOARD, 8, 1024, 0, NULL};
    mjt_frame f = {MJT_VERSION, MJT_HELLO, 0, 0, 0, hp, (uint16_t)mjt_hello_encode(&h, hp)};
    mjt_link_receive(&host, wire, mjt_frame_encode(&f, raw, wire, 1), 0);
    assert_int_equal(host.state, MJT_UP);
    static const uint8_t roll[] = {2};
    assert_int_equal(mjt_link_send(&host, MJT_DICE_ROLL, roll, 1), 0);
    mjt_link_poll(&host, 0);
    f = (mjt_frame){MJT_VERSION, MJT_ACK, 0, 1, 0, NULL, 0};
    mjt_link_receive(&host, wire, mjt_frame_encode(&f, raw, wire, 0), 1);
    assert_int_equal(host.rto_ms, 5); /* 1 ms + 4 x 0.5 ms = 3 ms, held at the floor */
    /* The next one is never acked: 5, 10, 20, 40, then 50 ms five times, then FAILED. */
    assert_int_equal(mjt_link_send(&host, MJT_DICE_ROLL, roll, 1), 0);
    uint32_t t = 1;
    for (; t < 5000 && host.state == MJT_UP; t++) {
        mjt_link_poll(&host, t);
    }
    assert_int_equal(t - 1, 1 + 5 + 10 + 20 + 40 + 50 * 5);
    assert_int_equal(host.counters.timeouts, 9);
    assert_int_equal(host.rto_ms, 50);
    uint32_t hellos = host.counters.hellos_tx;
    for (uint32_t end = t + 1000; t < end; t++) {
        mjt_link_poll(&host, t);
    }
    /* At once, +20, +40, then every 50 ms. */
    assert_int_equal(host.counters.hellos_tx - hellos, 3 + (1000 - 60) / 50);
    host_out_len = 0;
}

static void test_rto_config_out_of_order_falls_back(void **state)
{
    (void)state;
    mjt_link_config cfg = {.window = 8, .role = MJT_ROLE_HOST, .software = "t",
                           .write = host_write, .rto_min_ms = 30, .rto_max_ms = 20};
    mjt_link_init(&host, &cfg, 1, 0);
    assert_int_equal(host.cfg.rto_min_ms, MJT_RTO_MIN_MS);
    assert_int_equal(host.cfg.rto_max_ms, MJT_RTO_MAX_MS);
    assert_int_equal(host.rto_ms, MJT_RTO_INITIAL_MS);
    cfg = (mjt_link_config){.window = 8, .software = "t", .write = host_write,
                            .rto_max_ms = 100}; /* the initial 250 ms is clamped into it */
    mjt_link_init(&host, &cfg, 1, 0);
    assert_int_equal(host.rto_ms, 100);
    assert_int_equal(host.cfg.rto_min_ms, MJT_RTO_MIN_MS);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_handshake_then_status, setup),
        cmocka_unit_test_setup(test_dice_roll_answered_and_shown, setup),
        cmocka_unit_test_setup(test_display_text_and_led_reach_the_console, setup),
        cmocka_unit_test_setup(test_panel_buttons_and_state, setup),
        cmocka_unit_test_setup(test_reader_frames_become_inventories, setup),
        cmocka_unit_test_setup(test_member_cards_of_every_size_reach_the_host, setup),
        cmocka_unit_test_setup(test_a_sized_frame_of_8_byte_uids_goes_as_a_plain_inventory, setup),
        cmocka_unit_test_setup(test_a_uid_of_no_card_size_is_left_out_and_the_reader_goes_on, setup),
        cmocka_unit_test_setup(test_a_set_in_either_form_supersedes_the_other, setup),
        cmocka_unit_test_setup(test_a_newer_inventory_supersedes_one_not_yet_sent, setup),
        cmocka_unit_test_setup(test_a_full_queue_is_counted_and_the_next_frame_retries, setup),
        cmocka_unit_test_setup(test_drop_unsent_against_a_model, setup),
        cmocka_unit_test_setup(test_garbage_from_the_host_never_stops_the_board, setup),
        cmocka_unit_test(test_link_counts_what_it_refuses),
        cmocka_unit_test(test_host_silent_link_fails_then_recovers_on_hello),
        cmocka_unit_test(test_rto_floor_and_ceiling_from_the_config),
        cmocka_unit_test(test_rto_config_out_of_order_falls_back),
    };
    return cmocka_run_group_tests_name("link and board application", tests, NULL, NULL);
}
