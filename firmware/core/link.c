#include "link.h"

#include <string.h>

#define MSG_HEAD 3u /* type, length (u16) before each payload in the ring */

static int due(uint32_t t, uint32_t now) { return (int32_t)(now - t) >= 0; }

static uint32_t earliest(uint32_t a, uint32_t b, uint32_t now)
{
    return (int32_t)(a - now) < (int32_t)(b - now) ? a : b;
}

static uint8_t window(const mjt_link *l)
{
    return l->cfg.window < l->peer_window ? l->cfg.window : l->peer_window;
}

/* --- the message ring ---------------------------------------------------------------- */

static uint8_t ring_byte(const mjt_link *l, uint32_t off) { return l->ring[off % MJT_TX_RING]; }

static void ring_copy_out(const mjt_link *l, uint32_t off, uint8_t *dst, size_t n)
{
    off %= MJT_TX_RING;
    size_t first = MJT_TX_RING - off < n ? MJT_TX_RING - off : n;
    memcpy(dst, l->ring + off, first);
    memcpy(dst + first, l->ring, n - first);
}

static void ring_copy_in(mjt_link *l, uint32_t off, const uint8_t *src, size_t n)
{
    off %= MJT_TX_RING;
    size_t first = MJT_TX_RING - off < n ? MJT_TX_RING - off : n;
    memcpy(l->ring + off, src, first);
    memcpy(l->ring, src + first, n - first);
}

static uint16_t msg_len(const mjt_link *l, uint32_t off)
{
    return (uint16_t)((ring_byte(l, off + 1) << 8) | ring_byte(l, off + 2));
}

static uint32_t msg_next(const mjt_link *l, uint32_t off)
{
    return (off + MSG_HEAD + msg_len(l, off)) % MJT_TX_RING;
}

int mjt_link_send(mjt_link *l, uint8_t type, const uint8_t *payload, size_t len)
{
    if (len > MJT_MAX_PAYLOAD || l->ring_used + MSG_HEAD + len > MJT_TX_RING) {
        return -1;
    }
    uint32_t off = (l->ring_head + l->ring_used) % MJT_TX_RING;
    uint8_t head[MSG_HEAD] = {type, (uint8_t)(len >> 8), (uint8_t)len};
    ring_copy_in(l, off, head, MSG_HEAD);
    ring_copy_in(l, off + MSG_HEAD, payload, len);
    l->ring_used += MSG_HEAD + (uint32_t)len;
    if (l->n_unsent == 0) {
        l->unsent_off = off;
    }
    l->n_unsent++;
    l->n_msgs++;
    l->counters.messages_sent++;
    return 0;
}

int mjt_link_send_msg(mjt_link *l, const mjt_msg *m)
{
    /* The scratch frame buffer is free outside mjt_link_poll(). */
    size_t n = mjt_msg_encode(m, l->raw);
    return n ? mjt_link_send(l, m->type, l->raw, n) : -1;
}

/* Remove `size` bytes at `pos` (counted from the ring's head), closing the gap. */
static void ring_cut(mjt_link *l, uint32_t pos, uint32_t size)
{
    for (uint32_t i = l->ring_head + pos; i + size < l->ring_head + l->ring_used; i++) {
        l->ring[i % MJT_TX_RING] = ring_byte(l, i + size);
    }
    l->ring_used -= size;
}

int mjt_link_drop_unsent(mjt_link *l, uint8_t type, uint8_t key)
{
    int dropped = 0;
    uint32_t off = l->unsent_off;
    for (uint32_t i = 0, n = l->n_unsent; i < n; i++) {
        uint16_t len = msg_len(l, off);
        if (ring_byte(l, off) != type || len == 0 || ring_byte(l, off + MSG_HEAD) != key) {
            off = msg_next(l, off);
            continue;
        }
        /* The next message moves up to `off`, which stays the first unsent if this was. */
        ring_cut(l, (off + MJT_TX_RING - l->ring_head) % MJT_TX_RING, MSG_HEAD + (uint32_t)len);
        l->n_unsent--;
        l->n_msgs--;
        dropped++;
    }
    return dropped;
}

/* Forget sequence numbers: every queued or unacknowledged message goes out again from 0. */
static void renumber(mjt_link *l)
{
    l->n_inflight = 0;
    l->snd_una = 0;
    l->unsent_off = l->ring_head;
    l->n_unsent = l->n_msgs;
    l->timer_on = 0;
    l->rounds = 0;
}

