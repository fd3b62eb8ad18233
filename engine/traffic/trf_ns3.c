/* trf: reader of ns-3 HPCC flow files (the count, then `src dst priority dport size
 * start_seconds` per flow), checked against a topology. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base_err.h"
#include "base/base_file.h"
#include "traffic/trf.h"

#define TRF_SPORT0 10000 /* ns-3's first source port of a (src, dst) pair */

/* A decimal integer of digits only, at most max; -1 if not. */
static int parse_uint(const char *s, uint64_t max, uint64_t *v) {
  uint64_t x = 0;
  if (!*s) return -1;
  for (; *s; s++) {
    if (*s < '0' || *s > '9' || x > (max - (uint64_t)(*s - '0')) / 10) return -1;
    x = x * 10 + (uint64_t)(*s - '0');
  }
  *v = x;
  return 0;
}

static int parse_endpoint(const base_text_t *f, const topo_t *t, const char *s, const char *dir,
                          int32_t *v, char *err, size_t errlen) {
  uint64_t x;
  if (parse_uint(s, INT32_MAX, &x) < 0 || x >= (uint64_t)t->n_nodes) {
    base_errf(err, errlen, "%s:%d: node '%s' is not in the topology (nodes 0..%d)", f->path,
              f->line, s, t->n_nodes - 1);
    return -1;
  }
  if (t->is_switch[x]) {
    base_errf(err, errlen, "%s:%d: flow %s switch %d: flows must start and end at hosts", f->path,
              f->line, dir, (int)x);
    return -1;
  }
  *v = (int32_t)x;
  return 0;
}

/* One `src dst priority dport size start_seconds` line. */
static int parse_flow(const base_text_t *f, const topo_t *t, char **tok, int n, trf_flow_t *fl,
                      char *err, size_t errlen) {
  uint64_t prio, dport, bytes;
  if (n != 6) {
    base_errf(err, errlen,
              "%s:%d: expected 'src dst priority dport size start_seconds', found %d fields",
              f->path, f->line, n);
    return -1;
  }
  if (parse_endpoint(f, t, tok[0], "from", &fl->src, err, errlen) < 0 ||
      parse_endpoint(f, t, tok[1], "to", &fl->dst, err, errlen) < 0)
    return -1;
  if (fl->src == fl->dst) {
    base_errf(err, errlen, "%s:%d: flow from node %d to itself", f->path, f->line, fl->src);
    return -1;
  }
  if (parse_uint(tok[2], UINT32_MAX, &prio) < 0 || prio < TRF_PRIO_MIN || prio > TRF_PRIO_MAX) {
    base_errf(err, errlen,
              "%s:%d: priority '%s': a data class %d..%d is accepted (ns-3's queue 0 is for "
              "control packets)",
              f->path, f->line, tok[2], TRF_PRIO_MIN, TRF_PRIO_MAX);
    return -1;
  }
  if (parse_uint(tok[3], 65535, &dport) < 0) {
    base_errf(err, errlen, "%s:%d: dport '%s' is not a port number (0..65535)", f->path, f->line,
              tok[3]);
    return -1;
  }
  if (parse_uint(tok[4], UINT64_MAX, &bytes) < 0 || bytes > TRF_MAX_BYTES) {
    base_errf(err, errlen, "%s:%d: flow size '%s' is not a number of bytes up to 2^40 (1 TiB)",
              f->path, f->line, tok[4]);
    return -1;
  }
  if (bytes == 0) {
    base_errf(err, errlen, "%s:%d: flow size must be > 0", f->path, f->line);
    return -1;
  }
  fl->start_ps = trf_parse_seconds(tok[5]);
  if (fl->start_ps == BASE_DEC_TOO_LARGE || fl->start_ps > TRF_MAX_START_PS) {
    base_errf(err, errlen, "%s:%d: start time '%s' is past 1000000 s (1e6), the latest start",
              f->path, f->line, tok[5]);
    return -1;
  }
  if (fl->start_ps < 0) {
    base_errf(err, errlen, "%s:%d: start time '%s' %s", f->path, f->line, tok[5],
              tok[5][0] == '-' ? "must be >= 0"
                               : "is not a number of seconds with at most 12 decimals (ps)");
    return -1;
  }
  if (topo_distance(t, fl->src, fl->dst) < 0) {
    base_errf(err, errlen, "%s:%d: flow from %d to %d: no path between them", f->path, f->line,
              fl->src, fl->dst);
    return -1;
  }
  fl->prio = (uint32_t)prio;
  fl->dport = (uint32_t)dport;
  fl->bytes = bytes;
  fl->line = f->line;
  return 0;
}

