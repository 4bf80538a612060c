#include "panel_console.h"

#include <string.h>

#include "app.h"
#include "board.h"
#include "text.h"

#define LINE_MAX_LEN 96u
#define MAX_NUMBERS (2u + MJT_MAX_FAULTS)

static char line[LINE_MAX_LEN + 1];
static size_t line_len;
static int overflow;

static void say(const char *text) { board_console_write(text, strlen(text)); }

/* Parse up to `max` decimal numbers after the command letter; -1 on anything else. */
static int numbers(const char *s, uint32_t *out, size_t max)
{
    size_t n = 0;
    while (*s) {
        if (*s == ' ') {
            s++;
            continue;
        }
        if (*s < '0' || *s > '9' || n == max) {
            return -1;
        }
        uint32_t v = 0;
        while (*s >= '0' && *s <= '9') {
            if (v > 100000u) {
                return -1;
            }
            v = v * 10u + (uint32_t)(*s++ - '0');
        }
        out[n++] = v;
    }
    return (int)n;
}

static void counters(void)
{
    char text[512];
    const mjt_app_counters *a = app_counters();
    const mjt_counters *c = &app_link()->counters;
    const char *names[] = {"buttons_lost", "inventories", "inventories_replaced",
                           "inventories_queue_full", "reader_frames", "reader_bad_crc",
                           "uids_refused", "unexpected", "resyncs", "bad_crc", "bad_cobs", "oversize",
                           "retransmits", "timeouts", "failures", "peer_restarts", "hellos_rx",
                           "messages_delivered", "uart_rx_dropped"};
    const uint32_t values[] = {a->buttons_lost, a->inventories_sent, a->inventories_replaced,
                               a->inventories_queue_full, a->reader_frames, a->reader_bad_crc,
                               a->uids_refused, a->unexpected, c->resyncs, c->bad_crc, c->bad_cobs, c->oversize,
                               c->retransmits, c->timeouts, c->failures, c->peer_restarts,
                               c->hellos_rx, c->messages_delivered, board_uart_dropped()};
    size_t n = text_str(text, 0, "counters");
    for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
        n = text_str(text, text_str(text, n, " "), names[i]);
        n = text_u32(text, text_str(text, n, "="), values[i]);
    }
    text[n++] = '\n';
    board_console_write(text, n);
}

static void run(const char *cmd)
{
    uint32_t v[MAX_NUMBERS];
    int n = numbers(cmd + 1, v, MAX_NUMBERS);
    if (cmd[0] == 'b' && n == 2 && v[0] <= 3 && v[1] >= 1 && v[1] <= 6) {
        app_button((uint8_t)v[0], (uint8_t)v[1]);
    } else if (cmd[0] == 's' && n >= 1 && v[0] <= MJT_FAULT) {
        uint16_t faults[MJT_MAX_FAULTS];
        for (int i = 1; i < n; i++) {
            faults[i - 1] = (uint16_t)v[i];
        }
        app_table_state((uint8_t)v[0], faults, (uint8_t)(n - 1));
    } else if (cmd[0] == 'c' && n == 0) {
        counters();
    } else if (cmd[0]) {
        say("? ");
        board_console_write(cmd, strlen(cmd));
        say("\n");
    }
}

void panel_console_feed(const uint8_t *data, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        char c = (char)data[i];
        if (c == '\n' || c == '\r') {
            line[line_len] = 0;
            if (!overflow) {
                run(line);
            }
            line_len = 0;
            overflow = 0;
        } else if (line_len < LINE_MAX_LEN) {
            line[line_len++] = c;
        } else {
            overflow = 1; /* too long: dropped whole, never half-run */
        }
    }
}
