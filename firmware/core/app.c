#include "app.h"

#include <string.h>

#include "board.h"
#include "crc16.h"
#include "ref_frame.h"
#include "text.h"

typedef struct {
    uint8_t used, id;
    uint16_t crc;     /* of the last set forwarded */
    uint32_t sent_ms; /* when */
} reader_memo;

static struct {
    mjt_link link;
    mjt_status status;
    mjt_link_state last_state;
    mjt_ref_parser ref;
    reader_memo readers[MJT_APP_READERS];
    uint8_t uids[MJT_MAX_PAYLOAD]; /* a sized frame's UIDs as they go to the host */
    mjt_app_counters counters;
} app;

static void console(const char *text)
{
    board_console_write(text, strlen(text));
}

static void link_write(void *ctx, const uint8_t *data, size_t len)
{
    (void)ctx;
    board_link_write(data, len);
}

static void on_display(const mjt_display_text *t)
{
    char line[16 + 2 * MJT_MAX_TEXT];
    size_t n = text_u32(line, text_str(line, 0, "text "), t->target);
    n = text_hex(line, text_str(line, n, " "), t->text, t->len);
    line[n++] = '\n';
    board_console_write(line, n);
    board_display_text(t->target, t->text, t->len);
}

static void on_dice_roll(uint8_t count)
{
    mjt_msg m = {.type = MJT_DICE_RESULT};
    char line[32];
    size_t n = text_str(line, 0, "dice");
    m.u.dice.count = count;
    for (uint8_t i = 0; i < count; i++) {
        m.u.dice.values[i] = (uint8_t)(1u + board_random() % 6u);
        n = text_u32(line, text_str(line, n, " "), m.u.dice.values[i]);
    }
    line[n++] = '\n';
    board_console_write(line, n);
    board_dice(m.u.dice.values, count);
    mjt_link_send_msg(&app.link, &m);
}

static void deliver(void *ctx, const mjt_msg *m, const uint8_t *payload, size_t len)
{
    (void)ctx, (void)payload, (void)len;
    char line[48];
    size_t n;
    switch (m->type) {
    case MJT_DICE_ROLL:
        on_dice_roll(m->u.dice.count);
        break;
    case MJT_DISPLAY_TEXT:
        on_display(&m->u.display_text);
        break;
    case MJT_LED:
        n = text_str(line, 0, "led");
        for (int i = 0; i < 5; i++) {
            const uint8_t v[5] = {m->u.led.led, m->u.led.mode, m->u.led.red, m->u.led.green,
                                  m->u.led.blue};
            n = text_u32(line, text_str(line, n, " "), v[i]);
        }
        line[n++] = '\n';
        board_console_write(line, n);
        board_led(&m->u.led);
        break;
    default:
        app.counters.unexpected++;
    }
}

mjt_link *app_init(uint32_t session, uint32_t now_ms)
{
    memset(&app, 0, sizeof app);
    mjt_link_config cfg = {.window = MJT_WINDOW, .role = MJT_ROLE_TABLE_BOARD,
                           .software = "mjt-fw 0.1", .write = link_write, .deliver = deliver};
    mjt_link_init(&app.link, &cfg, session, now_ms);
    mjt_ref_init(&app.ref);
    app.status.state = MJT_IDLE;
    app.last_state = app.link.state;
    return &app.link;
}

void app_poll(uint32_t now_ms)
{
    mjt_link_poll(&app.link, now_ms);
    if (app.link.state != app.last_state) {
        static const char *const names[] = {"link connecting\n", "link up\n", "link failed\n"};
        app.last_state = app.link.state;
        console(names[app.link.state]);
        if (app.link.state == MJT_UP) {
            /* Status is absolute state: a host that just (re)connected needs it. */
            mjt_msg m = {.type = MJT_STATUS, .u.status = app.status};
            mjt_link_send_msg(&app.link, &m);
            mjt_link_poll(&app.link, now_ms);
        }
    }
}

void app_button(uint8_t seat, uint8_t button)
{
    mjt_msg m = {.type = MJT_BUTTON, .u.button = {seat, button}};
    if (mjt_link_send_msg(&app.link, &m) != 0) {
        app.counters.buttons_lost++;
    }
}

void app_table_state(uint8_t state, const uint16_t *faults, uint8_t count)
{
    if (state > MJT_FAULT || count > MJT_MAX_FAULTS) {
        return;
    }
    app.status.state = state;
    app.status.count = count;
    if (count) {
        memcpy(app.status.faults, faults, (size_t)count * sizeof faults[0]);
    }
    if (app.link.state == MJT_UP) { /* else it goes out when the link comes up */
        mjt_msg m = {.type = MJT_STATUS, .u.status = app.status};
        mjt_link_send_msg(&app.link, &m);
    }
}

