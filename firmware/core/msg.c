#include "msg.h"

#include <string.h>

#include "frame.h"

static uint16_t get16(const uint8_t *p) { return (uint16_t)((p[0] << 8) | p[1]); }

static uint32_t get32(const uint8_t *p)
{
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}

static uint8_t *put16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
    return p + 2;
}

static uint8_t *put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
    return p + 4;
}

int mjt_utf8_valid(const uint8_t *p, size_t len)
{
    size_t i = 0;
    while (i < len) {
        uint8_t b = p[i];
        size_t n;
        uint32_t cp;
        uint32_t min;
        if (b < 0x80) {
            i++;
            continue;
        } else if ((b & 0xE0) == 0xC0) {
            n = 1, cp = b & 0x1Fu, min = 0x80;
        } else if ((b & 0xF0) == 0xE0) {
            n = 2, cp = b & 0x0Fu, min = 0x800;
        } else if ((b & 0xF8) == 0xF0) {
            n = 3, cp = b & 0x07u, min = 0x10000;
        } else {
            return 0;
        }
        if (len - i - 1 < n) {
            return 0;
        }
        for (size_t k = 1; k <= n; k++) {
            if ((p[i + k] & 0xC0) != 0x80) {
                return 0;
            }
            cp = (cp << 6) | (p[i + k] & 0x3Fu);
        }
        if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
            return 0;
        }
        i += n + 1;
    }
    return 1;
}

int mjt_hello_decode(const uint8_t *p, size_t len, mjt_hello *h)
{
    if (len < MJT_HELLO_FIXED || len != MJT_HELLO_FIXED + p[15]) {
        return -1;
    }
    h->session = get32(p);
    h->peer_session = get32(p + 4);
    h->min_version = p[8];
    h->max_version = p[9];
    h->flags = p[10];
    h->role = p[11];
    h->window = p[12];
    h->max_payload = get16(p + 13);
    h->sw_len = p[15];
    h->software = p + MJT_HELLO_FIXED;
    if (h->session == 0 || h->min_version < 1 || h->max_version < h->min_version ||
        h->window < 1 || h->window > 8 || h->sw_len > MJT_MAX_SOFTWARE ||
        h->max_payload < MJT_HELLO_FIXED || /* less than this hello's own payload */
        h->role > MJT_ROLE_SIM ||
        !mjt_utf8_valid(h->software, h->sw_len)) {
        return -1;
    }
    return 0;
}

size_t mjt_hello_encode(const mjt_hello *h, uint8_t *out)
{
    if (h->sw_len > MJT_MAX_SOFTWARE) {
        return 0;
    }
    uint8_t *p = put32(out, h->session);
    p = put32(p, h->peer_session);
    *p++ = h->min_version;
    *p++ = h->max_version;
    *p++ = h->flags;
    *p++ = h->role;
    *p++ = h->window;
    p = put16(p, h->max_payload);
    *p++ = h->sw_len;
    if (h->sw_len) { /* memcpy from NULL is undefined even for 0 bytes */
        memcpy(p, h->software, h->sw_len);
    }
    return MJT_HELLO_FIXED + h->sw_len;
}

int mjt_heartbeat_decode(const uint8_t *p, size_t len, uint32_t *uptime_ms)
{
    if (len != 4) {
        return -1;
    }
    *uptime_ms = get32(p);
    return 0;
}

size_t mjt_heartbeat_encode(uint32_t uptime_ms, uint8_t *out)
{
    put32(out, uptime_ms);
    return 4;
}

/* Each check mirrors a line of docs/protocol.md §5: exact length, then the field ranges. */

static mjt_decode_result status_decode(const uint8_t *p, size_t len, mjt_status *s)
{
    if (len < 2 || len != 2u + 2u * p[1] || p[0] > MJT_FAULT || p[1] > MJT_MAX_FAULTS) {
        return MJT_DECODE_MALFORMED;
    }
    s->state = p[0];
    s->count = p[1];
    for (uint8_t i = 0; i < s->count; i++) {
        s->faults[i] = get16(p + 2 + 2 * i);
    }
    return MJT_DECODE_OK;
}