/* --- init and state ------------------------------------------------------------------ */

static void start_hellos(mjt_link *l, uint32_t now)
{
    l->hello_interval_ms = l->cfg.rto_initial_ms;
    l->hello_next_ms = now;
}

void mjt_link_init(mjt_link *l, const mjt_link_config *cfg, uint32_t session, uint32_t now_ms)
{
    memset(l, 0, sizeof *l);
    l->cfg = *cfg;
    if (l->cfg.window < 1 || l->cfg.window > MJT_WINDOW) {
        l->cfg.window = MJT_WINDOW;
    }
    mjt_link_config *c = &l->cfg;
    c->rto_initial_ms = c->rto_initial_ms ? c->rto_initial_ms : MJT_RTO_INITIAL_MS;
    c->rto_min_ms = c->rto_min_ms ? c->rto_min_ms : MJT_RTO_MIN_MS;
    c->rto_max_ms = c->rto_max_ms ? c->rto_max_ms : MJT_RTO_MAX_MS;
    if (c->rto_min_ms > c->rto_max_ms) {
        c->rto_min_ms = MJT_RTO_MIN_MS;
        c->rto_max_ms = MJT_RTO_MAX_MS;
    }
    c->rto_initial_ms = c->rto_initial_ms < c->rto_min_ms   ? c->rto_min_ms
                        : c->rto_initial_ms > c->rto_max_ms ? c->rto_max_ms
                                                            : c->rto_initial_ms;
    l->session = session ? session : 1;
    l->peer_window = l->cfg.window;
    l->rto_ms = c->rto_initial_ms;
    l->state = MJT_CONNECTING;
    l->now_ms = now_ms;
    l->last_tx_ms = now_ms;
    mjt_decoder_init(&l->decoder);
    start_hellos(l, now_ms);
}

void mjt_link_reset_handshake(mjt_link *l, uint32_t now_ms)
{
    l->state = MJT_CONNECTING;
    l->timer_on = 0;
    mjt_decoder_init(&l->decoder);
    start_hellos(l, now_ms);
}

static void restart_timer(mjt_link *l, uint32_t now)
{
    l->timer_on = l->n_inflight > 0;
    l->timer_ms = now + l->rto_ms;
}

static void resend_all(mjt_link *l)
{
    for (uint8_t i = 0; i < l->n_inflight; i++) {
        if (!l->fl[i].sacked) {
            l->fl[i].resend = 1;
        }
    }
}

static void go_up(mjt_link *l, uint32_t now)
{
    l->state = MJT_UP;
    l->rounds = 0;
    resend_all(l); /* after FAILED: what was unacknowledged goes out at once */
    restart_timer(l, now);
}

/* --- acks, RTT ----------------------------------------------------------------------- */

static void rtt_sample(mjt_link *l, uint32_t sent_ms, uint32_t now)
{
    uint32_t r = (now - sent_ms) * 1000u;
    if (!l->have_rtt) {
        l->srtt_us = r;
        l->rttvar_us = r / 2;
        l->have_rtt = 1;
    } else {
        uint32_t diff = l->srtt_us > r ? l->srtt_us - r : r - l->srtt_us;
        l->rttvar_us = (3u * l->rttvar_us + diff) / 4u;
        l->srtt_us = (7u * l->srtt_us + r) / 8u;
    }
    uint32_t var4 = 4u * l->rttvar_us;
    uint32_t rto = (l->srtt_us + (var4 > 1000u ? var4 : 1000u) + 999u) / 1000u;
    uint32_t lo = l->cfg.rto_min_ms, hi = l->cfg.rto_max_ms;
    l->rto_ms = rto < lo ? lo : rto > hi ? hi : rto;
    l->counters.rtt_samples++;
}

