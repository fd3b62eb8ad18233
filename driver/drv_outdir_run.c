/* An output folder while a run writes it: the marker of a run, INCOMPLETE
 * until every result is in place, SIGINT/SIGTERM reported on stderr, and the
 * staged results moved in at the end. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "driver/drv.h"

/* What the signal handler needs, prepared before it is armed. */
static int out_fd = -1; /* INCOMPLETE, open for appending */
static char out_msg[2][DRV_OUT_PATH_MAX + 200];
static size_t out_len[2];
static struct sigaction out_old[2];

static void out_on_signal(int sig) {
  int i = sig == SIGTERM;
  static const char *const why[2] = {"interrupted by SIGINT\n", "interrupted by SIGTERM\n"};
  if (out_fd >= 0) (void)!write(out_fd, why[i], strlen(why[i]));
  (void)!write(2, out_msg[i], out_len[i]);
  _exit(128 + sig);
}

static void out_arm(const drv_outdir_t *o) {
  static const int sigs[2] = {SIGINT, SIGTERM};
  for (int i = 0; i < 2; i++) {
    int n = snprintf(out_msg[i], sizeof out_msg[i],
                     "multiverse %s: interrupted (%s): the results in %s are incomplete (%s/%s)\n",
                     o->cmd, i ? "SIGTERM" : "SIGINT", o->dir, o->dir, DRV_OUT_INCOMPLETE);
    out_len[i] = n < 0 ? 0 : (size_t)n < sizeof out_msg[i] ? (size_t)n : sizeof out_msg[i] - 1;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = out_on_signal;
    sigemptyset(&sa.sa_mask);
    sigaddset(&sa.sa_mask, SIGINT);
    sigaddset(&sa.sa_mask, SIGTERM);
    sigaction(sigs[i], &sa, &out_old[i]);
  }
}

static void out_disarm(void) {
  sigaction(SIGINT, &out_old[0], NULL);
  sigaction(SIGTERM, &out_old[1], NULL);
}

/* Writes `text` to DIR/name; 0 or -1. */
static int out_write(const char *dir, const char *name, const char *text, int keep_open) {
  char path[DRV_OUT_PATH_MAX + 64];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0666);
  if (fd < 0) return -1;
  size_t n = strlen(text);
  int bad = write(fd, text, n) != (ssize_t)n;
  if (keep_open && !bad) {
    out_fd = fd;
    return 0;
  }
  return close(fd) || bad ? -1 : 0;
}

int drv_outdir_begin(drv_outdir_t *o, int argc, char **argv) {
  if (!o->dir) return 0;
  if (drv_outdir_prepare(o)) return 2;
  char line[4096];
  int n = snprintf(line, sizeof line, "multiverse %s %s", MV_VERSION, o->cmd);
  for (int i = 0; i < argc && n > 0 && (size_t)n < sizeof line - 2; i++)
    n += snprintf(line + n, sizeof line - (size_t)n, " %s", argv[i]);
  if (n < 0 || (size_t)n >= sizeof line - 2) n = (int)sizeof line - 2; /* a long command: cut */
  line[n] = '\n';
  line[n + 1] = '\0';
  char note[DRV_OUT_PATH_MAX + 300];
  snprintf(note, sizeof note,
           "multiverse %s (process %ld) is writing this folder. If this file remains, the run "
           "was interrupted or failed: the results here are incomplete.\n",
           o->cmd, (long)getpid());
  if (!o->no_signals) out_arm(o);
  if (out_write(o->dir, DRV_OUT_MARKER, line, 0) ||
      out_write(o->dir, DRV_OUT_INCOMPLETE, note, 1)) {
    drv_fail(2, "multiverse %s: cannot write in %s: %s\n", o->cmd, o->dir, strerror(errno));
    drv_outdir_end(o, DRV_OUT_NOTHING);
    return 2;
  }
  return 0;
}

/* Moves every staged result into the folder. 0 or -1. */
static int out_move(const drv_outdir_t *o) {
  DIR *d = opendir(o->stage);
  if (!d) return -1;
  int rc = 0;
  char from[DRV_OUT_PATH_MAX + 300], to[DRV_OUT_PATH_MAX + 300];
  for (struct dirent *e; (e = readdir(d));) {
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
    snprintf(from, sizeof from, "%s/%s", o->stage, e->d_name);
    snprintf(to, sizeof to, "%s/%s", o->dir, e->d_name);
    rc |= rename(from, to);
  }
  closedir(d);
  return rc || rmdir(o->stage) ? -1 : 0;
}

int drv_outdir_end(drv_outdir_t *o, int outcome) {
  if (!o->dir) return 0;
  char path[DRV_OUT_PATH_MAX + 64];
  int rc = 0;
  if (outcome == DRV_OUT_DONE && out_move(o))
    rc = drv_fail(2, "multiverse %s: cannot move the results into %s: %s\n", o->cmd, o->dir,
                  strerror(errno));
  sigset_t block, old;
  sigemptyset(&block);
  sigaddset(&block, SIGINT);
  sigaddset(&block, SIGTERM);
  sigprocmask(SIG_BLOCK, &block, &old);
  if (out_fd >= 0) close(out_fd);
  out_fd = -1;
  if (outcome == DRV_OUT_NOTHING) { /* nothing ran: no trace of it */
    snprintf(path, sizeof path, "%s/%s", o->dir, DRV_OUT_MARKER);
    unlink(path);
    snprintf(path, sizeof path, "%s/%s", o->dir, DRV_OUT_INCOMPLETE);
    unlink(path);
    rmdir(o->stage);
    if (o->created) rmdir(o->dir);
  } else if (outcome == DRV_OUT_DONE && !rc) {
    snprintf(path, sizeof path, "%s/%s", o->dir, DRV_OUT_INCOMPLETE);
    unlink(path);
  }
  out_disarm();
  sigprocmask(SIG_SETMASK, &old, NULL);
  return rc;
}

int drv_outdir_stopped(drv_outdir_t *o, int sig) {
  const char *name = sig == SIGINT    ? "SIGINT"
                     : sig == SIGTERM ? "SIGTERM"
                     : sig == SIGUSR1 ? "SIGUSR1"
                                      : "a signal";
  if (!o->dir) return 128 + sig;
  if (out_fd >= 0) dprintf(out_fd, "interrupted by %s\n", name);
  fprintf(stderr, "multiverse %s: interrupted (%s): the results in %s are incomplete (%s/%s)\n",
          o->cmd, name, o->dir, o->dir, DRV_OUT_INCOMPLETE);
  return drv_outdir_end(o, DRV_OUT_FAILED) ? 2 : 128 + sig;
}
