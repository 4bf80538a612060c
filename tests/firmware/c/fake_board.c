#include "fake_board.h"

#include <string.h>

#include "board.h"

uint32_t fake_now_ms;
uint32_t fake_random_next = 12345;
uint8_t fake_wire[65536];
size_t fake_wire_len;
char fake_console[8192];
size_t fake_console_len;

void fake_board_reset(void)
{
    fake_now_ms = 0;
    fake_random_next = 12345;
    fake_wire_len = 0;
    fake_console_len = 0;
    fake_console[0] = 0;
}

uint32_t board_now_ms(void) { return fake_now_ms; }

uint32_t board_random(void)
{
    fake_random_next = fake_random_next * 1103515245u + 12345u;
    return fake_random_next >> 8;
}

void board_link_write(const uint8_t *data, size_t len)
{
    if (fake_wire_len + len <= sizeof fake_wire) {
        memcpy(fake_wire + fake_wire_len, data, len);
        fake_wire_len += len;
    }
}

void board_console_write(const char *text, size_t len)
{
    if (fake_console_len + len < sizeof fake_console) {
        memcpy(fake_console + fake_console_len, text, len);
        fake_console_len += len;
        fake_console[fake_console_len] = 0;
    }
}

void board_display_text(uint8_t target, const uint8_t *utf8, uint8_t len)
{
    (void)target, (void)utf8, (void)len;
}

void board_led(const mjt_led *led) { (void)led; }

void board_dice(const uint8_t *values, uint8_t count) { (void)values, (void)count; }

uint32_t board_uart_dropped(void) { return 0; }
