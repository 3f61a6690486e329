/*
 * Loaded into redis-server with LD_PRELOAD by redis-restart-fsync.ts: wraps fdatasync(2), the
 * call Redis's background thread makes on Linux for `appendfsync everysec`, to log when each
 * call started and ended and which file it synced (OXMQ_FSYNC_LOG), and optionally to make the
 * syncs of the AOF's incremental file take OXMQ_FSYNC_DELAY_MS longer, as on a busy disk. The data
 * is synced as usual. Each call logs two lines: "<start> - <file>" when it begins (so a test can
 * see a sync in progress) and "<start> <end> <file>" when it returns.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static long long now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_REALTIME, &t);
  return t.tv_sec * 1000LL + t.tv_nsec / 1000000;
}

int fdatasync(int fd) {
  static int (*real_fdatasync)(int) = NULL;
  if (!real_fdatasync) real_fdatasync = (int (*)(int))dlsym(RTLD_NEXT, "fdatasync");
  char link[64], target[512];
  snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  ssize_t n = readlink(link, target, sizeof target - 1);
  target[n > 0 ? n : 0] = '\0';
  long long start = now_ms();
  const char *log = getenv("OXMQ_FSYNC_LOG");
  if (log) {
    int out = open(log, O_WRONLY | O_APPEND | O_CREAT, 0644);
    if (out >= 0) {
      dprintf(out, "%lld - %s\n", start, target);
      close(out);
    }
  }
  const char *delay = getenv("OXMQ_FSYNC_DELAY_MS");
  if (delay && strstr(target, ".incr.aof")) {
    long ms = atol(delay);
    struct timespec pause = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&pause, NULL);
  }
  int rc = real_fdatasync(fd);
  if (log) {
    int out = open(log, O_WRONLY | O_APPEND | O_CREAT, 0644);
    if (out >= 0) {
      dprintf(out, "%lld %lld %s\n", start, now_ms(), target);
      close(out);
    }
  }
  return rc;
}
