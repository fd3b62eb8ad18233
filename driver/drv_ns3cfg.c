/* `multiverse net --ns3-config`: an ns-3 HPCC simulator configuration
 * (scratch/third.cc's KEY value lines) as an experiment: its topology and
 * flow files, the FCT file to write, and the parameters: the preset ns3_hpcc,
 * then each key's value. Keys that change nothing here (outputs we do not
 * write, settings ns-3 reads but never uses) are accepted; every other key we
 * do not model is named, all in one error, and so is every value that is
 * not a whole number in its range (flags exactly 0 or 1), with its line.
 * Paths are as ns-3 reads them: relative to the current directory. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/base_units.h"
#include "base/base_err.h"
#include "base/base_file.h"
#include "driver/drv.h"
#include "sim/eng_num.h"

#define CFG_TOK 64    /* values on one line */
#define CFG_LINES 512 /* non-empty lines (and 64 KiB) */

typedef struct cfg_line_t {
  const char *key;
  int n;                  /* values */
  const char *v[CFG_TOK]; /* tokens after the key */
  int no;                 /* line number */
} cfg_line_t;

/* Keys that change nothing in a run: outputs not written, values ns-3 reads
 * and never uses (DATA_RATE and LINK_DELAY come from the topology; the PFC
 * threshold is always dynamic in its switch MMU; a PAUSE lasts until its
 * RESUME; PINT_* serve CC_MODE 10 only, DCTCP_RATE_AI CC_MODE 8). */
static const char *const cfg_ignored[] = {"TRACE_FILE",
                                          "QLEN_MON_START",
                                          "QLEN_MON_END",
                                          "ENABLE_TRACE",
                                          /* SimAI's monitors' settings (SimAI.conf) */
                                          "MON_START",
                                          "MON_END",
                                          "QP_MON_INTERVAL",
                                          "QLEN_MON_INTERVAL",
                                          "BW_MON_INTERVAL",
                                          "DATA_RATE",
                                          "LINK_DELAY",
                                          "PAUSE_TIME",
                                          "USE_DYNAMIC_PFC_THRESHOLD",
                                          "PINT_LOG_BASE",
                                          "PINT_PROB",
                                          "DCTCP_RATE_AI",
                                          "L2_CHUNK_SIZE"};

/* The parsed configuration: the values we map, by key; problems with values
 * ("PATH:LINE: KEY VALUE: why; ...") in `probs`. */
typedef struct cfg_t {
  cfg_line_t line[CFG_LINES];
  int n;
  const char *path;
  char probs[1536];
} cfg_t;

static const cfg_line_t *cfg_get(const cfg_t *c, const char *key) {
  for (int i = c->n - 1; i >= 0; i--) /* the last one wins, as in ns-3 */
    if (strcmp(c->line[i].key, key) == 0) return &c->line[i];
  return NULL;
}