static reader_memo *memo_for(uint8_t id)
{
    reader_memo *free_slot = NULL;
    for (size_t i = 0; i < MJT_APP_READERS; i++) {
        if (app.readers[i].used && app.readers[i].id == id) {
            return &app.readers[i];
        }
        if (!app.readers[i].used && !free_slot) {
            free_slot = &app.readers[i];
        }
    }
    if (free_slot) {
        *free_slot = (reader_memo){.used = 1, .id = id, .crc = 0, .sent_ms = 0};
    }
    return free_slot;
}

/* A reader scans ten times a second; the line carries a changed set at once and an unchanged
 * one every MJT_APP_REFRESH_MS (a sign of life: the host marks a reader silent after 3 s).
 * An inventory is a whole set, so a newer one supersedes the reader's last if that has not
 * gone out yet: the host link never queues old news, and what the host gets of a reader is
 * its newest set, in the order the board saw things happen. */
static void on_inventory(uint8_t reader, const mjt_inventory *set, uint8_t type, uint32_t now_ms)
{
    uint16_t crc = mjt_crc16(&type, 1);
    crc = mjt_crc16_update(crc, &set->count, 1);
    crc = mjt_crc16_update(crc, set->uids, set->size);
    reader_memo *memo = memo_for(reader);
    if (memo && memo->sent_ms && memo->crc == crc &&
        (int32_t)(now_ms - memo->sent_ms) < (int32_t)MJT_APP_REFRESH_MS) {
        return;
    }
    if (app.link.state != MJT_UP) {
        return; /* the reader's next frame goes out once the link is up */
    }
    /* Dropped, then queued behind what came since: the host sees the board's events in the
     * order they happened, minus the superseded sets. One in flight is left alone. Either
     * form of a reader's set supersedes the other (the reader is the payload's first byte). */
    if (mjt_link_drop_unsent(&app.link, MJT_INVENTORY, reader) +
        mjt_link_drop_unsent(&app.link, MJT_INVENTORY_SIZED, reader)) {
        app.counters.inventories_replaced++;
    }
    mjt_msg m = {.type = type, .u.inventory = *set};
    if (mjt_link_send_msg(&app.link, &m) == 0) {
        app.counters.inventories_sent++;
        if (memo) {
            memo->crc = crc;
            memo->sent_ms = now_ms | 1u; /* 0 means "never" */
        }
    } else {
        app.counters.inventories_queue_full++;
        if (memo) {
            memo->sent_ms = 0; /* forward the reader's next frame, even an unchanged one */
        }
    }
}

/* A reader frame as the host gets it: 8-byte UIDs in an INVENTORY, as ever; a sized frame's
 * UIDs of 4..10 bytes in an INVENTORY_SIZED, or in an INVENTORY when all are 8 bytes (a host
 * that predates the sized form still gets every tile). A UID of another size is left out of
 * the set and counted: the rest of the reader's set still goes out. */
static void on_reader_frame(const mjt_ref_inventory *inv, uint32_t now_ms)
{
    mjt_inventory set = {inv->reader, 0, 0, inv->uids, inv->size};
    uint8_t type = MJT_INVENTORY;
    if (inv->sized) {
        uint16_t in = 0, out = 0, eights = 0;
        for (uint8_t k = 0; k < inv->count; k++, in = (uint16_t)(in + 1u + inv->uids[in])) {
            uint8_t n = inv->uids[in];
            if (n < MJT_UID_MIN || n > MJT_UID_MAX) {
                app.counters.uids_refused++;
                continue;
            }
            if (set.count == MJT_MAX_UIDS || out + 1u + n > MJT_MAX_PAYLOAD - 3u) {
                app.counters.inventories_too_big++;
                return;
            }
            memcpy(app.uids + out, inv->uids + in, 1u + n);
            out = (uint16_t)(out + 1u + n);
            set.count++;
            eights = (uint16_t)(eights + (n == MJT_UID_LEN));
        }
        set.uids = app.uids;
        set.size = out;
        if (eights == set.count) { /* unpack into the 8-byte form */
            for (uint8_t k = 0; k < set.count; k++) {
                memmove(app.uids + k * MJT_UID_LEN, app.uids + k * (1u + MJT_UID_LEN) + 1u,
                        MJT_UID_LEN);
            }
            set.size = (uint16_t)(set.count * MJT_UID_LEN);
        } else {
            type = MJT_INVENTORY_SIZED;
        }
    } else {
        set.count = inv->count;
    }
    if (set.count > MJT_MAX_UIDS) {
        app.counters.inventories_too_big++;
        return;
    }
    on_inventory(inv->reader, &set, type, now_ms);
}

void app_reader_bytes(const uint8_t *data, size_t len, uint32_t now_ms)
{
    for (size_t i = 0; i < len; i++) {
        mjt_ref_inventory inv;
        if (mjt_ref_byte(&app.ref, data[i], &inv)) {
            on_reader_frame(&inv, now_ms);
        }
    }
    app.counters.reader_frames = app.ref.frames;
    app.counters.reader_bad_crc = app.ref.bad_crc;
}

const mjt_app_counters *app_counters(void) { return &app.counters; }

mjt_link *app_link(void) { return &app.link; }
