/* The link benchmark on the Cortex-M4 itself, for QEMU with `-icount shift=0` (one
 * instruction per nanosecond of virtual time): the cases of host/bench_cases.c, timed with
 * SysTick on its 21 MHz reference clock, calibrated against a loop of known length. Prints
 * "KIND DIR INSTRUCTIONS_PER_FRAME WIRE_BYTES" lines on USART1, then "done".
 * Not part of the firmware: `make -C firmware arm-bench`. */
#include <stddef.h>
#include <stdint.h>

#include "bench_cases.h"
#include "regs.h"
#include "text.h"

void systick_handler(void);
void usart1_handler(void);
void usart2_handler(void);
void usart3_handler(void);
void systick_handler(void) {}
void usart1_handler(void) {}
void usart2_handler(void) {}
void usart3_handler(void) {}

static void out(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        while (!(USART_SR(USART1_BASE) & USART_SR_TXE)) {
        }
        USART_DR(USART1_BASE) = (uint8_t)s[i];
    }
}

static uint32_t now_ticks(void) { return SYST_CVR; }

static uint32_t elapsed(uint32_t start) { return (start - SYST_CVR) & 0xFFFFFFu; }

static void spin(uint32_t n)
{
    __asm volatile("1: subs %0, %0, #1\n bne 1b" : "+r"(n)); /* 2 instructions a turn */
}

int main(void)
{
    RCC_APB2ENR |= 1u << 4;
    USART_CR1(USART1_BASE) = USART_CR1_UE | USART_CR1_TE;
    SYST_RVR = 0xFFFFFFu;
    SYST_CVR = 0;
    SYST_CSR = 1u; /* enabled, reference clock, no interrupt */
    uint32_t t = now_ticks();
    spin(1000000u);
    uint32_t calib = elapsed(t); /* ticks for 2 000 000 instructions */
    static const char *const kinds[] = {"button", "text", "inventory", "max"};
    static uint8_t payload[1024];
    char line[80];
    for (int k = 0; k < 4; k++) {
        for (int rx = 1; rx >= 0; rx--) {
            uint8_t type;
            size_t len = bench_payload_for(kinds[k], payload, &type);
            bench_setup();
            enum { FRAMES = 100 };
            uint32_t ticks = 0;
            size_t wire = 0;
            for (int i = 0; i < FRAMES; i++) {
                size_t prepared = bench_prepare(rx, i, type, payload, len);
                size_t before = sink_bytes;
                t = now_ticks();
                bench_run(rx, i, type, payload, len, prepared);
                ticks += elapsed(t);
                wire = rx ? prepared : sink_bytes - before;
            }
            /* instructions per frame = ticks / FRAMES × 2e6 / calib */
            uint32_t per_frame = (uint32_t)((uint64_t)ticks * 2000000u / calib / FRAMES);
            size_t n = text_str(line, 0, kinds[k]);
            n = text_str(line, n, rx ? " rx " : " tx ");
            n = text_u32(line, n, per_frame);
            n = text_u32(line, text_str(line, n, " "), (uint32_t)wire);
            n = text_str(line, n, bench_ok() ? "\n" : " (link not idle)\n");
            out(line, n);
        }
    }
    out("done\n", 5);
    for (;;) {
    }
}
