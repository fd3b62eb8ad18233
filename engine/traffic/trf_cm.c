/* trf: htsim connection matrices (.cm: flows started at a time or by triggers,
 * triggers fired by flows that finish) as task graphs; the reader follows
 * csg-htsim's sim/datacenter/connection_matrix.cpp and sim/trigger.cpp. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base_err.h"
#include "base/base_file.h"
#include "traffic/trf.h"

#define CM_MAX_TOK 32

enum { CM_ONESHOT = 1, CM_MULTISHOT = 2, CM_BARRIER = 3 };

typedef struct cm_flow_t {
  int32_t src, dst, line;
  uint64_t bytes;                                  /* 0: not given */
  int64_t start;                                   /* ps; -1: not given */
  int64_t trigger, send_done, recv_done, prio, id; /* 0 / -1: not given */
  int open; /* size 0: sends until the experiment's end */
} cm_flow_t;

typedef struct cm_trig_t {
  int64_t id, count;
  int32_t type, line;
} cm_trig_t;

typedef struct cm_t {
  const char *path;
  int line;
  int64_t nodes, conns, trigs; /* header; -1: absent */
  int32_t n_flows, cap_flows, n_trigs, cap_trigs;
  cm_flow_t *f;
  cm_trig_t *t;
  char *err;
  size_t errlen;
} cm_t;

