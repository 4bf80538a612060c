/* Console lines without stdio: newlib's printf family pulls in malloc, and this firmware
 * has no heap. Each helper appends at `at` and returns the new end; the caller sizes `buf`. */
#ifndef MJT_TEXT_H
#define MJT_TEXT_H

#include <stddef.h>
#include <stdint.h>

size_t text_str(char *buf, size_t at, const char *s);
size_t text_u32(char *buf, size_t at, uint32_t v);
size_t text_hex(char *buf, size_t at, const uint8_t *bytes, size_t n);

#endif
