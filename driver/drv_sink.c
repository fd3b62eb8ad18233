/* driver: the files a command's sink keeps per experiment id in RUNDIR/out
 * (ID.EXT, written by the output rule: whole under a temporary name, then
 * renamed, so a file there is complete), and copying them out at the end. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "driver/drv.h"
#include "driver/drv_run.h"

void drv_sink_path(char *buf, size_t len, const char *dir, uint64_t id, const char *ext) {
  snprintf(buf, len, "%s/%016" PRIx64 ".%s", dir, id, ext);
}

int drv_sink_open(drv_out_t *o, const char *dir, uint64_t id, const char *ext, char *err,
                  size_t errlen) {
  char path[DRV_OUT_PATH_MAX + 1];
  drv_sink_path(path, sizeof path, dir, id, ext);
  return drv_out_open(o, path, err, errlen);
}

int drv_sink_text(const drv_sink_exp_t *ev, const char *ext, const char *text, char *err,
                  size_t errlen) {
  drv_out_t f;
  if (drv_sink_open(&f, ev->out_dir, ev->id, ext, err, errlen)) return -1;
  fprintf(f.f, "%s\n", text);
  return drv_out_commit(&f, err, errlen);
}

int drv_sink_copy(const char *cmd, const char *dir, uint64_t id, const char *ext, const char *to) {
  return drv_sink_place(cmd, dir, id, ext, to, 0, stderr);
}

int drv_sink_place(const char *cmd, const char *dir, uint64_t id, const char *ext, const char *to,
                   int may_link, FILE *msg) {
  char from[DRV_OUT_PATH_MAX + 1], buf[65536], err[2 * DRV_OUT_PATH_MAX];
  drv_sink_path(from, sizeof from, dir, id, ext);
  /* A complete file (the sink renamed it into place) linked where no file is:
   * one operation in place of a copy; else (a file there, another file
   * system, no links there) the copy. */
  if (may_link && link(from, to) == 0) return 0;
  FILE *in = fopen(from, "rb");
  if (!in)
    return drv_fail_to(msg, 2, "multiverse %s: cannot read %s: %s\n", cmd, from, strerror(errno));
  drv_out_t o;
  if (drv_out_open(&o, to, err, sizeof err)) {
    fclose(in);
    return drv_fail_to(msg, 2, "multiverse %s: %s\n", cmd, err);
  }
  size_t n;
  int bad = 0;
  while (!bad && (n = fread(buf, 1, sizeof buf, in)) > 0)
    bad = fwrite(buf, 1, n, o.f) != n;
  bad |= ferror(in);
  fclose(in);
  if (bad) {
    drv_out_abort(&o);
    return drv_fail_to(msg, 2, "multiverse %s: cannot copy %s to %s\n", cmd, from, to);
  }
  return drv_out_commit(&o, err, sizeof err) ? drv_fail_to(msg, 2, "multiverse %s: %s\n", cmd, err)
                                             : 0;
}
