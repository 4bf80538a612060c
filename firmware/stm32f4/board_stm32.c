/* The STM32F405 board layer: clocks, SysTick time, the panel's GPIO (scanned and debounced
 * every millisecond), status LEDs, the dice motor, displays, and board.h for app.c. */
#include "board_stm32.h"

#include <string.h>

#include "board.h"
#include "display.h"
#include "pins.h"
#include "regs.h"
#include "uart.h"

#define DEBOUNCE_MS 20u
#define BUTTON_QUEUE 32u

static volatile uint32_t ticks;
static uint32_t rng_state;
static uint8_t pll_locked;

/* Debounce: an input must read the same for DEBOUNCE_MS to change state. A press counts
 * only after the input was first seen released, so a panel wired wrong (or QEMU, whose
 * STM32F4 has no GPIO model and reads every pin as 0) does not press all 24 buttons. */
static uint8_t stable_pressed[BUTTON_INPUTS], armed[BUTTON_INPUTS], count[BUTTON_INPUTS];
static volatile uint8_t queue[BUTTON_QUEUE];
static volatile uint8_t q_head, q_tail;
static volatile uint32_t presses_dropped;

static struct {
    uint8_t mode;
} leds[LEDS];
static volatile uint32_t dice_off_at;

/* --- clocks ------------------------------------------------------------------------------- */

/* HSE 8 MHz → PLL 168 MHz; AHB 168, APB1 42, APB2 84. Every wait is bounded: a crystal that
 * does not start leaves the board on the 16 MHz HSI, reported on the console, not hung. */
static int wait_bit(volatile uint32_t *reg, uint32_t bit)
{
    for (uint32_t i = 0; i < 200000u; i++) {
        if (*reg & bit) {
            return 1;
        }
    }
    return 0;
}

static void clock_init(void)
{
    RCC_CR |= 1u << 16; /* HSEON */
    if (!wait_bit(&RCC_CR, 1u << 17)) {
        return;
    }
    FLASH_ACR = (1u << 9) | (1u << 10) | 5u; /* I/D caches, 5 wait states at 168 MHz */
    /* PLLM 8, PLLN 336, PLLP 2 (→ 168), PLLQ 7 (→ 48 for USB), source HSE */
    RCC_PLLCFGR = 8u | (336u << 6) | (0u << 16) | (1u << 22) | (7u << 24);
    RCC_CFGR = (5u << 10) | (4u << 13); /* APB1 /4, APB2 /2 */
    RCC_CR |= 1u << 24; /* PLLON */
    if (!wait_bit(&RCC_CR, 1u << 25)) {
        return;
    }
    RCC_CFGR |= 2u; /* SYSCLK = PLL */
    pll_locked = 1;
}

/* --- time ----------------------------------------------------------------------------- */

/* SysTick on the external reference, HCLK/8 = 21 MHz: QEMU's netduinoplus2 feeds SysTick's
 * reference clock the same 21 MHz, so one build keeps time on both. */
static void systick_init(void)
{
    SYST_RVR = 21000u - 1u;
    SYST_CVR = 0;
    SYST_CSR = (1u << 1) | (1u << 0); /* TICKINT, ENABLE, CLKSOURCE = reference */
}

uint32_t board_now_ms(void) { return ticks; }

/* --- GPIO ------------------------------------------------------------------------------ */

static int input_pressed(unsigned i)
{
    uint32_t port = i < 16 ? PORT_D : PORT_E;
    return !(GPIO_IDR(port) & (1u << (i % 16u))); /* active low */
}

static void gpio_init(void)
{
    RCC_AHB1ENR |= 0x1Fu; /* GPIOA..E */
    RCC_APB1ENR |= (1u << 17) | (1u << 18); /* USART2, USART3 */
    RCC_APB2ENR |= 1u << 4;                 /* USART1 */
    /* Buttons: inputs (MODER 00) with pull-ups (PUPDR 01). */
    GPIO_MODER(PORT_D) = 0;
    GPIO_PUPDR(PORT_D) = 0x55555555u;
    GPIO_MODER(PORT_E) &= ~0xFFFFu;
    GPIO_PUPDR(PORT_E) = (GPIO_PUPDR(PORT_E) & ~0xFFFFu) | 0x5555u;
    /* LEDs and the dice motor: outputs, off. */
    for (unsigned i = 0; i < LEDS; i++) {
        GPIO_MODER(LED_PORT) |= 1u << (2u * (LED_FIRST_PIN + i));
        GPIO_BSRR(LED_PORT) = 1u << (LED_FIRST_PIN + i + 16u);
    }
    GPIO_MODER(DICE_PORT) |= 1u << (2u * DICE_PIN);
    GPIO_BSRR(DICE_PORT) = 1u << (DICE_PIN + 16u);
    /* UART pins: alternate function 7. PA9/PA10 USART1, PA2/PA3 USART2, PB10/PB11 USART3. */
    GPIO_MODER(PORT_A) |= (2u << 18) | (2u << 20) | (2u << 4) | (2u << 6);
    GPIO_AFRH(PORT_A) |= (7u << 4) | (7u << 8);
    GPIO_AFRL(PORT_A) |= (7u << 8) | (7u << 12);
    GPIO_MODER(PORT_B) |= (2u << 20) | (2u << 22);
    GPIO_AFRH(PORT_B) |= (7u << 8) | (7u << 12);
}