static void on_ack(mjt_link *l, uint8_t ack, uint8_t sack, uint32_t now)
{
    uint8_t d = (uint8_t)(ack - l->snd_una);
    if (d > l->n_inflight) {
        l->counters.bad_ack++;
        return;
    }
    /* The sample: the newest frame first acked or sacked, if it was sent once (Karn). */
    int have_sample = 0;
    uint32_t sample_stamp = 0, sample_sent = 0;
    for (uint8_t i = 0; i < d; i++) {
        const mjt_inflight *f = &l->fl[i];
        if (!f->sacked && f->tx_count == 1 && (!have_sample || f->stamp > sample_stamp)) {
            have_sample = 1;
            sample_stamp = f->stamp;
            sample_sent = f->sent_ms;
        }
        l->ring_used -= MSG_HEAD + msg_len(l, f->off);
        l->ring_head = msg_next(l, f->off);
        l->n_msgs--;
    }
    if (d) {
        memmove(l->fl, l->fl + d, (size_t)(l->n_inflight - d) * sizeof l->fl[0]);
        l->n_inflight = (uint8_t)(l->n_inflight - d);
        l->snd_una = ack;
        l->rounds = 0;
        restart_timer(l, now);
    }
    uint32_t newest_sacked = 0;
    for (uint8_t i = 0; i < 8; i++) {
        uint8_t idx = (uint8_t)(i + 1);
        if (!(sack & (1u << i)) || idx >= l->n_inflight) {
            continue;
        }
        mjt_inflight *f = &l->fl[idx];
        if (!f->sacked) {
            f->sacked = 1;
            f->resend = 0;
            if (f->tx_count == 1 && (!have_sample || f->stamp > sample_stamp)) {
                have_sample = 1;
                sample_stamp = f->stamp;
                sample_sent = f->sent_ms;
            }
        }
        if (f->stamp > newest_sacked) {
            newest_sacked = f->stamp;
        }
    }
    if (have_sample) {
        rtt_sample(l, sample_sent, now);
    }
    /* The line is FIFO: a frame sent before a sacked one and not sacked itself was lost. */
    for (uint8_t i = 0; i < l->n_inflight; i++) {
        mjt_inflight *f = &l->fl[i];
        if (!f->sacked && !f->resend && f->stamp < newest_sacked) {
            f->resend = 1;
            l->counters.fast_retransmits++;
        }
    }
}

/* --- receiving ----------------------------------------------------------------------- */

static void deliver(mjt_link *l, uint8_t type, const uint8_t *p, size_t len)
{
    if (type == MJT_HEARTBEAT) {
        uint32_t uptime;
        if (mjt_heartbeat_decode(p, len, &uptime) == 0) {
            l->counters.heartbeats_rx++;
        } else {
            l->counters.bad_payload++;
        }
        return;
    }
    mjt_msg m;
    switch (type < 0x20 ? MJT_DECODE_UNKNOWN : mjt_msg_decode(type, p, len, &m)) {
    case MJT_DECODE_OK:
        l->counters.messages_delivered++;
        if (l->cfg.deliver) {
            l->cfg.deliver(l->cfg.ctx, &m, p, len);
        }
        break;
    case MJT_DECODE_UNKNOWN:
        l->counters.unknown_type++;
        break;
    default:
        l->counters.bad_payload++;
    }
}

static void on_sequenced(mjt_link *l, const mjt_frame *f)
{
    uint8_t d = (uint8_t)(f->seq - l->rcv_nxt);
    l->ack_owed = 1;
    if (d == 0) {
        deliver(l, f->type, f->payload, f->len);
        l->rcv_nxt++;
        for (;;) {
            mjt_rx_slot *s = &l->slots[l->rcv_nxt % MJT_WINDOW];
            if (!s->used || s->seq != l->rcv_nxt) {
                break;
            }
            s->used = 0;
            deliver(l, s->type, s->payload, s->len);
            l->rcv_nxt++;
        }
    } else if (d < l->cfg.window) {
        mjt_rx_slot *s = &l->slots[f->seq % MJT_WINDOW];
        if (s->used && s->seq == f->seq) {
            l->counters.duplicates++;
        } else if (f->len > MJT_RX_SLOT) {
            l->counters.rx_slot_too_small++; /* not sacked: the peer resends it in order */
        } else {
            s->used = 1;
            s->seq = f->seq;
            s->type = f->type;
            s->len = f->len;
            memcpy(s->payload, f->payload, f->len);
        }
    } else if (d >= 128) {
        l->counters.duplicates++; /* behind: delivered already, ack again */
    } else {
        l->counters.out_of_window++;
        l->ack_owed = 0;
    }
}

