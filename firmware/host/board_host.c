/* The host board layer's outputs: the console is stdout; displays, LEDs and dice exist only
 * as the console lines app.c prints. */
#include <stdio.h>
#include <unistd.h>

#include "board.h"

void board_console_write(const char *text, size_t len)
{
    fwrite(text, 1, len, stdout);
    fflush(stdout);
}

void board_display_text(uint8_t target, const uint8_t *utf8, uint8_t len)
{
    (void)target, (void)utf8, (void)len;
}

void board_led(const mjt_led *led) { (void)led; }

void board_dice(const uint8_t *values, uint8_t count) { (void)values, (void)count; }

uint32_t board_uart_dropped(void) { return 0; }
