/* Job files: the `samples` points, drawn from a counter-based generator keyed by
 * (seed, key, draw number), so one job gives the same points on any machine. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "job_sweep_int.h"

/* splitmix64's finaliser (Steele, Lea, Flood 2014): a bijective 64-bit mixer. */
static uint64_t mix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

/* 64-bit FNV-1a of a string. */
static uint64_t fnv1a(const char *s) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (; *s; s++)
    h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
  return h;
}

/* Draw number `draw` of the key with hash `key`. */
static uint64_t draw_bits(uint64_t seed, uint64_t key, uint64_t draw) {
  return mix64(mix64(mix64(seed) ^ key) ^ draw);
}

/* Uniform integer in [0, n) from 64 random bits (multiply-high: no modulo bias
 * beyond 2^-64). */
static uint64_t below(uint64_t bits, uint64_t n) {
  return (uint64_t)(((unsigned __int128)bits * n) >> 64);
}

/* Value of sample axis ax in draw number `draw` (new reference). */
static json_t *draw_value(const job_sweep_t *sw, const job_axis_t *ax, uint64_t draw) {
  uint64_t bits = draw_bits(sw->seed, fnv1a(ax->path), draw);
  double u = (double)(bits >> 11) * 0x1.0p-53; /* [0, 1) */
  switch (ax->dist) {
  case JOB_DIST_UNIFORM: {
    double v = ax->lo + u * (ax->hi - ax->lo);
    return json_real(v > ax->hi ? ax->hi : v);
  }
  case JOB_DIST_LOG: {
    /* 12 significant digits: the last bits of exp() and log() may differ
     * between C libraries; the rounded value does not (but at rare ties). */
    double v = exp(log(ax->lo) + u * (log(ax->hi) - log(ax->lo)));
    char buf[64];
    snprintf(buf, sizeof buf, "%.12g", v);
    v = strtod(buf, NULL);
    return json_real(v < ax->lo ? ax->lo : v > ax->hi ? ax->hi : v);
  }
  case JOB_DIST_INT:
    return json_integer(
        (int64_t)((uint64_t)ax->ilo + below(bits, (uint64_t)ax->ihi - (uint64_t)ax->ilo + 1)));
  case JOB_DIST_CHOICE:
    return json_deep_copy(json_array_get(ax->values, below(bits, json_array_size(ax->values))));
  default:
    abort();
  }
}

/* Open-addressing set of point texts, to keep the points distinct. */
typedef struct seen_t {
  size_t cap;
  uint64_t *hash;
  char **text;
} seen_t;

/* Adds text (taking it) unless present; returns 1 if added. */
static int seen_add(seen_t *s, char *text) {
  uint64_t h = fnv1a(text) | 1;
  size_t i = (size_t)(h & (s->cap - 1));
  for (; s->hash[i]; i = (i + 1) & (s->cap - 1))
    if (s->hash[i] == h && strcmp(s->text[i], text) == 0) {
      free(text);
      return 0;
    }
  s->hash[i] = h;
  s->text[i] = text;
  return 1;
}

int job_draw_samples(job_sweep_t *sw, job_sweep_errs_t *errs) {
  if (sw->sample_factor < 0) return 0;
  seen_t s = {.cap = 16};
  while (s.cap < 2 * (size_t)sw->n_samples)
    s.cap *= 2;
  s.hash = calloc(s.cap, sizeof *s.hash);
  s.text = calloc(s.cap, sizeof *s.text);
  if (!s.hash || !s.text) abort();
  sw->points = json_array();
  /* Draws stop at n distinct points; all-discrete axes were checked to have at
   * least n, so only a bound against a broken generator is needed. */
  uint64_t limit = 1000 * (uint64_t)sw->n_samples + 1000000;
  uint64_t draw = 0;
  for (; (int64_t)json_array_size(sw->points) < sw->n_samples && draw < limit; draw++) {
    json_t *pt = json_array();
    for (int a = 0; a < sw->n_axes; a++)
      if (sw->axes[a].src == JOB_SRC_SAMPLE)
        json_array_append_new(pt, draw_value(sw, &sw->axes[a], draw));
    char *text = json_dumps(pt, JSON_COMPACT);
    if (seen_add(&s, text))
      json_array_append_new(sw->points, pt);
    else
      json_decref(pt);
  }
  sw->dropped += (int64_t)draw - (int64_t)json_array_size(sw->points);
  for (size_t i = 0; i < s.cap; i++)
    free(s.text[i]);
  free(s.hash);
  free(s.text);
  if ((int64_t)json_array_size(sw->points) < sw->n_samples) {
    job_err(errs, sw->file, "sweep.samples.n", "only %zu distinct points in %llu draws",
            json_array_size(sw->points), (unsigned long long)draw);
    return 1;
  }
  return 0;
}
