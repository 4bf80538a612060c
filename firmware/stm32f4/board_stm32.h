/* What main.c needs of the STM32F405 board layer beyond board.h. */
#ifndef MJT_BOARD_STM32_H
#define MJT_BOARD_STM32_H

#include <stdint.h>

int board_init(void); /* 1 when the PLL locked (168 MHz); 0 under QEMU or a dead crystal */
int board_next_button(uint8_t *seat, uint8_t *button); /* a debounced press, if any */
void systick_handler(void);
void usart1_handler(void);
void usart2_handler(void);
void usart3_handler(void);

#endif
