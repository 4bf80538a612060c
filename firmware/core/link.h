/* The link (docs/protocol.md §3), sans-IO and heap-free: bytes in through
 * mjt_link_receive(), bytes out through the config's write callback from mjt_link_poll(),
 * time passed in as a millisecond clock (it may wrap). Messages go out with
 * mjt_link_send(); delivered ones come back through the deliver callback, once each and in
 * order. Nothing a peer sends can fail it: bad input is counted (mjt_counters). */
#ifndef MJT_LINK_H
#define MJT_LINK_H

#include <stddef.h>
#include <stdint.h>

#include "counters.h"
#include "frame.h"
#include "msg.h"

/* Build-time sizes: the only memory the link takes is the struct mjt_link. */
#ifndef MJT_WINDOW
#define MJT_WINDOW 8 /* frames in flight and out-of-order receive slots, 1..8 */
#endif
#ifndef MJT_TX_RING
#define MJT_TX_RING 4096 /* queued + unacknowledged messages: 3 bytes + payload each */
#endif
#ifndef MJT_RX_SLOT
#define MJT_RX_SLOT 256 /* largest payload buffered out of order (in-order ones: any size) */
#endif

/* The retransmission timer's defaults (docs/protocol.md §3); mjt_link_config may lower them. */
#define MJT_RTO_INITIAL_MS 250u
#define MJT_RTO_MIN_MS 20u
#define MJT_RTO_MAX_MS 2000u
#define MJT_HEARTBEAT_MS 1000u
#define MJT_MAX_ROUNDS 8u /* retransmission rounds without ack progress before FAILED */

typedef enum { MJT_CONNECTING = 0, MJT_UP = 1, MJT_FAILED = 2 } mjt_link_state;

typedef void (*mjt_write_fn)(void *ctx, const uint8_t *data, size_t len);
/* A delivered application message: decoded (`m`) and raw (`payload`, `len`). Pointers are
 * valid during the call only. The callback may call mjt_link_send(). */
typedef void (*mjt_deliver_fn)(void *ctx, const mjt_msg *m, const uint8_t *payload, size_t len);

typedef struct {
    uint8_t window;       /* 1..MJT_WINDOW */
    uint8_t role;         /* MJT_ROLE_* */
    const char *software; /* ≤ 32 bytes of UTF-8 */
    mjt_write_fn write;
    mjt_deliver_fn deliver;
    void *ctx;
    /* Retransmission timing, 0 = the default above: the initial RTO (also the first hello
     * interval), its floor, and its ceiling (also the hello interval's). Local to this end,
     * not negotiated. Only a line whose round trip is known to be far below the floor (a
     * pty in the tests) has a use for lower values. min > max falls back to the defaults;
     * initial is clamped into [min, max]. */
    uint16_t rto_initial_ms, rto_min_ms, rto_max_ms;
} mjt_link_config;

typedef struct {
    uint32_t off;     /* the message's place in the ring */
    uint8_t tx_count; /* transmissions so far (Karn: sample only from 1) */
    uint8_t sacked;
    uint8_t resend;   /* due for retransmission at the next poll */
    uint32_t sent_ms; /* last transmission */
    uint32_t stamp;   /* transmission order, for fast retransmit on a sack hole */
} mjt_inflight;

typedef struct {
    uint8_t used, seq, type;
    uint16_t len;
    uint8_t payload[MJT_RX_SLOT];
} mjt_rx_slot;

typedef struct {
    mjt_link_config cfg;
    mjt_link_state state;
    uint32_t session, peer_session;
    uint8_t peer_window;
    mjt_counters counters;
    mjt_decoder decoder;
    uint8_t raw[MJT_MAX_RAW];
    uint8_t wire[MJT_MAX_WIRE];
    /* send side: a FIFO of messages; the first n_inflight have sequence numbers */
    uint8_t ring[MJT_TX_RING];
    uint32_t ring_head, ring_used, n_msgs;
    uint32_t unsent_off, n_unsent;
    mjt_inflight fl[MJT_WINDOW];
    uint8_t n_inflight, snd_una;
    uint32_t stamp;
    /* retransmission timer (RFC 6298, microseconds for the estimators) */
    uint32_t srtt_us, rttvar_us, rto_ms;
    uint8_t have_rtt, timer_on, rounds;
    uint32_t timer_ms;
    /* receive side */
    uint8_t rcv_nxt, ack_owed, reply_pending;
    mjt_rx_slot slots[MJT_WINDOW];
    /* hellos and heartbeats */
    uint32_t hello_next_ms, hello_interval_ms, last_tx_ms, now_ms;
} mjt_link;

/* `session`: non-zero and random per start (the board's RNG, or the clock's low bits). */
void mjt_link_init(mjt_link *l, const mjt_link_config *cfg, uint32_t session, uint32_t now_ms);

/* Queue a message; 0, or -1 when the ring is full or the payload is over 1024 bytes. */
int mjt_link_send(mjt_link *l, uint8_t type, const uint8_t *payload, size_t len);
/* Encode and queue; -1 also when the values break §5's limits. */
int mjt_link_send_msg(mjt_link *l, const mjt_msg *m);

/* Drop the queued messages of `type` whose payload starts with `key` and that have not
 * been transmitted yet (in this session's numbering); one in flight stays, since the link
 * is exactly-once and in order. Returns how many went (`messages_sent` still counts them).
 * For messages that carry a whole state, so that a newer one supersedes them (an INVENTORY
 * by its reader id). */
int mjt_link_drop_unsent(mjt_link *l, uint8_t type, uint8_t key);

void mjt_link_receive(mjt_link *l, const uint8_t *data, size_t len, uint32_t now_ms);
void mjt_link_poll(mjt_link *l, uint32_t now_ms);
/* When mjt_link_poll() next has work: now_ms when it has some already. */
uint32_t mjt_link_next_deadline(const mjt_link *l, uint32_t now_ms);
/* The line was (re)opened: back to CONNECTING, queues intact. */
void mjt_link_reset_handshake(mjt_link *l, uint32_t now_ms);

/* Messages queued or unacknowledged, and whether the link has nothing left to do. */
static inline uint32_t mjt_link_queued(const mjt_link *l) { return l->n_msgs; }

#endif