/* sport = 10000 + the number of earlier flows of the same (src, dst), as ns-3 does. */
static int assign_sports(const char *path, trf_flows_t *fl, char *err, size_t errlen) {
  size_t cap = 16;
  while (cap < 2 * (size_t)fl->n)
    cap *= 2;
  uint64_t *key = malloc(cap * sizeof *key); /* (src, dst) + 1; 0 = empty */
  uint32_t *count = malloc(cap * sizeof *count);
  int rc = 0;
  if (!key || !count) {
    base_errf(err, errlen, "%s: out of memory for %d flows", path, fl->n);
    rc = -1;
  }
  if (key) memset(key, 0, cap * sizeof *key);
  for (int32_t i = 0; i < fl->n && rc == 0; i++) {
    trf_flow_t *f = &fl->f[i];
    uint64_t k = ((uint64_t)(uint32_t)f->src << 32 | (uint32_t)f->dst) + 1;
    size_t h = (size_t)((k * 0x9E3779B97F4A7C15ull) >> 20) & (cap - 1);
    while (key[h] && key[h] != k)
      h = (h + 1) & (cap - 1);
    if (!key[h]) {
      key[h] = k;
      count[h] = 0;
    }
    f->sport = TRF_SPORT0 + count[h]++;
    if (f->sport > 65535) {
      base_errf(err, errlen, "%s:%d: more than %d flows from %d to %d: out of source ports", path,
                f->line, 65536 - TRF_SPORT0, f->src, f->dst);
      rc = -1;
    }
  }
  free(key);
  free(count);
  return rc;
}

int trf_parse_ns3(const char *name, const char *text, size_t len, const topo_t *t, trf_flows_t *out,
                  char *err, size_t errlen) {
  base_text_t f;
  char *tok[6];
  uint64_t count;
  int32_t cap = 0; /* flows allocated */
  int count_line;
  memset(out, 0, sizeof *out);
  if (base_text_open(&f, name, text, len, err, errlen) < 0) return -1;
  int n = base_text_tokens(&f, tok, 1);
  if (n == -1) {
    base_errf(err, errlen, "%s:1: empty file: expected the number of flows", name);
    goto fail;
  }
  if (n != 1 || parse_uint(tok[0], INT32_MAX, &count) < 0) {
    base_errf(err, errlen, "%s:%d: expected the number of flows", name, f.line);
    goto fail;
  }
  count_line = f.line;
  while ((n = base_text_tokens(&f, tok, 6)) >= 0) {
    if ((uint64_t)out->n == count) { /* ns-3 reads the announced flows and nothing after */
      out->ignored_lines++;
      continue;
    }
    if (out->n == cap) {
      int64_t grow = cap ? 2 * (int64_t)cap : 1024;
      cap = (int32_t)((uint64_t)grow < count ? (uint64_t)grow : count);
      trf_flow_t *grown = realloc(out->f, (size_t)cap * sizeof *grown);
      if (!grown) {
        base_errf(err, errlen, "%s:%d: out of memory", name, f.line);
        goto fail;
      }
      out->f = grown;
    }
    if (parse_flow(&f, t, tok, n, &out->f[out->n], err, errlen) < 0) goto fail;
    out->n++;
  }
  if ((uint64_t)out->n != count) {
    base_errf(err, errlen, "%s:%d: expected %llu flows, found %d", name, count_line,
              (unsigned long long)count, out->n);
    goto fail;
  }
  if (assign_sports(name, out, err, errlen) < 0) goto fail;
  free(f.buf);
  return 0;
fail:
  free(f.buf);
  trf_free(out);
  return -1;
}

int trf_read_ns3(const char *path, const topo_t *t, trf_flows_t *out, char *err, size_t errlen) {
  char *text;
  size_t len;
  memset(out, 0, sizeof *out);
  if (topo_read_file(path, &text, &len, err, errlen) < 0) return -1;
  int rc = trf_parse_ns3(path, text, len, t, out, err, errlen);
  free(text);
  return rc;
}

void trf_free(trf_flows_t *fl) {
  free(fl->f);
  memset(fl, 0, sizeof *fl);
}
