/* driver: the output rule (drv_out.h): every file the program writes is
 * checked before any work and written whole under a temporary name, then
 * renamed over its path. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "driver/drv.h"

/* What a file that is not a regular one is, for messages. */
static const char *out_kind(mode_t m) {
  return S_ISDIR(m)                 ? "a folder"
         : S_ISCHR(m) || S_ISBLK(m) ? "a device"
         : S_ISFIFO(m)              ? "a pipe"
         : S_ISSOCK(m)              ? "a socket"
                                    : "not a regular file";
}

/* The folder of `path` into buf ("." when it names none). */
static const char *out_folder(const char *path, char *buf, size_t len) {
  const char *slash = strrchr(path, '/');
  if (!slash) return snprintf(buf, len, "."), buf;
  while (slash > path && slash[-1] == '/') /* "a//b" */
    slash--;
  if (slash == path) return snprintf(buf, len, "/"), buf;
  snprintf(buf, len, "%.*s", (int)(slash - path), path);
  return buf;
}

int drv_out_probe(const char *dir) {
  char path[DRV_OUT_PATH_MAX + 64];
  snprintf(path, sizeof path, "%s/.multiverse-probe-%ld", dir, (long)getpid());
  int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
  if (fd < 0) return errno;
  close(fd);
  unlink(path);
  return 0;
}

int drv_out_why(const char *path, const char *const *inputs, int n, char *why, size_t len) {
  struct stat st, in;
  char dir[DRV_OUT_PATH_MAX + 1];
  size_t plen = strlen(path);
  if (plen == 0 || plen > DRV_OUT_PATH_MAX || path[plen - 1] == '/') {
    snprintf(why, len, "expected a file's path of 1 to %d characters", DRV_OUT_PATH_MAX);
    return -1;
  }
  if (stat(path, &st) == 0) {
    if (!S_ISREG(st.st_mode)) {
      snprintf(why, len, "%s, not a regular file: give a file's path", out_kind(st.st_mode));
      return -1;
    }
    for (int i = 0; i < n; i++)
      if (inputs[i] && stat(inputs[i], &in) == 0 && in.st_dev == st.st_dev &&
          in.st_ino == st.st_ino) {
        if (strcmp(inputs[i], path) == 0)
          snprintf(why, len, "is an input of this command: give another file");
        else
          snprintf(why, len, "is %.2000s, an input of this command: give another file", inputs[i]);
        return -1;
      }
  } else if (errno != ENOENT) {
    snprintf(why, len, "%s", strerror(errno));
    return -1;
  }
  out_folder(path, dir, sizeof dir);
  int err = stat(dir, &st) ? errno : !S_ISDIR(st.st_mode) ? ENOTDIR : drv_out_probe(dir);
  if (err) {
    snprintf(why, len, "cannot write in %.2000s: %s", dir, strerror(err));
    return -1;
  }
  return 0;
}

int drv_out_check(const char *cmd, const char *what, const char *path, const char *const *inputs,
                  int n) {
  char why[2400];
  if (drv_out_why(path, inputs, n, why, sizeof why) == 0) return 0;
  return drv_fail(2, "multiverse %s: %s%s%.3000s: %s\n", cmd, what ? what : "", what ? " " : "",
                  path, why);
}

void drv_out_json_inputs(const json_t *v, const char *base_dir, char **paths, int *n, int max) {
  if (json_is_string(v) && *n < max) {
    const char *s = json_string_value(v);
    char path[DRV_OUT_PATH_MAX + 1];
    struct stat st;
    int bare = s[0] == '/' || !base_dir || strcmp(base_dir, ".") == 0;
    if (!s[0] || strlen(s) > DRV_OUT_PATH_MAX / 2) return;
    snprintf(path, sizeof path, "%s%s%s", bare ? "" : base_dir, bare ? "" : "/", s);
    if (stat(path, &st) == 0 && S_ISREG(st.st_mode) && (paths[*n] = strdup(path))) (*n)++;
  } else if (json_is_array(v)) {
    for (size_t i = 0; i < json_array_size(v); i++)
      drv_out_json_inputs(json_array_get(v, i), base_dir, paths, n, max);
  } else if (json_is_object(v)) {
    const char *key;
    json_t *m;
    json_object_foreach((json_t *)v, key, m) drv_out_json_inputs(m, base_dir, paths, n, max);
  }
}

/* Temporary copies: ".NAME.mvtmp-PID-N" beside the path. */
#define OUT_TMP_TAG ".mvtmp-"

int drv_out_is_tmp(const char *name) {
  return name[0] == '.' && strstr(name, OUT_TMP_TAG) != NULL;
}

int drv_out_open(drv_out_t *o, const char *path, char *err, size_t errlen) {
  static atomic_uint serial; /* a rank's workers write their outputs at once */
  char dir[DRV_OUT_PATH_MAX + 1];
  memset(o, 0, sizeof *o);
  if (strlen(path) > DRV_OUT_PATH_MAX) {
    snprintf(err, errlen, "%.100s...: path too long", path);
    return -1;
  }
  snprintf(o->path, sizeof o->path, "%s", path);
  const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
  out_folder(path, dir, sizeof dir);
  int fd = -1;
  for (int tries = 0; fd < 0 && tries < 100; tries++) {
    snprintf(o->tmp, sizeof o->tmp, "%s/.%.200s" OUT_TMP_TAG "%ld-%u", dir, base, (long)getpid(),
             atomic_fetch_add(&serial, 1u));
    fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL, 0666);
    if (fd < 0 && errno != EEXIST) break;
  }
  if (fd < 0 || !(o->f = fdopen(fd, "w"))) {
    snprintf(err, errlen, "%s: cannot write in %s: %s", path, dir, strerror(errno));
    if (fd >= 0) {
      close(fd);
      unlink(o->tmp);
    }
    return -1;
  }
  return 0;
}

int drv_out_commit(drv_out_t *o, char *err, size_t errlen) {
  int bad = o->f && (ferror(o->f) != 0);
  int saved = errno;
  if (o->f && fclose(o->f)) bad = 1, saved = errno;
  o->f = NULL;
  struct stat st;
  if (bad) {
    snprintf(err, errlen, "%s: cannot write: %s", o->path, strerror(saved));
  } else if (stat(o->path, &st) == 0 && !S_ISREG(st.st_mode)) {
    bad = 1;
    snprintf(err, errlen, "%s: became %s while it was written; left alone", o->path,
             out_kind(st.st_mode));
  } else if (rename(o->tmp, o->path)) {
    bad = 1;
    snprintf(err, errlen, "%s: cannot replace it: %s", o->path, strerror(errno));
  }
  if (bad) unlink(o->tmp);
  return bad ? -1 : 0;
}

void drv_out_abort(drv_out_t *o) {
  if (o->f) fclose(o->f);
  o->f = NULL;
  if (o->tmp[0]) unlink(o->tmp);
}

int drv_out_text(const char *path, const char *text, char *err, size_t errlen) {
  drv_out_t o;
  if (drv_out_open(&o, path, err, errlen)) return -1;
  if (fputs(text, o.f) < 0) {
    snprintf(err, errlen, "%s: cannot write: %s", path, strerror(errno));
    drv_out_abort(&o);
    return -1;
  }
  return drv_out_commit(&o, err, errlen);
}