static mjt_decode_result wall_order_decode(const uint8_t *p, size_t len, mjt_wall_order *w)
{
    if (len < 5 || len != 5u + MJT_UID_LEN * p[4] || p[4] > MJT_MAX_UIDS) {
        return MJT_DECODE_MALFORMED;
    }
    w->start = get16(p);
    w->total = get16(p + 2);
    w->count = p[4];
    w->uids = p + 5;
    return (uint32_t)w->start + w->count <= w->total ? MJT_DECODE_OK : MJT_DECODE_MALFORMED;
}

static mjt_decode_result inventory_decode(const uint8_t *p, size_t len, mjt_inventory *v)
{
    if (len < 3 || len != 3u + MJT_UID_LEN * p[2] || p[2] > MJT_MAX_UIDS) {
        return MJT_DECODE_MALFORMED;
    }
    v->reader = p[0];
    v->zone = p[1];
    v->count = p[2];
    v->uids = p + 3;
    return MJT_DECODE_OK;
}

/* The bytes of `count` sized UIDs (n | UID(n), n 4..10) at the start of p[0..len), or
 * SIZE_MAX when they run past it or a size is out of range. */
static size_t sized_uids_len(const uint8_t *p, size_t len, uint8_t count)
{
    size_t i = 0;
    for (uint8_t k = 0; k < count; k++) {
        if (i >= len || p[i] < MJT_UID_MIN || p[i] > MJT_UID_MAX || len - i - 1u < p[i]) {
            return SIZE_MAX;
        }
        i += 1u + p[i];
    }
    return i;
}

static mjt_decode_result inventory_sized_decode(const uint8_t *p, size_t len, mjt_inventory *v)
{
    if (len < 3 || len > MJT_MAX_PAYLOAD || p[2] > MJT_MAX_UIDS ||
        sized_uids_len(p + 3, len - 3, p[2]) != len - 3) {
        return MJT_DECODE_MALFORMED;
    }
    v->reader = p[0];
    v->zone = p[1];
    v->count = p[2];
    v->uids = p + 3;
    v->size = (uint16_t)(len - 3);
    return MJT_DECODE_OK;
}

static mjt_decode_result dice_result_decode(const uint8_t *p, size_t len, mjt_dice *d)
{
    if (len < 2 || len != 1u + p[0] || p[0] > MJT_MAX_DICE) {
        return MJT_DECODE_MALFORMED;
    }
    d->count = p[0];
    for (uint8_t i = 0; i < d->count; i++) {
        if (p[1 + i] < 1 || p[1 + i] > 6) {
            return MJT_DECODE_MALFORMED;
        }
        d->values[i] = p[1 + i];
    }
    return MJT_DECODE_OK;
}

mjt_decode_result mjt_msg_decode(uint8_t type, const uint8_t *p, size_t len, mjt_msg *m)
{
    m->type = type;
    switch (type) {
    case MJT_STATUS:
        return status_decode(p, len, &m->u.status);
    case MJT_WALL_ORDER:
        return wall_order_decode(p, len, &m->u.wall_order);
    case MJT_BUTTON:
        if (len != 2 || p[0] > 3 || p[1] < 1 || p[1] > 6) {
            return MJT_DECODE_MALFORMED;
        }
        m->u.button.seat = p[0];
        m->u.button.button = p[1];
        return MJT_DECODE_OK;
    case MJT_INVENTORY:
        return inventory_decode(p, len, &m->u.inventory);
    case MJT_INVENTORY_SIZED:
        return inventory_sized_decode(p, len, &m->u.inventory);
    case MJT_DICE_RESULT:
        return dice_result_decode(p, len, &m->u.dice);
    case MJT_DICE_ROLL:
        if (len != 1 || p[0] < 1 || p[0] > MJT_MAX_DICE) {
            return MJT_DECODE_MALFORMED;
        }
        m->u.dice.count = p[0];
        return MJT_DECODE_OK;
    case MJT_DISPLAY_TEXT:
        if (len < 2 || len != 2u + p[1] || p[0] > 4 || p[1] > MJT_MAX_TEXT ||
            !mjt_utf8_valid(p + 2, p[1])) {
            return MJT_DECODE_MALFORMED;
        }
        m->u.display_text.target = p[0];
        m->u.display_text.len = p[1];
        m->u.display_text.text = p + 2;
        return MJT_DECODE_OK;
    case MJT_LED:
        if (len != 5 || p[1] > 3) {
            return MJT_DECODE_MALFORMED;
        }
        m->u.led = (mjt_led){p[0], p[1], p[2], p[3], p[4]};
        return MJT_DECODE_OK;
    default:
        return MJT_DECODE_UNKNOWN;
    }
}