/* A problem with the value of line l (NULL: the file's). */
static void cfg_prob(cfg_t *c, const cfg_line_t *l, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void cfg_prob(cfg_t *c, const cfg_line_t *l, const char *fmt, ...) {
  size_t used = strlen(c->probs);
  if (used + 8 >= sizeof c->probs) return;
  if (l)
    used += (size_t)snprintf(c->probs + used, sizeof c->probs - used, "%s%s:%d: %s ",
                             used ? "; " : "", c->path, l->no, l->key);
  else
    used += (size_t)snprintf(c->probs + used, sizeof c->probs - used, "%s%s: ", used ? "; " : "",
                             c->path);
  if (used >= sizeof c->probs) return;
  va_list ap;
  va_start(ap, fmt);
  base_verrf(c->probs + used, sizeof c->probs - used, fmt, ap); /* one line */
  va_end(ap);
}

/* The single value of `key`, or `def` when absent (a line without one value
 * is a problem, then def). */
static const char *cfg_val(cfg_t *c, const char *key, const char *def) {
  const cfg_line_t *l = cfg_get(c, key);
  if (!l) return def;
  if (l->n == 1) return l->v[0];
  cfg_prob(c, l, "%s: expected one value", l->n ? "(several values)" : "(no value)");
  return def;
}

/* Integer `key` in [lo, hi], or def. */
static long long cfg_int(cfg_t *c, const char *key, long long def, long long lo, long long hi) {
  const char *v = cfg_val(c, key, NULL);
  long long x = def;
  if (v && eng_num_int(v, lo, hi, &x))
    cfg_prob(c, cfg_get(c, key), "%s: expected an integer from %lld to %lld", v, lo, hi);
  return x;
}

/* Flag `key`: exactly 0 or 1, or def. */
static int cfg_flag(cfg_t *c, const char *key, int def) {
  const char *v = cfg_val(c, key, NULL);
  if (v && strcmp(v, "0") != 0 && strcmp(v, "1") != 0) {
    cfg_prob(c, cfg_get(c, key), "%s: expected 0 or 1", v);
    return def;
  }
  return v ? v[0] == '1' : def;
}

/* Number `key` in [lo, hi], or def. */
static double cfg_real(cfg_t *c, const char *key, double def, double lo, double hi) {
  const char *v = cfg_val(c, key, NULL);
  double x = def;
  if (v && eng_num_real(v, lo, hi, &x))
    cfg_prob(c, cfg_get(c, key), "%s: expected a number from %g to %g", v, lo, hi);
  return x;
}

/* A rate such as "40Mb/s" or "1Gb/s" (RATE_AI, RATE_HAI, MIN_RATE) in Mb/s,
 * or def. */
static double cfg_mbps(cfg_t *c, const char *key, double def) {
  static const char *const units[] = {"Kb/s", "Kbps", "Mb/s", "Mbps", "Gb/s", "Gbps", "b/s", "bps"};
  static const double scale[] = {1e-3, 1e-3, 1, 1, 1e3, 1e3, 1e-6, 1e-6};
  const char *v = cfg_val(c, key, NULL);
  if (!v) return def;
  size_t n = strlen(v);
  for (size_t u = 0; u < sizeof units / sizeof *units; u++) {
    size_t m = strlen(units[u]);
    char num[64];
    double x;
    if (n <= m || n - m >= sizeof num || strcmp(v + n - m, units[u]) != 0) continue;
    snprintf(num, sizeof num, "%.*s", (int)(n - m), v);
    if (eng_num_real(num, 0, 1e15, &x) == 0) return x * scale[u];
    break;
  }
  cfg_prob(c, cfg_get(c, key), "%s: expected a rate such as 40Mb/s (b/s, Kb/s, Mb/s, Gb/s)", v);
  return def;
}

/* Appends one KEY=VALUE to the sets (copied); from[i]: the line it comes
 * from (NULL: derived). */
typedef struct cfg_sets_t {
  const cfg_line_t *from[DRV_NS3_SETS];
} cfg_sets_t;

static int cfg_set(drv_ns3_config_t *o, cfg_sets_t *w, const cfg_line_t *from, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int cfg_set(drv_ns3_config_t *o, cfg_sets_t *w, const cfg_line_t *from, const char *fmt,
                   ...) {
  if (o->n_sets == DRV_NS3_SETS) return -1;
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(o->sets[o->n_sets], sizeof o->sets[0], fmt, ap);
  va_end(ap);
  if (n < 0 || (size_t)n >= sizeof o->sets[0]) return -1;
  w->from[o->n_sets++] = from;
  return 0;
}

/* PARAM=VALUE of key KEY's line (its value as given), or of `def` when absent. */
static int cfg_pass(drv_ns3_config_t *o, cfg_sets_t *w, cfg_t *c, const char *param,
                    const char *key, const char *def) {
  return cfg_set(o, w, cfg_get(c, key), "%s=%s", param, cfg_val(c, key, def));
}

static int cfg_read(const char *path, cfg_t *c, char *buf, size_t cap, char *err, size_t errlen) {
  char why[128];
  FILE *f = base_fopen_input(path, "r", why, sizeof why);
  if (!f) {
    snprintf(err, errlen, "cannot open %s: %s", path, why);
    return -1;
  }
  size_t len = fread(buf, 1, cap - 1, f);
  int big = !feof(f);
  fclose(f);
  if (big) {
    snprintf(err, errlen, "%s: longer than %zu bytes", path, cap - 1);
    return -1;
  }
  buf[len] = 0;
  c->n = 0;
  c->path = path;
  c->probs[0] = '\0';
  int no = 0;
  for (char *p = buf, *ln = p; ln; ln = p) { /* lines, the empty ones counted too */
    p = strchr(ln, '\n');
    if (p) *p++ = '\0';
    no++;
    char *tsave = NULL, *tok = strtok_r(ln, " \t\r", &tsave);
    if (!tok) continue;
    if (c->n == CFG_LINES) {
      snprintf(err, errlen, "%s:%d: more than %d lines with a key", path, no, CFG_LINES);
      return -1;
    }
    cfg_line_t *l = &c->line[c->n++];
    l->key = tok;
    l->no = no;
    l->n = 0;
    while ((tok = strtok_r(NULL, " \t\r", &tsave)) && l->n < CFG_TOK)
      l->v[l->n++] = tok;
  }
  return 0;
}

/* KMIN_MAP / KMAX_MAP / PMAX_MAP: "n rate value ..." into per-rate rows. */
static int cfg_map(const cfg_line_t *l, int64_t *gbps, double *val, int cap) {
  long long n = -1;
  if (!l || l->n < 1 || eng_num_int(l->v[0], 1, cap, &n) || l->n != 1 + 2 * n) return -1;
  for (int i = 0; i < n; i++) {
    double r;
    /* 1 Gb/s to 1 Pb/s, the links' range */
    if (eng_num_real(l->v[1 + 2 * i], 1e9, 1e15, &r)) return -1;
    gbps[i] = (int64_t)(r / BASE_BPS_PER_GBPS);
    if ((double)gbps[i] * BASE_BPS_PER_GBPS != r || gbps[i] < 1) return -1;
    if (eng_num_real(l->v[2 + 2 * i], 0, 1e15, &val[i])) return -1;
  }
  return (int)n;
}

/* The ECN rows: ns-3's KB are 1000 bytes, ours KiB. */
static int cfg_ecn(const cfg_t *c, drv_ns3_config_t *o, cfg_sets_t *w) {
  int64_t g[3][ENG_ECN_ROWS_MAX];
  double v[3][ENG_ECN_ROWS_MAX];
  static const char *maps[3] = {"KMIN_MAP", "KMAX_MAP", "PMAX_MAP"};
  int n = -1;
  for (int m = 0; m < 3; m++) {
    int k = cfg_map(cfg_get(c, maps[m]), g[m], v[m], ENG_ECN_ROWS_MAX);
    if (k < 0 || (n >= 0 && k != n)) return -1;
    n = k;
  }
  char tab[1400] = "{";
  for (int i = 0; i < n; i++) {
    int j = -1, k = -1;
    for (int r = 0; r < n; r++) {
      j = g[1][r] == g[0][i] ? r : j;
      k = g[2][r] == g[0][i] ? r : k;
    }
    if (j < 0 || k < 0) return -1;
    size_t used = strlen(tab);
    snprintf(tab + used, sizeof tab - used, "%s\"%lld\":[%.10g,%.10g,%.10g]", i ? "," : "",
             (long long)g[0][i], v[0][i] * 1000 / 1024, v[1][j] * 1000 / 1024, v[2][k]);
  }
  strncat(tab, "}", sizeof tab - strlen(tab) - 1);
  if (cfg_set(o, w, cfg_get(c, "KMAX_MAP"), "ecn_by_link_gbps=%s", tab)) return -1;
  return cfg_set(o, w, NULL, "ecn_kmin_kb=-1") || cfg_set(o, w, NULL, "ecn_kmax_kb=-1") ||
         cfg_set(o, w, NULL, "ecn_pmax=-1");
}

/* Output files ns-3 (scratch/third.cc) or SimAI writes that are not written here, and
 * what they hold: named in o->unwritten (net refuses them unless --ns3-fct-only; a
 * training job's results are its own). */
static const char *const cfg_outputs[][2] = {
    {"TRACE_OUTPUT_FILE", "ns-3's packet trace and link settings"},
    {"PFC_OUTPUT_FILE", "ns-3's log of PFC pauses"},
    {"QLEN_MON_FILE", "ns-3's queue-length histograms"},
    {"BW_MON_FILE", "SimAI's bandwidth monitor"},
    {"RATE_MON_FILE", "SimAI's rate monitor"},
    {"CNP_MON_FILE", "SimAI's CNP monitor"}};

static void cfg_unwritten(const cfg_t *c, drv_ns3_config_t *o) {
  for (size_t k = 0; k < sizeof cfg_outputs / sizeof *cfg_outputs; k++) {
    const cfg_line_t *l = cfg_get(c, cfg_outputs[k][0]);
    if (!l) continue;
    size_t used = strlen(o->unwritten);
    snprintf(o->unwritten + used, sizeof o->unwritten - used, "%s%s %.200s (%s)",
             used ? ", " : "", l->key, l->n ? l->v[0] : "", cfg_outputs[k][1]);
  }
}

/* Each key: mapped to parameters, accepted as changing nothing, or named as
 * not modelled (in `bad`). */
static void cfg_check_keys(const cfg_t *c, char *bad, size_t len) {
  static const char *const known[] = {"ENABLE_QCN",
                                      "PACKET_PAYLOAD_SIZE",
                                      "TOPOLOGY_FILE",
                                      "FLOW_FILE",
                                      "FCT_OUTPUT_FILE",
                                      "SIMULATOR_STOP_TIME",
                                      "CC_MODE",
                                      "ALPHA_RESUME_INTERVAL",
                                      "RATE_DECREASE_INTERVAL",
                                      "CLAMP_TARGET_RATE",
                                      "RP_TIMER",
                                      "EWMA_GAIN",
                                      "FAST_RECOVERY_TIMES",
                                      "RATE_AI",
                                      "RATE_HAI",
                                      "MIN_RATE",
                                      "ERROR_RATE_PER_LINK",
                                      "L2_ACK_INTERVAL",
                                      "L2_BACK_TO_ZERO",
                                      "HAS_WIN",
                                      "GLOBAL_T",
                                      "VAR_WIN",
                                      "FAST_REACT",
                                      "U_TARGET",
                                      "MI_THRESH",
                                      "INT_MULTI",
                                      "MULTI_RATE",
                                      "SAMPLE_FEEDBACK",
                                      "RATE_BOUND",
                                      "ACK_HIGH_PRIO",
                                      "LINK_DOWN",
                                      "KMAX_MAP",
                                      "KMIN_MAP",
                                      "PMAX_MAP",
                                      "BUFFER_SIZE",
                                      "NIC_TOTAL_PAUSE_TIME"};
  for (int i = 0; i < c->n; i++) {
    int ok = 0;
    for (size_t k = 0; k < sizeof known / sizeof known[0]; k++)
      ok |= strcmp(c->line[i].key, known[k]) == 0;
    for (size_t k = 0; k < sizeof cfg_ignored / sizeof cfg_ignored[0]; k++)
      ok |= strcmp(c->line[i].key, cfg_ignored[k]) == 0;
    for (size_t k = 0; k < sizeof cfg_outputs / sizeof cfg_outputs[0]; k++)
      ok |= strcmp(c->line[i].key, cfg_outputs[k][0]) == 0;
    size_t used = strlen(bad);
    if (!ok) snprintf(bad + used, len - used, "%s%s (unknown)", used ? ", " : "", c->line[i].key);
  }
}

/* A value we do not model: named in `bad`. */
static void cfg_unmodelled(char *bad, size_t len, const char *what) {
  size_t used = strlen(bad);
  snprintf(bad + used, len - used, "%s%s", used ? ", " : "", what);
}

/* The settings applied over the presets as `multiverse net` applies them
 * (job_params_set_list): a refused one is named by its line and key. */
static void cfg_try(cfg_t *c, const drv_ns3_config_t *o, const cfg_sets_t *w,
                    const job_presets_t *ps) {
  static eng_params_t p; /* large: not on the stack */
  const char *kvs[DRV_NS3_SETS];
  char err[1024];
  int bad = -1;
  for (int i = 0; i < o->n_sets; i++)
    kvs[i] = o->sets[i];
  p = ps->defaults;
  if (job_params_set_list(ps, &p, kvs, o->n_sets, &bad, err, sizeof err) == 0 || bad < 0) return;
  const char *why =
      strncmp(err, "--set ", 6) == 0 && strstr(err, ": ") ? strstr(err, ": ") + 2 : err;
  const cfg_line_t *l = w->from[bad];
  size_t key_len = strcspn(kvs[bad], "=");
  if (l)
    cfg_prob(c, l, "%s: %s (as %.*s)", l->n ? l->v[0] : "", why, (int)key_len, kvs[bad]);
  else
    cfg_prob(c, NULL, "%s: %s", kvs[bad], why);
}

int drv_ns3_config(const char *path, const job_presets_t *ps, drv_ns3_config_t *o, char *err,
                   size_t errlen) {
  static char text[1 << 16];
  static cfg_t c;
  cfg_sets_t w;
  char bad[1024] = "";
  memset(o, 0, sizeof *o);
  if (cfg_read(path, &c, text, sizeof text, err, errlen)) return -1;
  cfg_check_keys(&c, bad, sizeof bad);
  const char *topo = cfg_val(&c, "TOPOLOGY_FILE", NULL), *flows = cfg_val(&c, "FLOW_FILE", NULL);
  snprintf(o->topology, sizeof o->topology, "%s", topo ? topo : "");
  snprintf(o->flows, sizeof o->flows, "%s", flows ? flows : "");
  snprintf(o->fct, sizeof o->fct, "%s", cfg_val(&c, "FCT_OUTPUT_FILE", "fct.txt"));
  const cfg_line_t *lt = cfg_get(&c, "TOPOLOGY_FILE"), *lf = cfg_get(&c, "FLOW_FILE"),
                   *lo = cfg_get(&c, "FCT_OUTPUT_FILE");
  o->topology_line = lt ? lt->no : 0;
  o->flows_line = lf ? lf->no : 0;
  o->fct_line = lo ? lo->no : 0;
  long long mode = cfg_int(&c, "CC_MODE", 1, 0, 1000);
  int dcqcn = mode == 1, hpcc = mode == 3;
  /* rdma-hw.cc runs 1, 3, 7 (TIMELY), 8 (DCTCP) and 10 (HPCC-PINT); any other mode (the
   * 12 of ASTRA-sim's ns-3 configurations) matches no algorithm: no congestion control */
  int none = !dcqcn && !hpcc && mode != 7 && mode != 8 && mode != 10;
  if (!dcqcn && !hpcc && !none)
    cfg_unmodelled(bad, sizeof bad, "CC_MODE (7 TIMELY, 8 DCTCP and 10 HPCC-PINT: not modelled)");
  if (cfg_int(&c, "NIC_TOTAL_PAUSE_TIME", 0, 0, 4294967295LL) != 0)
    cfg_unmodelled(bad, sizeof bad, "NIC_TOTAL_PAUSE_TIME above 0 (PCIe pauses of the NIC)");
  /* keys whose default in scratch/third.cc cannot run (no ACKs, an unset
   * timer, a gain of 1 / 16 in integers, no rate) */
  static const char *const needed[] = {"L2_ACK_INTERVAL", "RATE_AI", "RP_TIMER", "EWMA_GAIN",
                                       "RATE_HAI"};
  for (int k = 0; k < (dcqcn ? 5 : 2); k++)
    if (!cfg_get(&c, needed[k])) {
      char m[80];
      snprintf(m, sizeof m, "%s (missing; ns-3's default cannot run)", needed[k]);
      cfg_unmodelled(bad, sizeof bad, m);
    }
  /* ns-3's defaults (scratch/third.cc) for keys a file leaves out */
  int has_win = cfg_flag(&c, "HAS_WIN", 1), global_t = cfg_flag(&c, "GLOBAL_T", 1);
  int var_win = cfg_flag(&c, "VAR_WIN", 0);
  if (cfg_flag(&c, "MULTI_RATE", hpcc) && hpcc)
    cfg_unmodelled(bad, sizeof bad, "MULTI_RATE 1 (one rate per hop)");
  if (cfg_flag(&c, "SAMPLE_FEEDBACK", 0) && hpcc)
    cfg_unmodelled(bad, sizeof bad, "SAMPLE_FEEDBACK 1");
  if (!cfg_flag(&c, "RATE_BOUND", 1)) cfg_unmodelled(bad, sizeof bad, "RATE_BOUND 0");
  if (hpcc && (!has_win || !var_win))
    cfg_unmodelled(bad, sizeof bad, "HPCC without HAS_WIN 1 and VAR_WIN 1");
  /* no algorithm with a window (ASTRA-sim's CC_MODE 12 with HAS_WIN 1): ns-3 sends at
   * line rate, at most the window unacknowledged, and reads no CNP. That is DCQCN
   * whose switches never mark: its rate stays at line rate, its window holds. */
  int win_only = none && has_win;
  if (cfg_flag(&c, "L2_BACK_TO_ZERO", 0)) cfg_unmodelled(bad, sizeof bad, "L2_BACK_TO_ZERO 1");
  long long payload = cfg_int(&c, "PACKET_PAYLOAD_SIZE", 1000, 1, 65000);
  long long ack_iv = cfg_int(&c, "L2_ACK_INTERVAL", 1, 0, 4294967295LL);
  if (ack_iv < 1 || ack_iv > payload)
    cfg_unmodelled(bad, sizeof bad, "L2_ACK_INTERVAL (only an ACK per packet: 1..payload bytes)");
  if (cfg_real(&c, "ERROR_RATE_PER_LINK", 0, 0, 1) != 0)
    cfg_unmodelled(bad, sizeof bad, "ERROR_RATE_PER_LINK (give link loss in the topology)");
  const cfg_line_t *down = cfg_get(&c, "LINK_DOWN");
  long long dv[3] = {0, 0, 0};
  if (down && (down->n != 3 || eng_num_int(down->v[0], 0, INT64_MAX, &dv[0]) ||
               eng_num_int(down->v[1], 0, INT32_MAX, &dv[1]) ||
               eng_num_int(down->v[2], 0, INT32_MAX, &dv[2])))
    cfg_prob(&c, down, "%s: expected TIME_NS NODE NODE, whole numbers (0 0 0: no link down)",
             down->n ? down->v[0] : "");
  else if (dv[0] != 0)
    cfg_unmodelled(bad, sizeof bad, "LINK_DOWN (a link failure)");
  cfg_unwritten(&c, o);
  double ai = cfg_mbps(&c, "RATE_AI", 5), hai = cfg_mbps(&c, "RATE_HAI", 50);
  double min_rate = cfg_mbps(&c, "MIN_RATE", 100);
  int rc = 0;
  const char *cc = hpcc ? "hpcc" : dcqcn || win_only ? "dcqcn" : "none";
  rc |= cfg_set(o, &w, cfg_get(&c, "CC_MODE"), "cc=%s", cc);
  rc |= cfg_set(o, &w, NULL, "preset=ns3_hpcc");
  rc |= cfg_set(o, &w, cfg_get(&c, "PACKET_PAYLOAD_SIZE"), "mtu=%lld", payload);
  rc |= cfg_set(o, &w, cfg_get(&c, "ENABLE_QCN"), "ecn=%s",
                cfg_flag(&c, "ENABLE_QCN", 1) && !win_only ? "true" : "false");
  rc |= cfg_pass(o, &w, &c, "buffer_mb", "BUFFER_SIZE", "16");
  /* SimAI writes 4e13 s to mean no stop: past our limit, the limit (1e6 s) */
  const char *sv = cfg_val(&c, "SIMULATOR_STOP_TIME", NULL);
  double stop = 0;
  if (sv && eng_num_real(sv, 1e6, 1e300, &stop) == 0 && stop > 1e6)
    rc |= cfg_set(o, &w, cfg_get(&c, "SIMULATOR_STOP_TIME"), "max_time_s=1e6");
  else
    rc |= cfg_pass(o, &w, &c, "max_time_s", "SIMULATOR_STOP_TIME", "3.01");
  rc |= cfg_set(o, &w, cfg_get(&c, "ACK_HIGH_PRIO"), "ack_pause=%s",
                cfg_flag(&c, "ACK_HIGH_PRIO", 0) ? "false" : "true");
  if (cfg_get(&c, "KMIN_MAP") || cfg_get(&c, "KMAX_MAP") || cfg_get(&c, "PMAX_MAP")) {
    if (cfg_ecn(&c, o, &w))
      cfg_unmodelled(bad, sizeof bad, "KMIN_MAP/KMAX_MAP/PMAX_MAP (whole Gb/s, the same rates)");
  }
  /* the other mode's keys: unused, still numbers */
  static const char *const dcqcn_keys[] = {"ALPHA_RESUME_INTERVAL", "RATE_DECREASE_INTERVAL",
                                           "RP_TIMER", "EWMA_GAIN", "FAST_RECOVERY_TIMES"};
  static const char *const hpcc_keys[] = {"U_TARGET", "MI_THRESH", "INT_MULTI"};
  for (size_t k = 0; !dcqcn && k < sizeof dcqcn_keys / sizeof *dcqcn_keys; k++)
    cfg_real(&c, dcqcn_keys[k], 0, -1e300, 1e300);
  for (size_t k = 0; !hpcc && k < sizeof hpcc_keys / sizeof *hpcc_keys; k++)
    cfg_real(&c, hpcc_keys[k], 0, -1e300, 1e300);
  int fast_react = cfg_flag(&c, "FAST_REACT", 1);
  if (dcqcn) {
    rc |= cfg_pass(o, &w, &c, "dcqcn_alpha_timer_us", "ALPHA_RESUME_INTERVAL", "55");
    rc |= cfg_pass(o, &w, &c, "dcqcn_dec_interval_us", "RATE_DECREASE_INTERVAL", "4");
    rc |= cfg_pass(o, &w, &c, "dcqcn_rate_inc_timer_us", "RP_TIMER", "1500");
    rc |= cfg_pass(o, &w, &c, "dcqcn_g", "EWMA_GAIN", "0.0625");
    rc |= cfg_pass(o, &w, &c, "dcqcn_fast_steps", "FAST_RECOVERY_TIMES", "5");
    rc |= cfg_set(o, &w, cfg_get(&c, "CLAMP_TARGET_RATE"), "dcqcn_clamp_target=%s",
                  cfg_flag(&c, "CLAMP_TARGET_RATE", 0) ? "true" : "false");
    rc |= cfg_set(o, &w, cfg_get(&c, "RATE_AI"), "dcqcn_rate_ai_mbps=%.17g", ai);
    rc |= cfg_set(o, &w, cfg_get(&c, "RATE_HAI"), "dcqcn_rate_hai_mbps=%.17g", hai);
    rc |= cfg_set(o, &w, cfg_get(&c, "MIN_RATE"), "dcqcn_min_rate_mbps=%.17g", min_rate);
    rc |= cfg_set(o, &w, cfg_get(&c, "VAR_WIN"), "dcqcn_var_window=%s", var_win ? "true" : "false");
    /* a window: each pair's BDP, or with GLOBAL_T the network's largest */
    o->dcqcn_global_window = has_win && global_t;
    rc |= cfg_set(o, &w, cfg_get(&c, "HAS_WIN"), "dcqcn_window_kb=%s", has_win ? "-1" : "0");
  } else if (win_only) {
    o->dcqcn_global_window = global_t;
    rc |= cfg_set(o, &w, cfg_get(&c, "HAS_WIN"), "dcqcn_window_kb=-1");
  } else if (hpcc) {
    rc |= cfg_set(o, &w, cfg_get(&c, "RATE_AI"), "hpcc_ai_mbps=%.17g", ai);
    rc |= cfg_set(o, &w, cfg_get(&c, "MIN_RATE"), "hpcc_min_rate_mbps=%.17g", min_rate);
    rc |= cfg_pass(o, &w, &c, "hpcc_eta", "U_TARGET", "0.95");
    rc |= cfg_pass(o, &w, &c, "hpcc_max_stage", "MI_THRESH", "5");
    rc |= cfg_set(o, &w, cfg_get(&c, "FAST_REACT"), "hpcc_fast_react=%s",
                  fast_react ? "true" : "false");
    rc |= cfg_pass(o, &w, &c, "hpcc_int_multi", "INT_MULTI", "1");
    rc |= cfg_set(o, &w, cfg_get(&c, "GLOBAL_T"), "hpcc_global_t=%s", global_t ? "true" : "false");
  }
  if (rc) {
    snprintf(err, errlen, "%s: too many settings", path);
    return -1;
  }
  if (!c.probs[0] && ps) cfg_try(&c, o, &w, ps);
  if (c.probs[0]) { /* values first: an unsupported key may only be misread */
    snprintf(err, errlen, "%s", c.probs);
    return -1;
  }
  if (*bad) {
    snprintf(err, errlen, "%s: not supported: %s", path, bad);
    return -1;
  }
  return 0;
}

int drv_ns3_files(const drv_ns3_config_t *o, const char *path, char *err, size_t errlen) {
  static const char *const keys[2] = {"TOPOLOGY_FILE", "FLOW_FILE"};
  const char *files[2] = {o->topology, o->flows};
  const int lines[2] = {o->topology_line, o->flows_line};
  struct stat st;
  char why[2400];
  for (int i = 0; i < 2; i++) {
    const char *bad = stat(files[i], &st)    ? strerror(errno)
                      : !S_ISREG(st.st_mode) ? "not a regular file"
                                             : NULL;
    if (bad) {
      snprintf(err, errlen, "%s:%d: %s %s: %s", path, lines[i], keys[i], files[i], bad);
      return -1;
    }
  }
  const char *inputs[3] = {path, o->topology, o->flows};
  if (!o->fct_line && stat(o->fct, &st) == 0) {
    snprintf(err, errlen,
             "%s: no FCT_OUTPUT_FILE, and %s (ns-3's default) exists: name the file to write", path,
             o->fct);
    return -1;
  }
  if (drv_out_why(o->fct, inputs, 3, why, sizeof why)) {
    if (o->fct_line)
      snprintf(err, errlen, "%s:%d: FCT_OUTPUT_FILE %s: %s", path, o->fct_line, o->fct, why);
    else
      snprintf(err, errlen, "%s: FCT_OUTPUT_FILE %s (ns-3's default): %s", path, o->fct, why);
    return -1;
  }
  return 0;
}

int drv_ns3_settings(const char *path, const job_presets_t *ps, drv_ns3_config_t *o, char *err,
                     size_t errlen) {
  if (drv_ns3_config(path, ps, o, err, errlen)) return -1;
  if (o->dcqcn_global_window) {
    snprintf(err, errlen,
             "%.*s: DCQCN with HAS_WIN 1 and GLOBAL_T 1 (one window, the network's largest BDP) is "
             "not applied to training jobs: give GLOBAL_T 0 (each pair's BDP) or HAS_WIN 0",
             (int)(errlen > 400 ? errlen - 400 : 1), path);
    return -1;
  }
  return 0;
}

int drv_train_network(const job_presets_t *ps, const char *base_dir, eng_params_t *p,
                      const json_t *net, const char *const *skip, const char *where, char *err,
                      size_t errlen) {
  const json_t *f = json_object_get(net, "ns3_config");
  if (f) {
    static drv_ns3_config_t cfg; /* large: not on the stack; one experiment at a time */
    const char *name = json_string_value(f);
    char path[4096], e[2400];
    const char *kvs[DRV_NS3_SETS];
    int bad = -1;
    if (!name || !*name) {
      snprintf(err, errlen, "%s.ns3_config: must be a file name (an ns-3 or SimAI configuration)",
               where);
      return -1;
    }
    snprintf(path, sizeof path, "%s%s%s", name[0] == '/' || !base_dir ? "" : base_dir,
             name[0] == '/' || !base_dir ? "" : "/", name);
    if (drv_ns3_settings(path, ps, &cfg, e, sizeof e)) {
      snprintf(err, errlen, "%s.ns3_config: %s", where, e);
      return -1;
    }
    for (int i = 0; i < cfg.n_sets; i++)
      kvs[i] = cfg.sets[i];
    if (job_params_set_list(ps, p, kvs, cfg.n_sets, &bad, e, sizeof e)) {
      snprintf(err, errlen, "%s.ns3_config: %.1000s: %.1200s", where, path, e);
      return -1;
    }
  }
  return job_params_apply(ps, p, net, skip, where, err, errlen);
}

int drv_train_apply(const void *ctx, eng_params_t *p, const json_t *net, const char *const *skip,
                    const char *where, char *err, size_t errlen) {
  const drv_train_net_t *t = ctx;
  return drv_train_network(t->ps, t->base_dir, p, net, skip, where, err, errlen);
}
