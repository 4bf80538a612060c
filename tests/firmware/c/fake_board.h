/* A board layer for the C tests: a settable clock and RNG, outputs recorded in buffers. */
#ifndef FAKE_BOARD_H
#define FAKE_BOARD_H

#include <stddef.h>
#include <stdint.h>

extern uint32_t fake_now_ms;
extern uint32_t fake_random_next;
extern uint8_t fake_wire[65536]; /* what the board wrote to the host */
extern size_t fake_wire_len;
extern char fake_console[8192];
extern size_t fake_console_len;

void fake_board_reset(void);

#endif
