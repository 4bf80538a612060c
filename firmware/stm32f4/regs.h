/* The STM32F405 registers this board layer uses (RM0090), by address: no vendor headers. */
#ifndef MJT_REGS_H
#define MJT_REGS_H

#include <stdint.h>

#define REG(addr) (*(volatile uint32_t *)(addr))

/* RCC */
#define RCC_BASE 0x40023800u
#define RCC_CR REG(RCC_BASE + 0x00)
#define RCC_PLLCFGR REG(RCC_BASE + 0x04)
#define RCC_CFGR REG(RCC_BASE + 0x08)
#define RCC_AHB1ENR REG(RCC_BASE + 0x30)
#define RCC_AHB2ENR REG(RCC_BASE + 0x34)
#define RCC_APB1ENR REG(RCC_BASE + 0x40)
#define RCC_APB2ENR REG(RCC_BASE + 0x44)
#define FLASH_ACR REG(0x40023C00u)

/* GPIO ports A..E, 0x400 apart */
#define GPIO_BASE(port) (0x40020000u + 0x400u * (uint32_t)(port))
#define GPIO_MODER(p) REG(GPIO_BASE(p) + 0x00)
#define GPIO_OTYPER(p) REG(GPIO_BASE(p) + 0x04)
#define GPIO_PUPDR(p) REG(GPIO_BASE(p) + 0x0C)
#define GPIO_IDR(p) REG(GPIO_BASE(p) + 0x10)
#define GPIO_BSRR(p) REG(GPIO_BASE(p) + 0x18)
#define GPIO_AFRL(p) REG(GPIO_BASE(p) + 0x20)
#define GPIO_AFRH(p) REG(GPIO_BASE(p) + 0x24)
enum { PORT_A, PORT_B, PORT_C, PORT_D, PORT_E };

/* USART (same layout for USART1..3) */
#define USART1_BASE 0x40011000u
#define USART2_BASE 0x40004400u
#define USART3_BASE 0x40004800u
#define USART_SR(b) REG((b) + 0x00)
#define USART_DR(b) REG((b) + 0x04)
#define USART_BRR(b) REG((b) + 0x08)
#define USART_CR1(b) REG((b) + 0x0C)
#define USART_SR_RXNE (1u << 5)
#define USART_SR_TXE (1u << 7)
#define USART_SR_ORE (1u << 3)
#define USART_CR1_UE (1u << 13)
#define USART_CR1_TXEIE (1u << 7)
#define USART_CR1_RXNEIE (1u << 5)
#define USART_CR1_TE (1u << 3)
#define USART_CR1_RE (1u << 2)
#define IRQ_USART1 37
#define IRQ_USART2 38
#define IRQ_USART3 39

/* Cortex-M4 core */
#define SYST_CSR REG(0xE000E010u)
#define SYST_RVR REG(0xE000E014u)
#define SYST_CVR REG(0xE000E018u)
#define NVIC_ISER(n) REG(0xE000E100u + 4u * (n))
#define SCB_AIRCR REG(0xE000ED0Cu)

/* The hardware RNG (not modelled by QEMU: reads as 0 there) */
#define RNG_CR REG(0x50060800u)
#define RNG_SR REG(0x50060804u)
#define RNG_DR REG(0x50060808u)

static inline void nvic_enable(unsigned irq) { NVIC_ISER(irq / 32u) = 1u << (irq % 32u); }
static inline void irq_disable(void) { __asm volatile("cpsid i" ::: "memory"); }
static inline void irq_enable(void) { __asm volatile("cpsie i" ::: "memory"); }
static inline void wait_for_interrupt(void) { __asm volatile("wfi"); }

#endif
