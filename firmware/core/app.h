/* The board application, portable: the link to the host plus what a table board does —
 * seat buttons → BUTTON, table state → STATUS, reader frames → INVENTORY; DICE_ROLL →
 * the board's dice → DICE_RESULT, DISPLAY_TEXT and LED → the board's outputs. Each output
 * is also reported on the console (a line per event: see panel_console.h), which is how a
 * test watches a board whose GPIO the emulator does not model. */
#ifndef MJT_APP_H
#define MJT_APP_H

#include <stddef.h>
#include <stdint.h>

#include "link.h"

#ifndef MJT_APP_READERS
#define MJT_APP_READERS 16 /* readers on the board's reader line, remembered for forwarding */
#endif
#define MJT_APP_REFRESH_MS 1000u /* an unchanged inventory is forwarded this often */

mjt_link *app_init(uint32_t session, uint32_t now_ms);
void app_poll(uint32_t now_ms);
void app_button(uint8_t seat, uint8_t button);
void app_table_state(uint8_t state, const uint16_t *faults, uint8_t count);
void app_reader_bytes(const uint8_t *data, size_t len, uint32_t now_ms);

/* Counters of the application layer (the link's are in mjt_link.counters). */
typedef struct {
    uint32_t buttons_lost;     /* link queue full */
    uint32_t inventories_sent, inventories_too_big, reader_frames, reader_bad_crc;
    uint32_t inventories_replaced;   /* superseded by a newer set before they went out */
    uint32_t inventories_queue_full; /* the link's queue had no room: the next frame retries */
    uint32_t uids_refused;     /* UIDs of a size the link does not carry, left out of a set */
    uint32_t unexpected;       /* board reports sent to the board: ignored */
} mjt_app_counters;

const mjt_app_counters *app_counters(void);
mjt_link *app_link(void);

#endif
