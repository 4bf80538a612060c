/* What the portable application (app.c) needs from a board layer. Each target implements
 * these: firmware/stm32f4/ (the STM32F405), firmware/host/ (a PC, for tests). */
#ifndef MJT_BOARD_H
#define MJT_BOARD_H

#include <stddef.h>
#include <stdint.h>

#include "msg.h"

uint32_t board_now_ms(void);   /* a millisecond clock; wraps after 49 days */
uint32_t board_random(void);   /* for the session id and the board's own dice */
void board_link_write(const uint8_t *data, size_t len); /* the host UART; may block */
void board_console_write(const char *text, size_t len); /* the panel/debug console */
/* Outputs: the seat score displays (target 1..4) and centre display (0), the status
 * LEDs, the dice display. */
void board_display_text(uint8_t target, const uint8_t *utf8, uint8_t len);
void board_led(const mjt_led *led);
void board_dice(const uint8_t *values, uint8_t count);
/* Bytes the UARTs' receive rings had no room for (an interrupt that outran the main loop):
 * on the console's counters line as uart_rx_dropped. */
uint32_t board_uart_dropped(void);

#endif
