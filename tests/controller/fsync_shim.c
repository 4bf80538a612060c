/* An SD card and a power cut for tests and benchmarks, by LD_PRELOAD (never in production).
 *
 * MJTABLE_FSYNC_DELAY_US=N   every fsync/fdatasync takes N microseconds longer (an SD card
 *                            syncs in tens of milliseconds; a test machine's disk in < 1).
 * MJTABLE_FSYNC_SNAPSHOT=DIR after each sync of a SQLite database or its -wal, copy both
 *                            into DIR: what a power cut at that moment would leave on disk
 *                            (anything written but not yet synced is lost). The copy is
 *                            taken under a lock, into temporary files renamed into place.
 * MJTABLE_FSYNC_TRACE=FILE   append "<monotonic s> <path>" for every sync (where they come from).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t snapshot_lock = PTHREAD_MUTEX_INITIALIZER;

static void delay(void) {
    const char *us = getenv("MJTABLE_FSYNC_DELAY_US");
    long n = us ? strtol(us, NULL, 10) : 0;
    if (n > 0) {
        struct timespec t = {n / 1000000, (n % 1000000) * 1000};
        while (nanosleep(&t, &t) == -1 && errno == EINTR) {
        }
    }
}

static int copy_file(const char *from, const char *dir, const char *name) {
    char tmp[PATH_MAX], dest[PATH_MAX], buf[65536];
    snprintf(tmp, sizeof tmp, "%s/.%s.tmp", dir, name);
    snprintf(dest, sizeof dest, "%s/%s", dir, name);
    int in = open(from, O_RDONLY | O_CLOEXEC);
    if (in < 0) {
        unlink(dest); /* no such file now (a WAL checkpointed away): none after the cut */
        return 0;
    }
    int out = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (out < 0) {
        close(in);
        return -1;
    }
    ssize_t n;
    while ((n = read(in, buf, sizeof buf)) > 0) {
        if (write(out, buf, (size_t)n) != n) {
            n = -1;
            break;
        }
    }
    close(in);
    close(out);
    return n < 0 ? -1 : rename(tmp, dest);
}

static void trace(const char *path) {
    const char *file = getenv("MJTABLE_FSYNC_TRACE");
    if (!file || !*file) return;
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    char line[PATH_MAX + 64];
    int n = snprintf(line, sizeof line, "%ld.%06ld %s\n", (long)now.tv_sec, now.tv_nsec / 1000, path);
    int out = open(file, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    if (out < 0) return;
    if (n > 0) (void)!write(out, line, (size_t)n);
    close(out);
}

static void snapshot(int fd) {
    char link[64], path[PATH_MAX];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t len = readlink(link, path, sizeof path - 1);
    if (len <= 0) return;
    path[len] = '\0';
    trace(path);
    const char *dir = getenv("MJTABLE_FSYNC_SNAPSHOT");
    if (!dir || !*dir) return;
    size_t plen = (size_t)len;
    if (plen > 4 && strcmp(path + plen - 4, "-wal") == 0) path[plen - 4] = '\0';
    else if (!(plen > 3 && strcmp(path + plen - 3, ".db") == 0)) return;
    char wal[PATH_MAX];
    snprintf(wal, sizeof wal, "%s-wal", path);
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    char wal_name[NAME_MAX + 1];
    snprintf(wal_name, sizeof wal_name, "%s-wal", base);
    pthread_mutex_lock(&snapshot_lock);
    copy_file(path, dir, base);
    copy_file(wal, dir, wal_name);
    pthread_mutex_unlock(&snapshot_lock);
}

int fsync(int fd) {
    static int (*real)(int);
    if (!real) real = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
    int r = real(fd);
    delay();
    if (r == 0) snapshot(fd);
    return r;
}

int fdatasync(int fd) {
    static int (*real)(int);
    if (!real) real = (int (*)(int))dlsym(RTLD_NEXT, "fdatasync");
    int r = real(fd);
    delay();
    if (r == 0) snapshot(fd);
    return r;
}