static size_t uids_encode(uint8_t *p, size_t head, uint8_t count, const uint8_t *uids)
{
    if (count > MJT_MAX_UIDS) {
        return 0;
    }
    if (count) {
        memcpy(p + head, uids, (size_t)count * MJT_UID_LEN);
    }
    return head + (size_t)count * MJT_UID_LEN;
}

size_t mjt_msg_encode(const mjt_msg *m, uint8_t *out)
{
    switch (m->type) {
    case MJT_STATUS: {
        const mjt_status *s = &m->u.status;
        if (s->state > MJT_FAULT || s->count > MJT_MAX_FAULTS) {
            return 0;
        }
        out[0] = s->state;
        out[1] = s->count;
        for (uint8_t i = 0; i < s->count; i++) {
            put16(out + 2 + 2 * i, s->faults[i]);
        }
        return 2u + 2u * s->count;
    }
    case MJT_WALL_ORDER: {
        const mjt_wall_order *w = &m->u.wall_order;
        if ((uint32_t)w->start + w->count > w->total) {
            return 0;
        }
        put16(out, w->start);
        put16(out + 2, w->total);
        out[4] = w->count;
        return uids_encode(out, 5, w->count, w->uids);
    }
    case MJT_BUTTON:
        if (m->u.button.seat > 3 || m->u.button.button < 1 || m->u.button.button > 6) {
            return 0;
        }
        out[0] = m->u.button.seat;
        out[1] = m->u.button.button;
        return 2;
    case MJT_INVENTORY:
        out[0] = m->u.inventory.reader;
        out[1] = m->u.inventory.zone;
        out[2] = m->u.inventory.count;
        return uids_encode(out, 3, m->u.inventory.count, m->u.inventory.uids);
    case MJT_INVENTORY_SIZED: {
        const mjt_inventory *v = &m->u.inventory;
        if (v->count > MJT_MAX_UIDS || v->size > MJT_MAX_PAYLOAD - 3u ||
            sized_uids_len(v->uids, v->size, v->count) != v->size) {
            return 0;
        }
        out[0] = v->reader;
        out[1] = v->zone;
        out[2] = v->count;
        if (v->size) {
            memcpy(out + 3, v->uids, v->size);
        }
        return 3u + v->size;
    }
    case MJT_DICE_RESULT:
        if (m->u.dice.count < 1 || m->u.dice.count > MJT_MAX_DICE) {
            return 0;
        }
        out[0] = m->u.dice.count;
        for (uint8_t i = 0; i < m->u.dice.count; i++) {
            if (m->u.dice.values[i] < 1 || m->u.dice.values[i] > 6) {
                return 0;
            }
            out[1 + i] = m->u.dice.values[i];
        }
        return 1u + m->u.dice.count;
    case MJT_DICE_ROLL:
        if (m->u.dice.count < 1 || m->u.dice.count > MJT_MAX_DICE) {
            return 0;
        }
        out[0] = m->u.dice.count;
        return 1;
    case MJT_DISPLAY_TEXT: {
        const mjt_display_text *t = &m->u.display_text;
        if (t->target > 4 || t->len > MJT_MAX_TEXT || !mjt_utf8_valid(t->text, t->len)) {
            return 0;
        }
        out[0] = t->target;
        out[1] = t->len;
        if (t->len) {
            memcpy(out + 2, t->text, t->len);
        }
        return 2u + t->len;
    }
    case MJT_LED:
        if (m->u.led.mode > 3) {
            return 0;
        }
        out[0] = m->u.led.led;
        out[1] = m->u.led.mode;
        out[2] = m->u.led.red;
        out[3] = m->u.led.green;
        out[4] = m->u.led.blue;
        return 5;
    default:
        return 0;
    }
}
