/* The STM32F405 table board: moves bytes between the UART rings and the application, feeds
 * it debounced button presses, polls the link, and sleeps until the next interrupt. */
#include <stdint.h>

#include "app.h"
#include "board.h"
#include "board_stm32.h"
#include "panel_console.h"
#include "regs.h"
#include "uart.h"

static void say(const char *s)
{
    size_t n = 0;
    while (s[n]) {
        n++;
    }
    board_console_write(s, n);
}

int main(void)
{
    int pll = board_init();
    say(pll ? "mjt-fw 0.1: 168 MHz\n" : "mjt-fw 0.1: PLL not locked (QEMU, or no crystal)\n");
    /* Let the timer run a moment so that its jitter reaches the session id. */
    uint32_t start = board_now_ms();
    while (board_now_ms() - start < 3u) {
        wait_for_interrupt();
    }
    uint32_t session = 0;
    while (!session) {
        session = board_random();
    }
    mjt_link *link = app_init(session, board_now_ms());
    uint8_t buf[256];
    for (;;) {
        size_t n;
        while ((n = uart_read(&uart_link, buf, sizeof buf)) > 0) {
            mjt_link_receive(link, buf, n, board_now_ms());
        }
        while ((n = uart_read(&uart_rfid, buf, sizeof buf)) > 0) {
            app_reader_bytes(buf, n, board_now_ms());
        }
        while ((n = uart_read(&uart_console, buf, sizeof buf)) > 0) {
            panel_console_feed(buf, n);
        }
        uint8_t seat, button;
        while (board_next_button(&seat, &button)) {
            app_button(seat, button);
        }
        uint32_t now = board_now_ms();
        app_poll(now);
        /* Sleep unless the link has work now; SysTick wakes us every millisecond. */
        irq_disable();
        if (uart_link.rx_head == uart_link.rx_tail && uart_rfid.rx_head == uart_rfid.rx_tail &&
            uart_console.rx_head == uart_console.rx_tail &&
            mjt_link_next_deadline(link, now) != now) {
            wait_for_interrupt();
        }
        irq_enable();
    }
}
