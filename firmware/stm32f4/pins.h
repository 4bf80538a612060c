/* The pin map (docs/firmware.md has it as a table, with the wiring). */
#ifndef MJT_PINS_H
#define MJT_PINS_H

/* Seat buttons, active low with internal pull-ups, through opto-isolators:
 * seat s, button b (1 win .. 6 confirm/dice) is input (s * 6 + b - 1) of 24:
 * inputs 0..15 are PD0..PD15, inputs 16..23 are PE0..PE7. */
#define BUTTON_INPUTS 24

/* Status LEDs 0..3: PC6..PC9, active high (through a transistor for anything > 10 mA). */
#define LED_PORT PORT_C
#define LED_FIRST_PIN 6
#define LEDS 4

/* Dice dome motor (through a MOSFET or relay): PE8, active high. */
#define DICE_PORT PORT_E
#define DICE_PIN 8
#define DICE_PULSE_MS 1200u

/* Seat score displays (TM1637, 2-wire): seat n (1..4) CLK = PB(2n-2), DIO = PB(2n-1),
 * open drain with external pull-ups. */
#define TM1637_PORT PORT_B

/* Centre display (MAX7219, 8 digits), bit-banged SPI: CS PA4, CLK PA5, DIN PA7. */
#define MAX7219_PORT PORT_A
#define MAX7219_CS 4
#define MAX7219_CLK 5
#define MAX7219_DIN 7

/* UARTs: USART1 host link (PA9 TX, PA10 RX), USART2 RFID reader (PA2 TX, PA3 RX),
 * USART3 panel/debug console (PB10 TX, PB11 RX); all AF7. */

#endif
