/* Display drivers behind one small interface: a seat's score on a 4-digit TM1637, the
 * centre's text on an 8-digit MAX7219. Seven segments show digits, '-' and a blank; any
 * other character (UTF-8 included) is skipped, so "东 +1250" shows as "+1250" → " 1250". */
#ifndef MJT_DISPLAY_H
#define MJT_DISPLAY_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    void (*init)(uint8_t unit);
    void (*show)(uint8_t unit, const uint8_t *segments, uint8_t digits);
    uint8_t digits;
} display_driver;

extern const display_driver tm1637_driver, max7219_driver;

/* Render `text` right-aligned into `digits` segment bytes (bit 0 = a .. bit 6 = g). */
void display_render(const uint8_t *text, uint8_t len, uint8_t *segments, uint8_t digits);

#endif
