/* Interrupt-driven USART with ring buffers: the RX interrupt fills `rx`, the main loop
 * drains it; writes fill `tx` and the TXE interrupt empties it. A full RX ring drops bytes
 * (counted: the link's CRC and retransmission repair that); a full TX ring makes the
 * writer wait, with interrupts on, for room. */
#ifndef MJT_UART_H
#define MJT_UART_H

#include <stddef.h>
#include <stdint.h>

#define UART_RX_SIZE 2048u /* 170 ms at 115 200 baud: the main loop never lags that much */
#define UART_TX_SIZE 2048u /* two largest frames */

typedef struct {
    uint32_t base;
    volatile uint16_t rx_head, rx_tail, tx_head, tx_tail;
    volatile uint32_t rx_dropped;
    uint8_t rx[UART_RX_SIZE];
    uint8_t tx[UART_TX_SIZE];
} uart;

extern uart uart_link, uart_rfid, uart_console;

/* `pclk_hz`: the bus clock (APB2 84 MHz for USART1, APB1 42 MHz for USART2/3). */
void uart_init(uart *u, uint32_t base, unsigned irq, uint32_t pclk_hz, uint32_t baud);
size_t uart_read(uart *u, uint8_t *out, size_t cap);
void uart_write(uart *u, const uint8_t *data, size_t len);
void uart_isr(uart *u);

#endif
