/* CRC-16/CCITT-FALSE, COBS and the frame decoder's error paths. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "cobs.h"
#include "crc16.h"
#include "frame.h"

static void test_crc_check_value_and_table(void **state)
{
    (void)state;
    assert_int_equal(mjt_crc16((const uint8_t *)"123456789", 9), 0x29B1);
    for (unsigned i = 0; i < 256; i++) { /* each entry against the bitwise definition */
        uint16_t c = (uint16_t)(i << 8);
        for (int k = 0; k < 8; k++) {
            c = (uint16_t)((c & 0x8000u) ? ((unsigned)c << 1) ^ 0x1021u : (unsigned)c << 1);
        }
        assert_int_equal(mjt_crc16_table[i], c);
    }
    /* Incremental equals one-shot. */
    uint16_t a = mjt_crc16_update(MJT_CRC16_INIT, (const uint8_t *)"1234", 4);
    assert_int_equal(mjt_crc16_update(a, (const uint8_t *)"56789", 5), 0x29B1);
}

static void roundtrip(const uint8_t *in, size_t n)
{
    static uint8_t enc[MJT_COBS_MAX(2048)], dec[2048];
    size_t e = mjt_cobs_encode(in, n, enc);
    assert_true(e <= MJT_COBS_MAX(n));
    assert_null(memchr(enc, 0, e));
    assert_int_equal(mjt_cobs_decode(enc, e, dec), (int)n);
    assert_memory_equal(dec, in, n);
    assert_int_equal(mjt_cobs_decode(enc, e, enc), (int)n); /* in place */
    assert_memory_equal(enc, in, n);
}

static void test_cobs_roundtrips_and_edges(void **state)
{
    (void)state;
    static uint8_t buf[2048];
    static const uint8_t known_in[] = {0x11, 0x22, 0x00, 0x33};
    static const uint8_t known_out[] = {0x03, 0x11, 0x22, 0x02, 0x33};
    uint8_t out[8];
    assert_int_equal(mjt_cobs_encode(known_in, 4, out), 5);
    assert_memory_equal(out, known_out, 5);
    /* 254 non-zero bytes: one full block, no trailing code byte. */
    memset(buf, 1, 254);
    assert_int_equal(mjt_cobs_encode(buf, 254, buf + 300), 255);
    uint32_t x = 1;
    for (size_t n = 0; n < 1100; n += (n < 600 ? 1 : 37)) {
        for (size_t i = 0; i < n; i++) {
            x = x * 1664525u + 1013904223u;
            buf[i] = (x >> 24) % 3 == 0 ? 0 : (uint8_t)(x >> 16);
        }
        roundtrip(buf, n);
        memset(buf, 0x7F, n);
        roundtrip(buf, n);
    }
}

static void test_cobs_rejects_bad_blocks(void **state)
{
    (void)state;
    uint8_t out[16];
    static const uint8_t past_end[] = {0x05, 0x11, 0x22};
    static const uint8_t has_zero[] = {0x03, 0x11, 0x00};
    assert_int_equal(mjt_cobs_decode(past_end, 3, out), -1);
    assert_int_equal(mjt_cobs_decode(has_zero, 3, out), -1);
}

static size_t feed(mjt_decoder *d, mjt_counters *c, const uint8_t *b, size_t n)
{
    size_t frames = 0;
    mjt_frame f;
    for (size_t i = 0; i < n; i++) {
        frames += (size_t)mjt_decoder_byte(d, b[i], c, &f);
    }
    return frames;
}

static void test_decoder_counts_each_kind_of_damage(void **state)
{
    (void)state;
    static uint8_t raw[MJT_MAX_RAW], wire[MJT_MAX_WIRE + 8], junk[1500];
    uint8_t payload[4] = {1, 2, 3, 4};
    mjt_frame f = {1, 0x31, 0, 0, 0, payload, 4};
    size_t w = mjt_frame_encode(&f, raw, wire, 0);
    mjt_decoder d;
    mjt_counters c = {0};
    mjt_decoder_init(&d);

    assert_int_equal(feed(&d, &c, wire, w), 1);
    static const uint8_t idle[] = {0, 0, 0};
    assert_int_equal(feed(&d, &c, idle, 3), 0);
    assert_int_equal(c.resyncs, 0); /* idle fill is not an error */

    wire[3] ^= 0x40; /* bad CRC (or a broken COBS block) */
    assert_int_equal(feed(&d, &c, wire, w), 0);
    assert_int_equal(c.bad_crc + c.bad_cobs, 1);
    wire[3] ^= 0x40;

    static const uint8_t runt[] = {0x03, 0x01, 0x02, 0x00};
    feed(&d, &c, runt, sizeof runt);
    assert_int_equal(c.runts, 1);

    memset(junk, 0x55, sizeof junk); /* 1500 bytes without a delimiter */
    assert_int_equal(feed(&d, &c, junk, sizeof junk), 0);
    assert_int_equal(c.oversize, 1);
    assert_int_equal(feed(&d, &c, wire, w), 0); /* the rest of the segment is skipped... */
    assert_int_equal(feed(&d, &c, wire, w), 1); /* ...and the next frame is whole */

    f.version = 2;
    w = mjt_frame_encode(&f, raw, wire, 0);
    assert_int_equal(feed(&d, &c, wire, w), 0);
    assert_int_equal(c.bad_version, 1);
    assert_int_equal(c.resyncs, c.bad_crc + c.bad_cobs + c.runts + c.oversize + c.bad_version);
    assert_int_equal(c.frames, 2);
}

static void test_largest_frame_fits_exactly(void **state)
{
    (void)state;
    static uint8_t raw[MJT_MAX_RAW], wire[MJT_MAX_WIRE], payload[MJT_MAX_PAYLOAD];
    memset(payload, 0xAB, sizeof payload); /* no zeros: the longest encoding */
    mjt_frame f = {1, 0x23, 7, 0, 0, payload, MJT_MAX_PAYLOAD};
    size_t w = mjt_frame_encode(&f, raw, wire, 1);
    assert_true(w <= MJT_MAX_WIRE);
    mjt_decoder d;
    mjt_counters c = {0};
    mjt_decoder_init(&d);
    assert_int_equal(feed(&d, &c, wire, w), 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_crc_check_value_and_table),
        cmocka_unit_test(test_cobs_roundtrips_and_edges),
        cmocka_unit_test(test_cobs_rejects_bad_blocks),
        cmocka_unit_test(test_decoder_counts_each_kind_of_damage),
        cmocka_unit_test(test_largest_frame_fits_exactly),
    };
    return cmocka_run_group_tests_name("crc16, cobs, frames", tests, NULL, NULL);
}
