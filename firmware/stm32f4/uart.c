#include "uart.h"

#include "regs.h"

uart uart_link, uart_rfid, uart_console;

void uart_init(uart *u, uint32_t base, unsigned irq, uint32_t pclk_hz, uint32_t baud)
{
    u->base = base;
    u->rx_head = u->rx_tail = u->tx_head = u->tx_tail = 0;
    u->rx_dropped = 0;
    USART_BRR(base) = (pclk_hz + baud / 2u) / baud; /* oversampling by 16: mantissa.fraction */
    USART_CR1(base) = USART_CR1_UE | USART_CR1_TE | USART_CR1_RE | USART_CR1_RXNEIE;
    nvic_enable(irq);
}

void uart_isr(uart *u)
{
    uint32_t sr = USART_SR(u->base);
    if (sr & (USART_SR_RXNE | USART_SR_ORE)) {
        uint8_t byte = (uint8_t)USART_DR(u->base); /* reading DR also clears ORE */
        uint16_t next = (uint16_t)((u->rx_head + 1u) % UART_RX_SIZE);
        if (next == u->rx_tail) {
            u->rx_dropped++;
        } else {
            u->rx[u->rx_head] = byte;
            u->rx_head = next;
        }
    }
    if ((sr & USART_SR_TXE) && (USART_CR1(u->base) & USART_CR1_TXEIE)) {
        if (u->tx_tail == u->tx_head) {
            USART_CR1(u->base) &= ~USART_CR1_TXEIE;
        } else {
            USART_DR(u->base) = u->tx[u->tx_tail];
            u->tx_tail = (uint16_t)((u->tx_tail + 1u) % UART_TX_SIZE);
        }
    }
}

size_t uart_read(uart *u, uint8_t *out, size_t cap)
{
    size_t n = 0;
    while (n < cap && u->rx_tail != u->rx_head) {
        out[n++] = u->rx[u->rx_tail];
        u->rx_tail = (uint16_t)((u->rx_tail + 1u) % UART_RX_SIZE);
    }
    return n;
}

/* Move bytes from the ring into the data register while it is empty. On silicon that is
 * a byte or two and the TXE interrupt does the rest; QEMU's USART model sends each byte
 * at once and raises no TXE interrupt, so there this loop does all the sending. */
static void kick(uart *u)
{
    irq_disable();
    while (u->tx_tail != u->tx_head && (USART_SR(u->base) & USART_SR_TXE)) {
        USART_DR(u->base) = u->tx[u->tx_tail];
        u->tx_tail = (uint16_t)((u->tx_tail + 1u) % UART_TX_SIZE);
    }
    if (u->tx_tail != u->tx_head) {
        USART_CR1(u->base) |= USART_CR1_TXEIE;
    }
    irq_enable();
}

void uart_write(uart *u, const uint8_t *data, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        uint16_t next = (uint16_t)((u->tx_head + 1u) % UART_TX_SIZE);
        while (next == u->tx_tail) {
            kick(u);
        }
        u->tx[u->tx_head] = data[i];
        u->tx_head = next;
    }
    kick(u);
}
