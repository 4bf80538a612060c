/* Message types and payloads (docs/protocol.md §4-5). Payloads are exact-length,
 * big-endian. Decoders check a payload in place and point into it (no copies, no heap);
 * encoders write into a caller's buffer and return the length (0 = the values are invalid). */
#ifndef MJT_MSG_H
#define MJT_MSG_H

#include <stddef.h>
#include <stdint.h>

enum {
    MJT_HELLO = 0x01,
    MJT_ACK = 0x02,
    MJT_HEARTBEAT = 0x10,
    MJT_STATUS = 0x20,
    MJT_WALL_ORDER = 0x21,
    MJT_BUTTON = 0x22,
    MJT_INVENTORY = 0x23,
    MJT_DICE_RESULT = 0x24,
    MJT_INVENTORY_SIZED = 0x25,
    MJT_DICE_ROLL = 0x30,
    MJT_DISPLAY_TEXT = 0x31,
    MJT_LED = 0x32,
};

#define MJT_FIRST_SEQUENCED 0x10u
#define MJT_UID_LEN 8u   /* a tile's UID, and every UID of an INVENTORY or WALL_ORDER */
#define MJT_UID_MIN 4u   /* INVENTORY_SIZED carries UIDs of 4..10 bytes: a member's card */
#define MJT_UID_MAX 10u  /* (ISO 14443 4, 7, 10; ISO 15693 8) beside the tiles */
#define MJT_MAX_UIDS 127u
#define MJT_MAX_FAULTS 32u
#define MJT_MAX_SOFTWARE 32u
#define MJT_MAX_TEXT 200u
#define MJT_MAX_DICE 4u
#define MJT_HELLO_FIXED 16u
#define MJT_HELLO_NEED_REPLY 0x01u

enum { MJT_ROLE_HOST = 0, MJT_ROLE_TABLE_BOARD = 1, MJT_ROLE_READER_BUS = 2, MJT_ROLE_SIM = 3 };
enum { MJT_IDLE = 0, MJT_SHUFFLING = 1, MJT_WALLS_RISING = 2, MJT_WALLS_UP = 3, MJT_FAULT = 4 };

typedef struct {
    uint32_t session, peer_session;
    uint8_t min_version, max_version, flags, role, window;
    uint16_t max_payload;
    uint8_t sw_len;
    const uint8_t *software;
} mjt_hello;

typedef struct {
    uint8_t state, count;
    uint16_t faults[MJT_MAX_FAULTS];
} mjt_status;

typedef struct {
    uint16_t start, total;
    uint8_t count;
    const uint8_t *uids; /* count × 8 bytes */
} mjt_wall_order;

typedef struct {
    uint8_t reader, zone, count;
    const uint8_t *uids; /* INVENTORY: count × 8 bytes; INVENTORY_SIZED: count × (n | UID(n)) */
    uint16_t size;       /* INVENTORY_SIZED: the bytes at `uids` */
} mjt_inventory;

typedef struct {
    uint8_t seat, button; /* seat 0..3, button 1 win .. 6 confirm */
} mjt_button;

typedef struct {
    uint8_t count;
    uint8_t values[MJT_MAX_DICE];
} mjt_dice;

typedef struct {
    uint8_t target, len;
    const uint8_t *text; /* UTF-8, not terminated */
} mjt_display_text;

typedef struct {
    uint8_t led, mode, red, green, blue;
} mjt_led;

/* Decoded application message (the union of §5.3-5.10). */
typedef struct {
    uint8_t type;
    union {
        mjt_status status;
        mjt_wall_order wall_order;
        mjt_button button;
        mjt_inventory inventory; /* INVENTORY and INVENTORY_SIZED */
        mjt_dice dice; /* DICE_RESULT values, or DICE_ROLL count */
        mjt_display_text display_text;
        mjt_led led;
    } u;
} mjt_msg;

typedef enum {
    MJT_DECODE_OK = 0,
    MJT_DECODE_UNKNOWN = 1,
    MJT_DECODE_MALFORMED = 2
} mjt_decode_result;

/* The application messages (types 0x20..). HEARTBEAT and link control are the link's. */
mjt_decode_result mjt_msg_decode(uint8_t type, const uint8_t *p, size_t len, mjt_msg *out);
int mjt_hello_decode(const uint8_t *p, size_t len, mjt_hello *out);   /* 0 = ok */
int mjt_heartbeat_decode(const uint8_t *p, size_t len, uint32_t *uptime_ms);

/* Encoders: return the payload length, or 0 when the values break §5's limits. `out` needs
 * room for the payload (MJT_MAX_PAYLOAD always suffices). */
size_t mjt_hello_encode(const mjt_hello *h, uint8_t *out);
size_t mjt_heartbeat_encode(uint32_t uptime_ms, uint8_t *out);
size_t mjt_msg_encode(const mjt_msg *m, uint8_t *out);

/* 1 when `p[0..len)` is well-formed UTF-8 (no overlongs, surrogates or values > U+10FFFF). */
int mjt_utf8_valid(const uint8_t *p, size_t len);

#endif
