/* A flat C API over the link for tests driving it from Python (ctypes): the Python side
 * owns the memory (mjt_api_sizes()) and passes two plain callbacks. Built into libmjt.so
 * only; the firmware does not need it. */
#include <stddef.h>

#include "link.h"

typedef void (*api_write_fn)(const uint8_t *data, size_t len);
typedef void (*api_deliver_fn)(uint8_t type, const uint8_t *payload, size_t len);

typedef struct {
    api_write_fn write;
    api_deliver_fn deliver;
} api_ctx;

void mjt_api_sizes(size_t *link, size_t *ctx);
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

void mjt_api_sizes(size_t *link, size_t *ctx)
{
    *link = sizeof(mjt_link);
    *ctx = sizeof(api_ctx);
}

void mjt_api_init(mjt_link *l, api_ctx *ctx, uint8_t window, uint8_t role, uint32_t session,
                  uint32_t now_ms, api_write_fn w, api_deliver_fn d)
{
    ctx->write = w;
    ctx->deliver = d;
    mjt_link_config cfg = {window, role, "mjt-fw libmjt", on_write, on_deliver, ctx};
    mjt_link_init(l, &cfg, session, now_ms);
}

const mjt_counters *mjt_api_counters(const mjt_link *l) { return &l->counters; }
int mjt_api_state(const mjt_link *l) { return (int)l->state; }
uint32_t mjt_api_unsent(const mjt_link *l) { return l->n_unsent; }
uint32_t mjt_api_messages(const mjt_link *l) { return l->n_msgs; }
uint32_t mjt_api_peer_session(const mjt_link *l) { return l->peer_session; }
