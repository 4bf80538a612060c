/* Reset, the vector table and fault handlers. No C library start-up: .data is copied and
 * .bss zeroed here, then main(). */
#include <stdint.h>

#include "regs.h"

extern uint32_t _sidata, _sdata, _edata, _sbss, _ebss, _estack;
extern int main(void);
void reset_handler(void);
void default_handler(void);
void systick_handler(void);
void usart1_handler(void);
void usart2_handler(void);
void usart3_handler(void);

void reset_handler(void)
{
    uint32_t *src = &_sidata;
    for (uint32_t *dst = &_sdata; dst < &_edata;) {
        *dst++ = *src++;
    }
    for (uint32_t *dst = &_sbss; dst < &_ebss;) {
        *dst++ = 0;
    }
    main();
    for (;;) {
    }
}

/* A fault resets the board (the link's hello handshake picks up from there): a board
 * that hangs would leave the table dead. The system reset request is AIRCR.SYSRESETREQ. */
void default_handler(void)
{
    SCB_AIRCR = (0x05FAu << 16) | (1u << 2);
    for (;;) {
    }
}

typedef void (*vector)(void);

#define IRQS 82
__attribute__((section(".isr_vector"), used)) static const vector vectors[16 + IRQS] = {
    [0] = (vector)(uintptr_t)&_estack,
    [1] = reset_handler,
    [2] = default_handler, /* NMI */
    [3] = default_handler, /* HardFault */
    [4] = default_handler, /* MemManage */
    [5] = default_handler, /* BusFault */
    [6] = default_handler, /* UsageFault */
    [11] = default_handler, /* SVCall */
    [14] = default_handler, /* PendSV */
    [15] = systick_handler,
    [16 + IRQ_USART1] = usart1_handler,
    [16 + IRQ_USART2] = usart2_handler,
    [16 + IRQ_USART3] = usart3_handler,
};
