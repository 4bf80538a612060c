/* What the link counts instead of failing (docs/protocol.md §8). Nothing a peer sends can
 * make the firmware stop: bad input increments one of these and is dropped. */
#ifndef MJT_COUNTERS_H
#define MJT_COUNTERS_H

#include <stdint.h>

typedef struct {
    /* framing */
    uint32_t bad_crc, bad_cobs, runts, oversize, bad_version, resyncs, frames;
    /* link */
    uint32_t frames_tx, frames_rx, bytes_tx, bytes_rx;
    uint32_t messages_sent, messages_delivered, retransmits, fast_retransmits, timeouts;
    uint32_t duplicates, out_of_window, bad_ack, unknown_type, bad_payload, no_session;
    uint32_t version_mismatch, hellos_tx, hellos_rx, heartbeats_tx, heartbeats_rx;
    uint32_t peer_restarts, failures, rtt_samples;
    /* firmware only: an out-of-order frame too large for a receive slot (resent later) */
    uint32_t rx_slot_too_small;
} mjt_counters;

#endif
