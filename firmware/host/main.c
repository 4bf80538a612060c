/* The core built for a PC: the board's link on a pty (or any tty/file descriptor), for
 * testing the C link against the Python host (tests/firmware/) and for fuzzing.
 *
 *   mjt-host [--echo] [--window N] [--session HEX] [--rto-min MS] [--rto-initial MS]
 *            [--rto-max MS] DEVICE
 *
 * --echo: every delivered message is sent back unchanged (both directions get the same
 * traffic; the Python side checks exactly-once, in-order delivery of the echoes).
 * --rto-*: with --echo, the retransmission timer's floor, start and ceiling (link.h;
 * defaults 20, 250, 2000 ms): a pty's round trip is far below 20 ms, and the lossy tests
 * lower them so a lost frame costs milliseconds.
 * Without --echo: the board application (firmware/core/app.c) with the host board layer:
 * panel lines on stdin, display/LED/dice lines on stdout (see host/panel.c).
 * SIGTERM or SIGINT: print the counters as one JSON line on stderr and exit 0. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "app.h"
#include "board.h"
#include "link.h"
#include "panel_console.h"

static volatile sig_atomic_t stop;
static int line_fd = -1;
static mjt_link echo_link;

static void on_signal(int sig)
{
    (void)sig;
    stop = 1;
}

uint32_t board_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint32_t)((uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u);
}

uint32_t board_random(void)
{
    uint32_t r = 0;
    while (getrandom(&r, sizeof r, 0) != (ssize_t)sizeof r) {
    }
    return r;
}

void board_link_write(const uint8_t *data, size_t len)
{
    while (len) {
        ssize_t n = write(line_fd, data, len);
        if (n < 0) {
            if (errno == EINTR || errno == EAGAIN) {
                continue;
            }
            return; /* the far end went away: the link retransmits when it is back */
        }
        data += n;
        len -= (size_t)n;
    }
}

static void echo_write(void *ctx, const uint8_t *data, size_t len)
{
    (void)ctx;
    board_link_write(data, len);
}

static void print_counters(const mjt_counters *c);

static void echo_deliver(void *ctx, const mjt_msg *m, const uint8_t *payload, size_t len)
{
    (void)ctx;
    if (mjt_link_send(&echo_link, m->type, payload, len) != 0) {
        fprintf(stderr, "echo: send queue full, message lost: state %d, in flight %u, rto %u\n",
                echo_link.state, echo_link.n_inflight, echo_link.rto_ms);
        print_counters(&echo_link.counters);
        exit(3);
    }
}

static void print_counters(const mjt_counters *c)
{
    fprintf(stderr,
            "{\"bad_crc\":%u,\"bad_cobs\":%u,\"runts\":%u,\"oversize\":%u,\"bad_version\":%u,"
            "\"resyncs\":%u,\"frames_tx\":%u,\"frames_rx\":%u,\"messages_sent\":%u,"
            "\"messages_delivered\":%u,\"retransmits\":%u,\"fast_retransmits\":%u,"
            "\"timeouts\":%u,\"duplicates\":%u,\"out_of_window\":%u,\"bad_ack\":%u,"
            "\"unknown_type\":%u,\"bad_payload\":%u,\"no_session\":%u,\"hellos_tx\":%u,"
            "\"hellos_rx\":%u,\"heartbeats_tx\":%u,\"heartbeats_rx\":%u,\"peer_restarts\":%u,"
            "\"failures\":%u,\"rtt_samples\":%u}\n",
            c->bad_crc, c->bad_cobs, c->runts, c->oversize, c->bad_version, c->resyncs,
            c->frames_tx, c->frames_rx, c->messages_sent, c->messages_delivered, c->retransmits,
            c->fast_retransmits, c->timeouts, c->duplicates, c->out_of_window, c->bad_ack,
            c->unknown_type, c->bad_payload, c->no_session, c->hellos_tx, c->hellos_rx,
            c->heartbeats_tx, c->heartbeats_rx, c->peer_restarts, c->failures, c->rtt_samples);
}

static const char usage[] = "usage: %s [--echo] [--window N] [--session HEX] [--rto-min MS] "
                            "[--rto-initial MS] [--rto-max MS] DEVICE\n";

