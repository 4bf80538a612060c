/* The panel/debug console: a line-based text channel on its own UART. On a real board it
 * is for bring-up; under QEMU, whose STM32F4 model has no GPIO, it is how a test presses
 * the panel's buttons and reads what the board displays.
 *
 * In (one command per line, decimal numbers):
 *   b SEAT BUTTON        a seat button, as if its GPIO line fired (seat 0..3, button 1..6)
 *   s STATE [FAULT ...]  the table's state inputs changed (STATUS to the host)
 *   c                    print the counters
 * Out (from app.c): "link up|connecting|failed", "text TARGET HEX", "led L MODE R G B",
 * "dice V ...", "counters ..."; "? LINE" for a line it did not understand. */
#ifndef MJT_PANEL_CONSOLE_H
#define MJT_PANEL_CONSOLE_H

#include <stddef.h>
#include <stdint.h>

void panel_console_feed(const uint8_t *data, size_t len);

#endif