static uint8_t sack_bits(const mjt_link *l)
{
    uint8_t bits = 0;
    for (uint8_t i = 0; i < 8 && i + 1u < MJT_WINDOW; i++) {
        uint8_t seq = (uint8_t)(l->rcv_nxt + 1u + i);
        const mjt_rx_slot *s = &l->slots[seq % MJT_WINDOW];
        if (s->used && s->seq == seq) {
            bits |= (uint8_t)(1u << i);
        }
    }
    return bits;
}

static void on_hello(mjt_link *l, const mjt_frame *f, uint32_t now)
{
    mjt_hello h;
    l->counters.hellos_rx++;
    if (mjt_hello_decode(f->payload, f->len, &h) != 0) {
        l->counters.bad_payload++;
        return;
    }
    if (h.min_version > MJT_VERSION || h.max_version < MJT_VERSION) {
        l->counters.version_mismatch++;
        return;
    }
    if (h.session != l->peer_session) {
        if (l->peer_session) {
            l->counters.peer_restarts++;
        }
        l->peer_session = h.session;
        l->rcv_nxt = 0;
        l->ack_owed = 0;
        for (uint8_t i = 0; i < MJT_WINDOW; i++) {
            l->slots[i].used = 0;
        }
        renumber(l);
        if (l->state == MJT_UP) {
            l->state = MJT_CONNECTING;
            start_hellos(l, now);
        }
    }
    l->peer_window = h.window;
    if (h.peer_session == l->session && l->state != MJT_UP) {
        go_up(l, now);
    }
    if (h.peer_session != l->session || (h.flags & MJT_HELLO_NEED_REPLY)) {
        l->reply_pending = 1;
    }
}

static void on_frame(mjt_link *l, const mjt_frame *f, uint32_t now)
{
    l->counters.frames_rx++;
    if (f->type == MJT_HELLO) {
        on_hello(l, f, now);
        return;
    }
    if (!l->peer_session) {
        l->counters.no_session++;
        return;
    }
    on_ack(l, f->ack, f->sack, now);
    if (f->type >= MJT_FIRST_SEQUENCED) {
        on_sequenced(l, f);
    } else if (f->type != MJT_ACK) {
        l->counters.unknown_type++; /* reserved link control */
    } else if (f->len) {
        l->counters.bad_payload++;
    }
}

void mjt_link_receive(mjt_link *l, const uint8_t *data, size_t len, uint32_t now_ms)
{
    l->now_ms = now_ms;
    l->counters.bytes_rx += (uint32_t)len;
    for (size_t i = 0; i < len; i++) {
        mjt_frame f;
        if (mjt_decoder_byte(&l->decoder, data[i], &l->counters, &f)) {
            on_frame(l, &f, now_ms);
        }
    }
}

/* --- sending ------------------------------------------------------------------------- */

static void emit(mjt_link *l, const mjt_frame *f, int lead_zero, uint32_t now)
{
    size_t n = mjt_frame_encode(f, l->raw, l->wire, lead_zero);
    l->counters.frames_tx++;
    l->counters.bytes_tx += (uint32_t)n;
    l->last_tx_ms = now;
    l->cfg.write(l->cfg.ctx, l->wire, n);
}

static void send_hello(mjt_link *l, uint32_t now)
{
    uint8_t payload[MJT_HELLO_FIXED + MJT_MAX_SOFTWARE];
    size_t sw = strlen(l->cfg.software);
    mjt_hello h = {
        .session = l->session,
        .peer_session = l->peer_session,
        .min_version = MJT_VERSION,
        .max_version = MJT_VERSION,
        .flags = l->state != MJT_UP ? MJT_HELLO_NEED_REPLY : 0,
        .role = l->cfg.role,
        .window = l->cfg.window,
        .max_payload = MJT_MAX_PAYLOAD,
        .sw_len = (uint8_t)(sw < MJT_MAX_SOFTWARE ? sw : MJT_MAX_SOFTWARE),
        .software = (const uint8_t *)l->cfg.software,
    };
    mjt_frame f = {MJT_VERSION, MJT_HELLO, 0, 0, 0, payload, 0};
    f.len = (uint16_t)mjt_hello_encode(&h, payload);
    l->counters.hellos_tx++;
    emit(l, &f, 1, now);
}