/* A millisecond option: 1..65535, or 0 for a bad value. */
static uint16_t parse_ms(const char *arg)
{
    char *end;
    unsigned long v = strtoul(arg, &end, 10);
    return *end || v > 65535u ? 0 : (uint16_t)v;
}

static int open_line(const char *path)
{
    int fd = open(path, O_RDWR | O_NOCTTY);
    if (fd < 0) {
        perror(path);
        exit(2);
    }
    struct termios t;
    if (tcgetattr(fd, &t) == 0) {
        cfmakeraw(&t);
        cfsetspeed(&t, B115200);
        tcsetattr(fd, TCSANOW, &t);
    }
    return fd;
}

int main(int argc, char **argv)
{
    int echo = 0;
    unsigned window = MJT_WINDOW;
    uint32_t session = 0;
    uint16_t rto[3] = {MJT_RTO_MIN_MS, MJT_RTO_INITIAL_MS, MJT_RTO_MAX_MS};
    const char *rto_opts[3] = {"--rto-min", "--rto-initial", "--rto-max"};
    const char *path = NULL;
    int bad = 0;
    for (int i = 1; i < argc && !bad; i++) {
        int k = 0;
        while (k < 3 && strcmp(argv[i], rto_opts[k])) {
            k++;
        }
        if (!strcmp(argv[i], "--echo")) {
            echo = 1;
        } else if (!strcmp(argv[i], "--window") && i + 1 < argc) {
            window = (unsigned)strtoul(argv[++i], NULL, 10);
        } else if (!strcmp(argv[i], "--session") && i + 1 < argc) {
            session = (uint32_t)strtoul(argv[++i], NULL, 16);
        } else if (k < 3 && i + 1 < argc) {
            rto[k] = parse_ms(argv[++i]);
            bad = !rto[k];
        } else if (argv[i][0] != '-' && !path) {
            path = argv[i];
        } else {
            bad = 1;
        }
    }
    if (bad || !path || rto[0] > rto[1] || rto[1] > rto[2]) {
        fprintf(stderr, usage, argv[0]);
        return 2;
    }
    struct sigaction sa = {.sa_handler = on_signal};
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    line_fd = open_line(path);
    while (!session) {
        session = board_random();
    }
    mjt_link *link;
    if (echo) {
        mjt_link_config cfg = {.window = (uint8_t)window, .role = MJT_ROLE_SIM,
                               .software = "mjt-fw-host echo", .write = echo_write,
                               .deliver = echo_deliver, .rto_min_ms = rto[0],
                               .rto_initial_ms = rto[1], .rto_max_ms = rto[2]};
        mjt_link_init(&echo_link, &cfg, session, board_now_ms());
        link = &echo_link;
    } else {
        link = app_init(session, board_now_ms());
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    struct pollfd fds[2] = {{line_fd, POLLIN, 0}, {echo ? -1 : STDIN_FILENO, POLLIN, 0}};
    uint8_t buf[4096];
    int stdin_open = !echo;
    while (!stop) {
        uint32_t now = board_now_ms();
        if (echo) {
            mjt_link_poll(link, now);
        } else {
            app_poll(now);
        }
        int32_t wait = (int32_t)(mjt_link_next_deadline(link, board_now_ms()) - board_now_ms());
        fds[1].fd = stdin_open ? STDIN_FILENO : -1;
        if (poll(fds, 2, wait < 0 ? 0 : wait > 1000 ? 1000 : wait) < 0) {
            continue; /* EINTR: a signal */
        }
        if (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) {
            ssize_t n = read(line_fd, buf, sizeof buf);
            if (n > 0) {
                mjt_link_receive(link, buf, (size_t)n, board_now_ms());
            } else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
                /* pty master closed: wait for it to come back, like a board whose host is
                 * unplugged (the test closes the line to end a run). */
                struct timespec ts = {0, 20000000};
                nanosleep(&ts, NULL);
            }
        }
        if (stdin_open && (fds[1].revents & (POLLIN | POLLHUP))) {
            ssize_t n = read(STDIN_FILENO, buf, sizeof buf);
            if (n <= 0) {
                stdin_open = 0;
            } else {
                panel_console_feed(buf, (size_t)n);
            }
        }
    }
    print_counters(&link->counters);
    return 0;
}
