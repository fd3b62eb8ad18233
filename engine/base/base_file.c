/* base: input files are regular files (base_file.h). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/base_err.h"
#include "base/base_file.h"

static const char *file_kind(mode_t m) {
  return S_ISDIR(m)                 ? "a folder, not a regular file"
         : S_ISCHR(m) || S_ISBLK(m) ? "a device, not a regular file"
         : S_ISFIFO(m)              ? "a pipe, not a regular file"
                                    : "not a regular file";
}

FILE *base_fopen_input(const char *path, const char *mode, char *why, size_t len) {
  struct stat st;
  if (base_input_regular(path, why, len)) return NULL; /* before fopen: a pipe would block it */
  FILE *f = fopen(path, mode);
  if (!f) {
    snprintf(why, len, "%s", strerror(errno));
    return NULL;
  }
  if (fstat(fileno(f), &st) == 0 && !S_ISREG(st.st_mode)) {
    snprintf(why, len, "%s", file_kind(st.st_mode));
    fclose(f);
    return NULL;
  }
  return f;
}

int base_input_regular(const char *path, char *why, size_t len) {
  struct stat st;
  if (stat(path, &st) != 0 || S_ISREG(st.st_mode)) return 0;
  snprintf(why, len, "%s", file_kind(st.st_mode));
  return -1;
}

/* *buf: a private, NUL-terminated copy of text[0..len), or -1 with a message. */
static int text_copy(const char *path, const char *text, size_t len, char **buf, char *err,
                     size_t errlen) {
  const char *nul = memchr(text, '\0', len);
  *buf = NULL;
  if (nul) {
    int line = 1;
    for (const char *p = text; p < nul; p++)
      line += *p == '\n';
    base_errf(err, errlen, "%s:%d: a NUL byte: this is not a text file", path, line);
    return -1;
  }
  *buf = malloc(len + 1);
  if (!*buf) {
    base_errf(err, errlen, "%s: out of memory", path);
    return -1;
  }
  memcpy(*buf, text, len);
  (*buf)[len] = '\0';
  return 0;
}

int base_text_open(base_text_t *f, const char *path, const char *text, size_t len, char *err,
                   size_t errlen) {
  *f = (base_text_t){.path = path};
  if (text_copy(path, text, len, &f->buf, err, errlen)) return -1;
  f->len = len;
  return 0;
}

int base_text_tokens(base_text_t *f, char **tok, int max) {
  while (f->pos < f->len) {
    char *s = f->buf + f->pos, *e = memchr(s, '\n', f->len - f->pos);
    if (!e) e = f->buf + f->len;
    *e = '\0';
    f->pos = (size_t)(e - f->buf) + 1;
    f->line++;
    int n = 0;
    for (char *p = s;;) {
      while (*p == ' ' || *p == '\t' || *p == '\r')
        *p++ = '\0';
      if (!*p) break;
      if (n < max) tok[n] = p;
      n++;
      while (*p && *p != ' ' && *p != '\t' && *p != '\r')
        p++;
    }
    if (n) return n;
  }
  return -1;
}