static void transmit(mjt_link *l, uint8_t i, uint32_t now)
{
    mjt_inflight *e = &l->fl[i];
    uint16_t len = msg_len(l, e->off);
    /* The payload goes through the wire buffer's tail: frame_encode copies it into raw. */
    uint8_t *payload = l->wire + MJT_MAX_WIRE - MJT_MAX_PAYLOAD;
    ring_copy_out(l, e->off + MSG_HEAD, payload, len);
    mjt_frame f = {MJT_VERSION, ring_byte(l, e->off), (uint8_t)(l->snd_una + i), l->rcv_nxt,
                   sack_bits(l), payload, len};
    if (e->tx_count) {
        l->counters.retransmits++;
    }
    if (e->tx_count < 255) {
        e->tx_count++;
    }
    e->resend = 0;
    e->sent_ms = now;
    e->stamp = ++l->stamp;
    l->ack_owed = 0;
    if (!l->timer_on) {
        restart_timer(l, now);
    }
    emit(l, &f, 0, now);
}

static void on_timeout(mjt_link *l, uint32_t now)
{
    l->counters.timeouts++;
    if (++l->rounds > MJT_MAX_ROUNDS) {
        l->state = MJT_FAILED;
        l->counters.failures++;
        l->timer_on = 0;
        start_hellos(l, now);
        return;
    }
    l->rto_ms = 2u * l->rto_ms > l->cfg.rto_max_ms ? l->cfg.rto_max_ms : 2u * l->rto_ms;
    resend_all(l);
    l->timer_ms = now + l->rto_ms;
}

void mjt_link_poll(mjt_link *l, uint32_t now)
{
    l->now_ms = now;
    if (l->state != MJT_UP && due(l->hello_next_ms, now)) {
        send_hello(l, now);
        l->reply_pending = 0;
        l->hello_next_ms = now + l->hello_interval_ms;
        l->hello_interval_ms = 2u * l->hello_interval_ms > l->cfg.rto_max_ms
                                   ? l->cfg.rto_max_ms
                                   : 2u * l->hello_interval_ms;
    }
    if (l->reply_pending) {
        l->reply_pending = 0;
        send_hello(l, now);
    }
    if (l->state == MJT_UP && l->timer_on && due(l->timer_ms, now)) {
        on_timeout(l, now);
    }
    if (l->state == MJT_UP) {
        for (uint8_t i = 0; i < l->n_inflight; i++) {
            if (l->fl[i].resend) {
                transmit(l, i, now);
            }
        }
        /* With frames in flight the retransmission timer already watches the peer. */
        if (l->n_msgs == 0 && due(l->last_tx_ms + MJT_HEARTBEAT_MS, now)) {
            uint8_t p[4];
            if (mjt_link_send(l, MJT_HEARTBEAT, p, mjt_heartbeat_encode(now, p)) == 0) {
                l->counters.messages_sent--; /* the link's own, not the application's */
                l->counters.heartbeats_tx++;
            }
        }
        while (l->n_unsent && l->n_inflight < window(l)) {
            uint8_t i = l->n_inflight++;
            l->fl[i] = (mjt_inflight){.off = l->unsent_off};
            l->unsent_off = msg_next(l, l->unsent_off);
            l->n_unsent--;
            transmit(l, i, now);
        }
    }
    if (l->ack_owed && l->peer_session) {
        mjt_frame f = {MJT_VERSION, MJT_ACK, 0, l->rcv_nxt, sack_bits(l), NULL, 0};
        l->ack_owed = 0;
        emit(l, &f, 0, now);
    }
}

uint32_t mjt_link_next_deadline(const mjt_link *l, uint32_t now)
{
    if (l->reply_pending || (l->ack_owed && l->peer_session)) {
        return now;
    }
    if (l->state != MJT_UP) {
        return due(l->hello_next_ms, now) ? now : l->hello_next_ms;
    }
    /* The heartbeat is due only when nothing is queued or in flight. */
    uint32_t t = l->n_msgs ? now + l->cfg.rto_max_ms : l->last_tx_ms + MJT_HEARTBEAT_MS;
    if (l->timer_on) {
        t = earliest(t, l->timer_ms, now);
    }
    for (uint8_t i = 0; i < l->n_inflight; i++) {
        if (l->fl[i].resend) {
            return now;
        }
    }
    if (l->n_unsent && l->n_inflight < window(l)) {
        return now;
    }
    return due(t, now) ? now : t;
}
