#include "text.h"

size_t text_str(char *buf, size_t at, const char *s)
{
    while (*s) {
        buf[at++] = *s++;
    }
    return at;
}

size_t text_u32(char *buf, size_t at, uint32_t v)
{
    char digits[10];
    size_t n = 0;
    do {
        digits[n++] = (char)('0' + v % 10u);
        v /= 10u;
    } while (v);
    while (n) {
        buf[at++] = digits[--n];
    }
    return at;
}

size_t text_hex(char *buf, size_t at, const uint8_t *bytes, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        buf[at++] = hex[bytes[i] >> 4];
        buf[at++] = hex[bytes[i] & 15u];
    }
    return at;
}
