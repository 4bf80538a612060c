/* The board's cost per frame, for bench/firmware_link.py: run under
 *   valgrind --tool=callgrind --toggle-collect=bench_rx_one --toggle-collect=bench_tx_one
 * so that only the board's own work is counted. KIND picks the message:
 *   button (2-byte payload), text (a 24-byte display text), inventory (14 UIDs: a full
 *   hand), max (a 1024-byte payload).
 * rx: one frame from the host received, decoded, delivered, and the ack sent.
 * tx: one message queued, framed and sent, and the host's ack for it processed.
 * Prints the wire size of one frame of KIND. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_cases.h"

int main(int argc, char **argv)
{
    if (argc != 4 || (strcmp(argv[1], "rx") && strcmp(argv[1], "tx"))) {
        fprintf(stderr, "usage: %s rx|tx button|text|inventory|max N\n", argv[0]);
        return 2;
    }
    int rx = !strcmp(argv[1], "rx");
    int n = atoi(argv[3]);
    static uint8_t payload[1024];
    uint8_t type;
    size_t len = bench_payload_for(argv[2], payload, &type);
    if (!bench_setup()) {
        return 1;
    }
    size_t frame_wire = 0;
    for (int i = 0; i < n; i++) {
        size_t prepared = bench_prepare(rx, i, type, payload, len);
        size_t before = sink_bytes;
        bench_run(rx, i, type, payload, len, prepared);
        frame_wire = rx ? prepared : sink_bytes - before;
    }
    printf("%zu\n", frame_wire);
    return bench_ok() ? 0 : 1;
}