static void scan_buttons(void)
{
    for (unsigned i = 0; i < BUTTON_INPUTS; i++) {
        uint8_t now = (uint8_t)input_pressed(i);
        if (now == stable_pressed[i]) {
            count[i] = 0;
            continue;
        }
        if (++count[i] < DEBOUNCE_MS) {
            continue;
        }
        count[i] = 0;
        stable_pressed[i] = now;
        if (!now) {
            armed[i] = 1;
        } else if (armed[i]) {
            uint8_t next = (uint8_t)((q_head + 1u) % BUTTON_QUEUE);
            if (next == q_tail) {
                presses_dropped++;
            } else {
                queue[q_head] = (uint8_t)i;
                q_head = next;
            }
        }
    }
}

int board_next_button(uint8_t *seat, uint8_t *button)
{
    if (q_tail == q_head) {
        return 0;
    }
    uint8_t i = queue[q_tail];
    q_tail = (uint8_t)((q_tail + 1u) % BUTTON_QUEUE);
    *seat = (uint8_t)(i / 6u);
    *button = (uint8_t)(i % 6u + 1u);
    return 1;
}

/* --- LEDs and dice ----------------------------------------------------------------------- */

static void led_refresh(uint32_t now)
{
    for (unsigned i = 0; i < LEDS; i++) {
        int on = leds[i].mode == 1 || (leds[i].mode == 2 && (now / 500u) % 2u) ||
                 (leds[i].mode == 3 && (now / 125u) % 2u);
        GPIO_BSRR(LED_PORT) = 1u << (LED_FIRST_PIN + i + (on ? 0u : 16u));
    }
    if (dice_off_at && (int32_t)(now - dice_off_at) >= 0) {
        dice_off_at = 0;
        GPIO_BSRR(DICE_PORT) = 1u << (DICE_PIN + 16u);
    }
}

void board_led(const mjt_led *led)
{
    if (led->led < LEDS) {
        leds[led->led].mode = led->mode;
    }
}

void board_dice(const uint8_t *values, uint8_t n)
{
    (void)values, (void)n; /* the dome shakes real dice; the values go to the host */
    GPIO_BSRR(DICE_PORT) = 1u << DICE_PIN;
    dice_off_at = (ticks + DICE_PULSE_MS) | 1u;
}

void systick_handler(void)
{
    uint32_t now = ++ticks;
    scan_buttons();
    led_refresh(now);
}

/* --- displays ---------------------------------------------------------------------------- */

void board_display_text(uint8_t target, const uint8_t *utf8, uint8_t len)
{
    uint8_t seg[8];
    const display_driver *d = target == 0 ? &max7219_driver : &tm1637_driver;
    display_render(utf8, len, seg, d->digits);
    d->show(target, seg, d->digits);
}

/* --- randomness ----------------------------------------------------------------------- */

/* The hardware RNG when it answers (not under QEMU), mixed with timer jitter, through
 * xorshift32. Good enough for a session id and the board's own dice; the service rolls the
 * dice that count from its own secrets (controller/table/dice.py). */
uint32_t board_random(void)
{
    if (RNG_SR & 1u) {
        rng_state ^= RNG_DR;
    }
    rng_state ^= SYST_CVR << 7;
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 17;
    rng_state ^= rng_state << 5;
    return rng_state;
}

/* --- outputs ------------------------------------------------------------------------- */

void board_link_write(const uint8_t *data, size_t len) { uart_write(&uart_link, data, len); }

void board_console_write(const char *text, size_t len)
{
    uart_write(&uart_console, (const uint8_t *)text, len);
}

uint32_t board_uart_dropped(void)
{
    return uart_link.rx_dropped + uart_rfid.rx_dropped + uart_console.rx_dropped;
}

void usart1_handler(void) { uart_isr(&uart_link); }
void usart2_handler(void) { uart_isr(&uart_rfid); }
void usart3_handler(void) { uart_isr(&uart_console); }

int board_init(void)
{
    clock_init();
    gpio_init();
    RCC_AHB2ENR |= 1u << 6; /* RNG */
    RNG_CR = 1u << 2;
    rng_state = 0x9E3779B9u;
    uart_init(&uart_link, USART1_BASE, IRQ_USART1, 84000000u, 115200u);
    uart_init(&uart_rfid, USART2_BASE, IRQ_USART2, 42000000u, 115200u);
    uart_init(&uart_console, USART3_BASE, IRQ_USART3, 42000000u, 115200u);
    for (uint8_t seat = 1; seat <= 4; seat++) {
        tm1637_driver.init(seat);
    }
    max7219_driver.init(0);
    systick_init();
    irq_enable();
    return pll_locked;
}
