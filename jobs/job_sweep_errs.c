/* Job files: the list of problems, dotted paths into JSON objects, and the
 * table of swept keys. */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base_err.h"
#include "job_sweep_int.h"

static void errs_vadd(job_sweep_errs_t *e, const char *fmt, va_list ap) {
  va_list aq;
  va_copy(aq, ap);
  int n = vsnprintf(NULL, 0, fmt, aq);
  va_end(aq);
  if (n < 0) return;
  size_t need = e->len + (size_t)n + 2;
  if (need > e->cap) {
    size_t cap = e->cap ? e->cap : 256;
    while (cap < need)
      cap *= 2;
    char *t = realloc(e->text, cap);
    if (!t) abort();
    e->text = t;
    e->cap = cap;
  }
  vsnprintf(e->text + e->len, (size_t)n + 1, fmt, ap);
  base_oneline(e->text + e->len, n); /* one line, whatever it quotes */
  e->len += (size_t)n;
  e->text[e->len++] = '\n';
  e->text[e->len] = '\0';
  e->n++;
}

void job_sweep_errs_add(job_sweep_errs_t *e, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  errs_vadd(e, fmt, ap);
  va_end(ap);
}

void job_sweep_errs_free(job_sweep_errs_t *e) {
  free(e->text);
  memset(e, 0, sizeof *e);
}

void job_err(job_sweep_errs_t *errs, const char *file, const char *where, const char *fmt, ...) {
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  job_sweep_errs_add(errs, "%s: %s: %s", file, where, msg);
}

json_t *job_sweep_get(const json_t *obj, const char *path) {
  char seg[256];
  const json_t *cur = obj;
  const char *p = path;
  while (cur) {
    const char *dot = strchr(p, '.');
    size_t n = dot ? (size_t)(dot - p) : strlen(p);
    if (n >= sizeof seg || !json_is_object(cur)) return NULL;
    memcpy(seg, p, n);
    seg[n] = '\0';
    cur = json_object_get(cur, seg);
    if (!dot) return (json_t *)cur;
    p = dot + 1;
  }
  return NULL;
}

int job_path_check(const job_sweep_t *sw, const char *where, const char *path,
                   job_sweep_errs_t *errs) {
  size_t n = strlen(path);
  if (n == 0 || n > 200 || path[0] == '.' || path[n - 1] == '.' || strstr(path, "..")) {
    job_err(errs, sw->file, where, "'%s' is not a dotted key such as network.cc", path);
    return -1;
  }
  if (strcmp(path, "kind") == 0) {
    job_err(errs, sw->file, where, "the experiment kind cannot be swept");
    return -1;
  }
  char prefix[256];
  for (size_t i = 0; i < n; i++) {
    if (path[i] != '.') continue;
    memcpy(prefix, path, i);
    prefix[i] = '\0';
    json_t *v = job_sweep_get(sw->base, prefix);
    if (v && !json_is_object(v)) {
      job_err(errs, sw->file, where, "cannot set %s: base.%s is not an object", path, prefix);
      return -1;
    }
  }
  return 0;
}

void job_path_set(json_t *obj, const char *path, json_t *v) {
  char seg[256];
  const char *p = path;
  for (;;) {
    const char *dot = strchr(p, '.');
    size_t n = dot ? (size_t)(dot - p) : strlen(p);
    memcpy(seg, p, n);
    seg[n] = '\0';
    if (!dot) {
      json_object_set_new(obj, seg, json_deep_copy(v));
      return;
    }
    json_t *next = json_object_get(obj, seg);
    if (!json_is_object(next)) {
      next = json_object();
      json_object_set_new(obj, seg, next);
    }
    obj = next;
    p = dot + 1;
  }
}

int job_axis_add(job_sweep_t *sw, const char *path, const char *where, job_src_t src) {
  if (sw->n_axes == sw->cap_axes) {
    sw->cap_axes = sw->cap_axes ? 2 * sw->cap_axes : 16;
    sw->axes = realloc(sw->axes, (size_t)sw->cap_axes * sizeof *sw->axes);
    if (!sw->axes) abort();
  }
  job_axis_t *a = &sw->axes[sw->n_axes];
  memset(a, 0, sizeof *a);
  a->path = strdup(path);
  a->where = strdup(where);
  a->src = src;
  a->factor = -1;
  return sw->n_axes++;
}

int job_axis_find(const job_sweep_t *sw, const char *path) {
  for (int a = 0; a < sw->n_axes; a++)
    if (strcmp(sw->axes[a].path, path) == 0) return a;
  return -1;
}
