/* A Raspberry Pi's wall clock for tests, by LD_PRELOAD (never in production).
 *
 * MJTABLE_CLOCK_OFFSET_FILE=FILE  the wall clock (CLOCK_REALTIME, gettimeofday, time) is
 *                                 the real one plus the seconds written in FILE (a signed
 *                                 integer; re-read at most every 10 ms, so a test moves the
 *                                 clock by rewriting the file). The monotonic clocks are
 *                                 untouched, as on a Pi whose clock NTP sets or moves.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

typedef int (*clock_gettime_fn)(clockid_t, struct timespec *);

static clock_gettime_fn real_clock_gettime(void) {
    static clock_gettime_fn real;
    if (!real)
        real = (clock_gettime_fn)dlsym(RTLD_NEXT, "clock_gettime");
    return real;
}

static long offset(void) {
    static long cached;
    static struct timespec read_at;
    struct timespec now;
    real_clock_gettime()(CLOCK_MONOTONIC, &now);
    long since_ms = (now.tv_sec - read_at.tv_sec) * 1000 + (now.tv_nsec - read_at.tv_nsec) / 1000000;
    if (read_at.tv_sec != 0 && since_ms < 10)
        return cached;
    read_at = now;
    const char *path = getenv("MJTABLE_CLOCK_OFFSET_FILE");
    if (!path)
        return cached = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return cached;
    char buf[32] = {0};
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n > 0)
        cached = strtol(buf, NULL, 10);
    return cached;
}

int clock_gettime(clockid_t id, struct timespec *ts) {
    int rc = real_clock_gettime()(id, ts);
    if (rc == 0 && (id == CLOCK_REALTIME || id == CLOCK_REALTIME_COARSE))
        ts->tv_sec += offset();
    return rc;
}

int gettimeofday(struct timeval *restrict tv, void *restrict tz) {
    struct timespec ts;
    (void)tz;
    int rc = clock_gettime(CLOCK_REALTIME, &ts);
    if (rc == 0 && tv) {
        tv->tv_sec = ts.tv_sec;
        tv->tv_usec = ts.tv_nsec / 1000;
    }
    return rc;
}

time_t time(time_t *out) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    if (out)
        *out = ts.tv_sec;
    return ts.tv_sec;
}
