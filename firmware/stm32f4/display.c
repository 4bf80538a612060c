#include "display.h"

#include "pins.h"
#include "regs.h"

static const uint8_t digit_segments[10] = {0x3F, 0x06, 0x5B, 0x4F, 0x66,
                                           0x6D, 0x7D, 0x07, 0x7F, 0x6F};

void display_render(const uint8_t *text, uint8_t len, uint8_t *segments, uint8_t digits)
{
    uint8_t n = 0;
    for (uint8_t i = 0; i < digits; i++) {
        segments[i] = 0;
    }
    /* From the right: the last `digits` showable characters. */
    for (int i = (int)len - 1; i >= 0 && n < digits; i--) {
        uint8_t c = text[i];
        if (c >= '0' && c <= '9') {
            segments[digits - 1 - n++] = digit_segments[c - '0'];
        } else if (c == '-') {
            segments[digits - 1 - n++] = 0x40;
        }
    }
}

static void pin(uint32_t port, unsigned p, int high)
{
    GPIO_BSRR(port) = high ? 1u << p : 1u << (p + 16u);
}

static void settle(void)
{
    for (volatile int i = 0; i < 40; i++) { /* ~1 µs at 168 MHz: both chips are slow */
    }
}

/* --- TM1637: start, bytes LSB first with an ack clock, stop ----------------------------- */

static unsigned tm_clk(uint8_t unit) { return 2u * (unit - 1u); }
static unsigned tm_dio(uint8_t unit) { return 2u * (unit - 1u) + 1u; }

static void tm_start(uint8_t u)
{
    pin(TM1637_PORT, tm_dio(u), 0);
    settle();
    pin(TM1637_PORT, tm_clk(u), 0);
}

static void tm_stop(uint8_t u)
{
    pin(TM1637_PORT, tm_dio(u), 0);
    settle();
    pin(TM1637_PORT, tm_clk(u), 1);
    settle();
    pin(TM1637_PORT, tm_dio(u), 1);
}

static void tm_byte(uint8_t u, uint8_t b)
{
    for (int i = 0; i < 8; i++, b >>= 1) {
        pin(TM1637_PORT, tm_dio(u), b & 1u);
        settle();
        pin(TM1637_PORT, tm_clk(u), 1);
        settle();
        pin(TM1637_PORT, tm_clk(u), 0);
    }
    pin(TM1637_PORT, tm_dio(u), 1); /* release DIO for the ack, clock it past */
    settle();
    pin(TM1637_PORT, tm_clk(u), 1);
    settle();
    pin(TM1637_PORT, tm_clk(u), 0);
}

static void tm_init(uint8_t u)
{
    /* Open drain outputs (the module has pull-ups), idle high. */
    uint32_t mask = (1u << tm_clk(u)) | (1u << tm_dio(u));
    GPIO_OTYPER(TM1637_PORT) |= mask;
    GPIO_MODER(TM1637_PORT) |= (1u << (2u * tm_clk(u))) | (1u << (2u * tm_dio(u)));
    pin(TM1637_PORT, tm_clk(u), 1);
    pin(TM1637_PORT, tm_dio(u), 1);
}

static void tm_show(uint8_t u, const uint8_t *seg, uint8_t digits)
{
    tm_start(u);
    tm_byte(u, 0x40); /* data command: write, auto-increment */
    tm_stop(u);
    tm_start(u);
    tm_byte(u, 0xC0); /* address 0 */
    for (uint8_t i = 0; i < digits; i++) {
        tm_byte(u, seg[i]);
    }
    tm_stop(u);
    tm_start(u);
    tm_byte(u, 0x8C); /* display on, brightness 4/7 */
    tm_stop(u);
}

const display_driver tm1637_driver = {tm_init, tm_show, 4};

/* --- MAX7219: 16-bit words (register, data), MSB first, latched by CS ------------------- */

static void max_word(uint8_t reg, uint8_t data)
{
    uint16_t w = (uint16_t)((reg << 8) | data);
    pin(MAX7219_PORT, MAX7219_CS, 0);
    for (int i = 15; i >= 0; i--) {
        pin(MAX7219_PORT, MAX7219_DIN, (w >> i) & 1u);
        pin(MAX7219_PORT, MAX7219_CLK, 1);
        settle();
        pin(MAX7219_PORT, MAX7219_CLK, 0);
    }
    pin(MAX7219_PORT, MAX7219_CS, 1);
}

static void max_init(uint8_t unit)
{
    (void)unit;
    GPIO_MODER(MAX7219_PORT) |= (1u << (2u * MAX7219_CS)) | (1u << (2u * MAX7219_CLK)) |
                                (1u << (2u * MAX7219_DIN));
    pin(MAX7219_PORT, MAX7219_CS, 1);
    max_word(0x0F, 0); /* display test off */
    max_word(0x09, 0); /* no BCD decode: raw segments */
    max_word(0x0B, 7); /* scan all 8 digits */
    max_word(0x0A, 4); /* intensity */
    max_word(0x0C, 1); /* leave shutdown */
}

static void max_show(uint8_t unit, const uint8_t *seg, uint8_t digits)
{
    (void)unit;
    for (uint8_t i = 0; i < digits; i++) {
        /* The MAX7219 orders segments DP A B C D E F G (bit 7 .. 0): remap from a..g. */
        uint8_t s = seg[i], out = 0;
        for (int b = 0; b < 7; b++) {
            if (s & (1u << b)) {
                out |= (uint8_t)(1u << (6 - b));
            }
        }
        max_word((uint8_t)(digits - i), out); /* digit 1 is the rightmost */
    }
}

const display_driver max7219_driver = {max_init, max_show, 8};
