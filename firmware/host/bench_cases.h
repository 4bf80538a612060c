/* The link benchmark's cases (host/bench_cases.c). */
#ifndef MJT_BENCH_CASES_H
#define MJT_BENCH_CASES_H

#include <stddef.h>
#include <stdint.h>

extern size_t sink_bytes;

/* KIND: button, text, inventory or max; fills the payload, returns its length. */
size_t bench_payload_for(const char *kind, uint8_t *payload, uint8_t *type);
int bench_setup(void); /* the board's link, up; 0 if the handshake failed */
/* Frame i: build what the board will be fed (outside the measured part), then run it. */
size_t bench_prepare(int rx, int i, uint8_t type, const uint8_t *payload, size_t len);
void bench_run(int rx, int i, uint8_t type, const uint8_t *payload, size_t len, size_t prepared);
int bench_ok(void); /* nothing left unacknowledged, no ack refused */

#endif
