/* A flat C API over the link for tests driving it from Python (ctypes): the Python side
 * owns the memory (mjt_api_sizes()) and passes two plain callbacks. Built into libmjt.so
 * only; the firmware does not need it. */
#include <stddef.h>
#include <string.h>

#include "link.h"

typedef void (*api_write_fn)(const uint8_t *data, size_t len);
typedef void (*api_deliver_fn)(uint8_t type, const uint8_t *payload, size_t len);

typedef struct {
    api_write_fn write;
    api_deliver_fn deliver;
} api_ctx;

void mjt_api_sizes(size_t *link, size_t *ctx, size_t *counters);
void mjt_api_init(mjt_link *l, api_ctx *ctx, uint8_t window, uint8_t role, uint32_t session,
                  uint32_t now_ms, api_write_fn w, api_deliver_fn d);
const mjt_counters *mjt_api_counters(const mjt_link *l);
int mjt_api_state(const mjt_link *l);
uint32_t mjt_api_unsent(const mjt_link *l);
uint32_t mjt_api_messages(const mjt_link *l);
uint32_t mjt_api_peer_session(const mjt_link *l);

static void on_write(void *ctx, const uint8_t *data, size_t len)
{
    ((api_ctx *)ctx)->write(data, len);
}

static void on_deliver(void *ctx, const mjt_msg *m, const uint8_t *payload, size_t len)
{
    ((api_ctx *)ctx)->deliver(m->type, payload, len);
}

void mjt_api_sizes(size_t *link, size_t *ctx, size_t *counters)
{
    *link = sizeof(mjt_link);
    *ctx = sizeof(api_ctx);
    *counters = sizeof(mjt_counters) / sizeof(uint32_t);
}

void mjt_api_init(mjt_link *l, api_ctx *ctx, uint8_t window, uint8_t role, uint32_t session,
                  uint32_t now_ms, api_write_fn w, api_deliver_fn d)
{
    ctx->write = w;
    ctx->deliver = d;
    mjt_link_config cfg = {.window = window, .role = role, .software = "mjt-fw libmjt",
                           .write = on_write, .deliver = on_deliver, .ctx = ctx};
    mjt_link_init(l, &cfg, session, now_ms);
}

const mjt_counters *mjt_api_counters(const mjt_link *l) { return &l->counters; }
int mjt_api_state(const mjt_link *l) { return (int)l->state; }
uint32_t mjt_api_unsent(const mjt_link *l) { return l->n_unsent; }
uint32_t mjt_api_messages(const mjt_link *l) { return l->n_msgs; }
uint32_t mjt_api_peer_session(const mjt_link *l) { return l->peer_session; }

/* --- for differential tests against the Python codec ---------------------------------- */

int mjt_api_payload_check(uint8_t type, const uint8_t *p, size_t n, uint8_t *out, size_t *out_n);
size_t mjt_api_decode_stream(const uint8_t *in, size_t n, uint8_t *out, mjt_counters *c);

/* 0 valid (and `out` holds its re-encoding), 1 unknown type, 2 malformed. */
int mjt_api_payload_check(uint8_t type, const uint8_t *p, size_t n, uint8_t *out, size_t *out_n)
{
    *out_n = 0;
    if (type == MJT_HELLO) {
        mjt_hello h;
        if (mjt_hello_decode(p, n, &h) != 0) {
            return MJT_DECODE_MALFORMED;
        }
        *out_n = mjt_hello_encode(&h, out);
        return MJT_DECODE_OK;
    }
    if (type == MJT_HEARTBEAT) {
        uint32_t uptime;
        if (mjt_heartbeat_decode(p, n, &uptime) != 0) {
            return MJT_DECODE_MALFORMED;
        }
        *out_n = mjt_heartbeat_encode(uptime, out);
        return MJT_DECODE_OK;
    }
    mjt_msg m;
    mjt_decode_result r = mjt_msg_decode(type, p, n, &m);
    if (r == MJT_DECODE_OK) {
        *out_n = mjt_msg_encode(&m, out);
    }
    return (int)r;
}

/* Each frame found: u16 length (big-endian), then version, type, seq, ack, sack, payload. */
size_t mjt_api_decode_stream(const uint8_t *in, size_t n, uint8_t *out, mjt_counters *c)
{
    static mjt_decoder d;
    size_t o = 0;
    mjt_decoder_init(&d);
    for (size_t i = 0; i < n; i++) {
        mjt_frame f;
        if (mjt_decoder_byte(&d, in[i], c, &f)) {
            size_t len = MJT_HEADER_LEN + f.len;
            out[o++] = (uint8_t)(len >> 8);
            out[o++] = (uint8_t)len;
            const uint8_t head[MJT_HEADER_LEN] = {f.version, f.type, f.seq, f.ack, f.sack};
            memcpy(out + o, head, MJT_HEADER_LEN);
            memcpy(out + o + MJT_HEADER_LEN, f.payload, f.len);
            o += len;
        }
    }
    return o;
}