static int cm_err(cm_t *c, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int cm_err(cm_t *c, int line, const char *fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (line > 0)
    base_errf(c->err, c->errlen, "%s:%d: %s", c->path, line, msg);
  else
    base_errf(c->err, c->errlen, "%s: %s", c->path, msg);
  return -1;
}

/* A whole non-negative integer in [min, max] ("2000000", "2e6"); -1 if not. */
static int cm_int(const char *s, int64_t min, int64_t max, int64_t *v) {
  int64_t x = s ? base_dec_scaled(s, 0) : -1;
  if (x < min || x > max) return -1;
  *v = x;
  return 0;
}

/* The value after key tok[*i]: an integer in [min, max], not given before. */
static int cm_value(cm_t *c, char **tok, int n, int *i, int64_t min, int64_t max, int64_t *v,
                    int64_t unset) {
  const char *key = tok[*i];
  if (*v != unset) return cm_err(c, c->line, "%s given twice", key);
  if (++*i >= n) return cm_err(c, c->line, "%s needs a value", key);
  if (cm_int(tok[*i], min, max, v))
    return cm_err(c, c->line, "%s '%s': expected an integer in [%lld, %lld]", key, tok[*i],
                  (long long)min, (long long)max);
  return 0;
}

static int cm_flow(cm_t *c, char **tok, int n, const topo_t *t) {
  cm_flow_t f = {.line = c->line, .start = -1, .prio = -1};
  int64_t src, dst, bytes = -1;
  char *arrow = strstr(tok[0], "->");
  *arrow = 0;
  if (cm_int(tok[0], 0, INT32_MAX, &src) || cm_int(arrow + 2, 0, INT32_MAX, &dst))
    return cm_err(c, c->line, "expected SRC->DST with node numbers, got '%s->%s'", tok[0],
                  arrow + 2);
  for (int i = 1; i < n; i++) {
    const char *k = tok[i];
    int rc = 0;
    if (strcmp(k, "start") == 0) {
      if (f.start >= 0) return cm_err(c, c->line, "start given twice");
      if (++i >= n) return cm_err(c, c->line, "start needs a value");
      if ((f.start = base_dec_scaled(tok[i], 0)) == BASE_DEC_TOO_LARGE || f.start > TRF_MAX_START_PS)
        return cm_err(c, c->line, "start '%s' is past 1e18 ps (1e6 s), the latest start", tok[i]);
      if (f.start < 0)
        return cm_err(c, c->line, "start '%s': expected a whole number of ps >= 0", tok[i]);
    } else if (strcmp(k, "size") == 0) { /* 0: htsim's flow without end (no set_flowsize) */
      rc = cm_value(c, tok, n, &i, 0, (int64_t)TRF_MAX_BYTES, &bytes, -1);
      f.open = bytes == 0;
    } else if (strcmp(k, "id") == 0) {
      rc = cm_value(c, tok, n, &i, 1, INT32_MAX, &f.id, 0);
    } else if (strcmp(k, "trigger") == 0) {
      rc = cm_value(c, tok, n, &i, 1, UINT32_MAX, &f.trigger, 0);
    } else if (strcmp(k, "send_done_trigger") == 0) {
      rc = cm_value(c, tok, n, &i, 1, UINT32_MAX, &f.send_done, 0);
    } else if (strcmp(k, "recv_done_trigger") == 0) {
      rc = cm_value(c, tok, n, &i, 1, UINT32_MAX, &f.recv_done, 0);
    } else if (strcmp(k, "prio") == 0) { /* htsim reads it with stoi */
      rc = cm_value(c, tok, n, &i, 0, INT32_MAX, &f.prio, -1);
    } else if (strcmp(k, "addon") != 0) { /* parsed and unused by htsim */
      return cm_err(c, c->line,
                    "unknown token '%s' (start, trigger, size, id, "
                    "send_done_trigger, recv_done_trigger, prio, addon)",
                    k);
    }
    if (rc) return -1;
  }
  if (bytes < 0) return cm_err(c, c->line, "a flow needs size BYTES (0: until the end)");
  if (f.open) bytes = TRF_MAX_BYTES; /* more than it sends before the end */
  if (f.start < 0 && !f.trigger) return cm_err(c, c->line, "a flow needs start PS or trigger ID");
  if (f.start >= 0 && f.trigger)
    return cm_err(c, c->line, "a flow has start and trigger: give one");
  for (int e = 0; e < 2; e++) {
    int64_t v = e ? dst : src;
    if (v >= c->nodes)
      return cm_err(c, c->line, "node %lld: the file has Nodes %lld (0..%lld)", (long long)v,
                    (long long)c->nodes, (long long)c->nodes - 1);
    if (v >= t->n_nodes || t->is_switch[v])
      return cm_err(c, c->line,
                    "node %lld is not a host of the topology (htsim's node i is "
                    "topology node i: hosts must be numbered first)",
                    (long long)v);
  }
  if (src == dst) return cm_err(c, c->line, "a flow from node %lld to itself", (long long)src);
  f.src = (int32_t)src;
  f.dst = (int32_t)dst;
  f.bytes = (uint64_t)bytes;
  if (c->n_flows == c->cap_flows) {
    int32_t cap = c->cap_flows ? 2 * c->cap_flows : 64;
    cm_flow_t *p = realloc(c->f, (size_t)cap * sizeof *p);
    if (!p) return cm_err(c, c->line, "out of memory");
    c->f = p;
    c->cap_flows = cap;
  }
  c->f[c->n_flows++] = f;
  return 0;
}

static int cm_trigger(cm_t *c, char **tok, int n) {
  cm_trig_t g = {.line = c->line};
  for (int i = 1; i < n; i++) {
    int type = strcmp(tok[i], "oneshot") == 0     ? CM_ONESHOT
               : strcmp(tok[i], "multishot") == 0 ? CM_MULTISHOT
               : strcmp(tok[i], "barrier") == 0   ? CM_BARRIER
                                                  : 0;
    if (type) {
      if (g.type) return cm_err(c, c->line, "a trigger has one type");
      g.type = type;
    } else if (strcmp(tok[i], "id") == 0) {
      if (cm_value(c, tok, n, &i, 1, UINT32_MAX, &g.id, 0)) return -1;
    } else if (strcmp(tok[i], "count") == 0) {
      if (cm_value(c, tok, n, &i, 1, INT32_MAX, &g.count, 0)) return -1;
    } else {
      return cm_err(c, c->line, "unknown token '%s' (id, oneshot, multishot, barrier, count)",
                    tok[i]);
    }
  }
  if (!g.id) return cm_err(c, c->line, "a trigger needs id ID (> 0)");
  if (!g.type) return cm_err(c, c->line, "a trigger needs a type: oneshot, multishot or barrier");
  if (g.type == CM_BARRIER && !g.count) return cm_err(c, c->line, "a barrier needs count C (> 0)");
  if (c->n_trigs == c->cap_trigs) {
    int32_t cap = c->cap_trigs ? 2 * c->cap_trigs : 16;
    cm_trig_t *p = realloc(c->t, (size_t)cap * sizeof *p);
    if (!p) return cm_err(c, c->line, "out of memory");
    c->t = p;
    c->cap_trigs = cap;
  }
  c->t[c->n_trigs++] = g;
  return 0;
}

/* Header lines (before the first flow or trigger) and body lines. */
static int cm_line(cm_t *c, char **tok, int n, int *body, const topo_t *t) {
  static const char *const head[] = {"Nodes", "Connections", "Triggers", "Failures"};
  for (int h = 0; h < 4; h++) {
    if (strcmp(tok[0], head[h]) != 0) continue;
    if (*body) return cm_err(c, c->line, "%s after the first connection or trigger", tok[0]);
    int64_t v;
    if (n != 2 || cm_int(tok[1], 0, INT32_MAX, &v))
      return cm_err(c, c->line, "expected '%s COUNT'", tok[0]);
    if (h == 3 && v > 0) return cm_err(c, c->line, "link failures are not supported");
    if (h == 0) {
      if (v > t->n_hosts)
        return cm_err(c, c->line, "Nodes %lld but the topology has %d hosts", (long long)v,
                      t->n_hosts);
      c->nodes = v;
    }
    if (h == 1) c->conns = v;
    if (h == 2) c->trigs = v;
    return 0;
  }
  if (c->nodes < 0 || c->conns < 0)
    return cm_err(c, c->line, "expected the header 'Nodes N' and 'Connections M' first");
  *body = 1;
  if (strstr(tok[0], "->")) return cm_flow(c, tok, n, t);
  if (strcmp(tok[0], "trigger") == 0) return cm_trigger(c, tok, n);
  if (strcmp(tok[0], "failure") == 0) return cm_err(c, c->line, "link failures are not supported");
  return cm_err(c, c->line, "unknown line '%s' (SRC->DST ..., trigger ...)", tok[0]);
}

static int cm_parse(cm_t *c, const topo_t *t) {
  char why[128];
  FILE *fp = base_fopen_input(c->path, "r", why, sizeof why);
  if (!fp) return cm_err(c, 0, "cannot open: %s", why);
  char *buf = NULL, *tok[CM_MAX_TOK];
  size_t cap = 0;
  int body = 0, rc = 0;
  for (ssize_t len; rc == 0 && (len = getline(&buf, &cap, fp)) >= 0;) {
    c->line++;
    if (memchr(buf, '\0', (size_t)len)) {
      rc = cm_err(c, c->line, "a NUL byte: this is not a text file");
      break;
    }
    int n = 0;
    for (char *p = strtok(buf, " \t\r\n"); p; p = strtok(NULL, " \t\r\n"))
      if (n < CM_MAX_TOK)
        tok[n++] = p;
      else
        rc = cm_err(c, c->line, "more than %d tokens", CM_MAX_TOK);
    if (rc == 0 && n > 0 && tok[0][0] != '#') rc = cm_line(c, tok, n, &body, t);
  }
  free(buf);
  fclose(fp);
  if (rc) return -1;
  if (c->nodes < 0 || c->conns < 0) return cm_err(c, 0, "no 'Nodes N' and 'Connections M' header");
  if (c->n_flows != c->conns)
    return cm_err(c, 0, "Connections %lld but %d connection lines", (long long)c->conns,
                  c->n_flows);
  if (c->n_trigs != (c->trigs < 0 ? 0 : c->trigs))
    return cm_err(c, 0, "Triggers %lld but %d trigger lines",
                  (long long)(c->trigs < 0 ? 0 : c->trigs), c->n_trigs);
  return 0;
}

/* (id, line, index) of a flow or trigger, sorted to find ids and duplicates. */
typedef struct cm_key_t {
  int64_t id;
  int32_t line, idx;
} cm_key_t;

static int cm_by_id(const void *a, const void *b) {
  const cm_key_t *x = a, *y = b;
  if (x->id != y->id) return x->id < y->id ? -1 : 1;
  return x->line < y->line ? -1 : x->line > y->line;
}

/* Sorted keys of the flows' ids (0: none) or the triggers; a duplicate id is
 * an error at its later line. */
static cm_key_t *cm_keys(cm_t *c, int flows, int32_t *n) {
  int32_t m = 0, cnt = flows ? c->n_flows : c->n_trigs;
  cm_key_t *k = malloc(((size_t)cnt + 1) * sizeof *k);
  if (!k) {
    cm_err(c, 0, "out of memory");
    return NULL;
  }
  for (int32_t i = 0; i < cnt; i++) {
    int64_t id = flows ? c->f[i].id : c->t[i].id;
    if (id) k[m++] = (cm_key_t){id, flows ? c->f[i].line : c->t[i].line, i};
  }
  qsort(k, (size_t)m, sizeof *k, cm_by_id);
  for (int32_t i = 1; i < m; i++)
    if (k[i].id == k[i - 1].id) {
      cm_err(c, k[i].line, "%s id %lld already used on line %d", flows ? "flow" : "trigger",
             (long long)k[i].id, k[i - 1].line);
      free(k);
      return NULL;
    }
  *n = m;
  return k;
}

/* Index of trigger `id` among the sorted keys, or -1. */
static int32_t cm_find(const cm_key_t *k, int32_t n, int64_t id) {
  int32_t lo = 0, hi = n - 1;
  while (lo <= hi) {
    int32_t mid = lo + (hi - lo) / 2;
    if (k[mid].id == id) return k[mid].idx;
    if (k[mid].id < id)
      lo = mid + 1;
    else
      hi = mid - 1;
  }
  return -1;
}

/* Per trigger, in flow order: its signals (flow, event) and its targets. */
typedef struct cm_links_t {
  int32_t *sig_off, *tgt_off; /* (n_trigs + 1) */
  int32_t *sig, *tgt;         /* flow indices; sig_on: tg_on_t of each signal */
  int32_t *sig_on;
} cm_links_t;

static int cm_link(cm_t *c, const cm_key_t *k, int32_t nk, cm_links_t *l) {
  static const char *const what[3] = {"trigger", "send_done_trigger", "recv_done_trigger"};
  int32_t nt = c->n_trigs, *ref = malloc(3 * ((size_t)c->n_flows + 1) * sizeof *ref);
  l->sig_off = calloc((size_t)nt + 2, sizeof *l->sig_off);
  l->tgt_off = calloc((size_t)nt + 2, sizeof *l->tgt_off);
  l->sig = malloc(2 * ((size_t)c->n_flows + 1) * sizeof *l->sig);
  l->sig_on = malloc(2 * ((size_t)c->n_flows + 1) * sizeof *l->sig_on);
  l->tgt = malloc(((size_t)c->n_flows + 1) * sizeof *l->tgt);
  if (!ref || !l->sig_off || !l->tgt_off || !l->sig || !l->sig_on || !l->tgt) {
    free(ref);
    return cm_err(c, 0, "out of memory");
  }
  for (int32_t i = 0; i < c->n_flows; i++) {
    const cm_flow_t *f = &c->f[i];
    int64_t ids[3] = {f->trigger, f->send_done, f->recv_done};
    for (int r = 0; r < 3; r++) {
      ref[3 * i + r] = ids[r] ? cm_find(k, nk, ids[r]) : -1;
      if (ids[r] && ref[3 * i + r] < 0) {
        free(ref);
        return cm_err(c, f->line, "%s %lld: no trigger line defines it", what[r],
                      (long long)ids[r]);
      }
      if (ref[3 * i + r] >= 0) (r ? l->sig_off : l->tgt_off)[ref[3 * i + r] + 2]++;
    }
  }
  for (int32_t x = 0; x < nt; x++) { /* offsets shifted by one: filled below */
    l->sig_off[x + 2] += l->sig_off[x + 1];
    l->tgt_off[x + 2] += l->tgt_off[x + 1];
  }
  for (int32_t i = 0; i < c->n_flows; i++)
    for (int r = 0; r < 3; r++) {
      int32_t x = ref[3 * i + r];
      if (x < 0) continue;
      if (r == 0) {
        l->tgt[l->tgt_off[x + 1]++] = i;
      } else {
        l->sig_on[l->sig_off[x + 1]] = r == 1 ? TG_ON_END : TG_ON_RECV;
        l->sig[l->sig_off[x + 1]++] = i;
      }
    }
  free(ref);
  return 0;
}

/* Joins of trigger x, each edged from every signal of the trigger; target
 * flows wait for a join on their own host. */
static int cm_build_trigger(cm_t *c, const cm_links_t *l, int32_t x, int32_t first, tg_t *g) {
  const cm_trig_t *tr = &c->t[x];
  int32_t s0 = l->sig_off[x], signals = l->sig_off[x + 1] - s0;
  int32_t t0 = l->tgt_off[x], targets = l->tgt_off[x + 1] - t0;
  if (!targets) return 0;
  int64_t need = tr->type == CM_MULTISHOT ? targets : tr->type == CM_BARRIER ? tr->count : 1;
  if (signals < need)
    return cm_err(c, tr->line,
                  "trigger %lld gets %d signals (send_done_trigger, "
                  "recv_done_trigger) but needs %lld: flows it starts never would",
                  (long long)tr->id, signals, (long long)need);
  int32_t mine = g->n; /* this trigger's joins: one per target host, or per target */
  for (int32_t q = 0; q < targets; q++) {
    int32_t i = l->tgt[t0 + q], host = c->f[i].src, join = -1;
    for (int32_t y = mine; tr->type != CM_MULTISHOT && y < g->n && join < 0; y++)
      if (g->t[y].host == host) join = y;
    if (join < 0) {
      tg_task_t j = tg_task_default(TG_JOIN);
      j.host = host;
      j.line = tr->line;
      j.need = tr->type == CM_MULTISHOT ? q + 1 : (int32_t)need;
      if ((join = tg_add(g, &j)) < 0) return cm_err(c, 0, "out of memory");
      for (int32_t s = 0; s < signals; s++)
        if (tg_edge(g, join, first + l->sig[s0 + s], (tg_on_t)l->sig_on[s0 + s]))
          return cm_err(c, 0, "out of memory");
    }
    if (tg_edge(g, first + i, join, TG_ON_END)) return cm_err(c, 0, "out of memory");
  }
  return 0;
}

int trf_read_cm(const char *path, const topo_t *t, tg_t *g, char *err, size_t errlen) {
  cm_t c = {.path = path, .nodes = -1, .conns = -1, .trigs = -1, .err = err, .errlen = errlen};
  cm_links_t l = {0};
  cm_key_t *fk = NULL, *tk = NULL;
  int32_t first = g->n, nf = 0, nt = 0;
  int rc = cm_parse(&c, t);
  if (rc == 0 && (!(fk = cm_keys(&c, 1, &nf)) || !(tk = cm_keys(&c, 0, &nt)))) rc = -1;
  if (rc == 0) rc = cm_link(&c, tk, nt, &l);
  for (int32_t i = 0; rc == 0 && i < c.n_flows; i++) {
    const cm_flow_t *f = &c.f[i];
    tg_task_t x = tg_task_default(TG_FLOW);
    x.host = f->src;
    x.dst = f->dst;
    x.bytes = f->bytes;
    x.start = f->start > 0 ? f->start : 0;
    /* htsim's prio is its NDP receivers' pull priority; its RoCE sources ignore it, and
     * so do we: every flow of a matrix travels in the default class */
    x.prio = TRF_PRIO;
    x.line = f->line;
    x.open = f->open;
    if (tg_add(g, &x) < 0) rc = cm_err(&c, 0, "out of memory");
  }
  for (int32_t x = 0; rc == 0 && x < c.n_trigs; x++)
    rc = cm_build_trigger(&c, &l, x, first, g);
  if (rc == 0) tg_assign_ports(g);
  if (rc == 0 && tg_check(g, t, path, err, errlen)) rc = -1;
  free(fk);
  free(tk);
  free(l.sig_off);
  free(l.tgt_off);
  free(l.sig);
  free(l.sig_on);
  free(l.tgt);
  free(c.f);
  free(c.t);
  return rc;
}

int trf_detect(const char *path, char *err, size_t errlen) {
  char why[128];
  FILE *fp = base_fopen_input(path, "r", why, sizeof why);
  if (!fp) {
    snprintf(err, errlen, "%s: cannot open: %s", path, why);
    return -1;
  }
  char buf[4096], word[64] = "";
  int fmt = -1;
  while (fmt < 0 && fgets(buf, sizeof buf, fp)) {
    const char *p = buf + strspn(buf, " \t\r\n");
    if (!*p || *p == '#') continue;
    if (*p == '{' || *p == '[') {
      fmt = TRF_FORMAT_JSON;
      break;
    }
    sscanf(p, "%63s", word);
    if (strstr(word, "->") || strcmp(word, "Nodes") == 0 || strcmp(word, "Connections") == 0 ||
        strcmp(word, "Triggers") == 0 || strcmp(word, "trigger") == 0)
      fmt = TRF_FORMAT_CM;
    else if (word[strspn(word, "0123456789")] == 0)
      fmt = TRF_FORMAT_NS3;
    else
      break;
  }
  fclose(fp);
  if (fmt < 0)
    snprintf(err, errlen,
             "%s: neither an ns-3 flow file (a count first), an htsim connection "
             "matrix (Nodes, Connections, SRC->DST lines) nor a JSON task graph",
             path);
  return fmt;
}
