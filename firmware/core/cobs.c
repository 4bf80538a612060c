#include "cobs.h"

size_t mjt_cobs_encode(const uint8_t *in, size_t len, uint8_t *out)
{
    size_t code_at = 0; /* where the current block's code byte goes */
    size_t o = 1;
    uint8_t code = 1;
    for (size_t i = 0; i < len; i++) {
        if (in[i] == 0) {
            out[code_at] = code;
            code_at = o++;
            code = 1;
            continue;
        }
        if (code == 0xFF) {
            /* A full block of 254 closes without an implied zero; a block is only
             * opened for bytes that follow, so 254 bytes encode to 255, not 256. */
            out[code_at] = code;
            code_at = o++;
            code = 1;
        }
        out[o++] = in[i];
        code++;
    }
    out[code_at] = code;
    return o;
}

int mjt_cobs_decode(const uint8_t *in, size_t len, uint8_t *out)
{
    size_t i = 0;
    size_t o = 0;
    while (i < len) {
        uint8_t code = in[i++];
        if (code == 0 || i + (size_t)(code - 1) > len) {
            return -1;
        }
        for (uint8_t k = 1; k < code; k++) {
            uint8_t b = in[i++];
            if (b == 0) {
                return -1;
            }
            out[o++] = b;
        }
        /* A block shorter than 255 ends in an implied zero, except at the very end. */
        if (code != 0xFF && i < len) {
            out[o++] = 0;
        }
    }
    return (int)o;
}
