/* `multiverse net --ns3-config`: an ns-3 HPCC simulator configuration
 * (scratch/third.cc's KEY value lines) as an experiment: its topology and
 * flow files, the FCT file to write, and the parameters: the preset ns3_hpcc,
 * then each key's value. Keys that change nothing here (outputs we do not
 * write, settings ns-3 reads but never uses) are accepted; every other key we
 * do not model is named, all in one error. Paths are as ns-3 reads them:
 * relative to the current directory. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver/drv.h"

#define CFG_TOK 64 /* values on one line */

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
                                          "TRACE_OUTPUT_FILE",
                                          "PFC_OUTPUT_FILE",
                                          "QLEN_MON_FILE",
                                          "QLEN_MON_START",
                                          "QLEN_MON_END",
                                          "ENABLE_TRACE",
                                          "DATA_RATE",
                                          "LINK_DELAY",
                                          "PAUSE_TIME",
                                          "USE_DYNAMIC_PFC_THRESHOLD",
                                          "PINT_LOG_BASE",
                                          "PINT_PROB",
                                          "DCTCP_RATE_AI",
                                          "L2_CHUNK_SIZE"};

/* The parsed configuration: the values we map, by key. */
typedef struct cfg_t {
  cfg_line_t line[128];
  int n;
} cfg_t;

static const cfg_line_t *cfg_get(const cfg_t *c, const char *key) {
  for (int i = c->n - 1; i >= 0; i--) /* the last one wins, as in ns-3 */
    if (strcmp(c->line[i].key, key) == 0) return &c->line[i];
  return NULL;
}

/* The single value of `key`, or `def` when absent. */
static const char *cfg_val(const cfg_t *c, const char *key, const char *def) {
  const cfg_line_t *l = cfg_get(c, key);
  return l && l->n > 0 ? l->v[0] : def;
}

static double cfg_num(const cfg_t *c, const char *key, double def) {
  const char *v = cfg_val(c, key, NULL);
  return v ? strtod(v, NULL) : def;
}

/* A rate such as "40Mb/s" or "1Gb/s" in Mb/s; -1 if malformed. */
static double cfg_mbps(const char *s) {
  char *end;
  double v = strtod(s, &end);
  if (end == s) return -1;
  if (strcmp(end, "Mb/s") == 0 || strcmp(end, "Mbps") == 0) return v;
  if (strcmp(end, "Gb/s") == 0 || strcmp(end, "Gbps") == 0) return v * 1000;
  if (strcmp(end, "Kb/s") == 0 || strcmp(end, "Kbps") == 0) return v / 1000;
  if (strcmp(end, "b/s") == 0 || strcmp(end, "bps") == 0) return v / 1e6;
  return -1;
}

/* Appends one KEY=VALUE to the sets (copied). */
static int cfg_set(drv_ns3_config_t *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int cfg_set(drv_ns3_config_t *o, const char *fmt, ...) {
  if (o->n_sets == DRV_NS3_SETS) return -1;
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(o->sets[o->n_sets], sizeof o->sets[0], fmt, ap);
  va_end(ap);
  if (n < 0 || (size_t)n >= sizeof o->sets[0]) return -1;
  o->n_sets++;
  return 0;
}

static int cfg_read(const char *path, cfg_t *c, char *buf, size_t cap, char *err, size_t errlen) {
  FILE *f = fopen(path, "r");
  if (!f) {
    snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno));
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
  int no = 0;
  for (char *save = NULL, *ln = strtok_r(buf, "\n", &save); ln; ln = strtok_r(NULL, "\n", &save)) {
    no++;
    char *tsave = NULL, *tok = strtok_r(ln, " \t\r", &tsave);
    if (!tok) continue;
    if (c->n == (int)(sizeof c->line / sizeof c->line[0])) {
      snprintf(err, errlen, "%s:%d: too many lines", path, no);
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
  int n = l && l->n > 0 ? atoi(l->v[0]) : -1;
  if (n < 1 || n > cap || l->n != 1 + 2 * n) return -1;
  for (int i = 0; i < n; i++) {
    double r = strtod(l->v[1 + 2 * i], NULL);
    if (!(r >= 1e9 && r <= 1e15)) return -1; /* 1 Gb/s to 1 Pb/s, the links' range */
    gbps[i] = (int64_t)(r / 1e9);
    if ((double)gbps[i] * 1e9 != r || gbps[i] < 1) return -1;
    val[i] = strtod(l->v[2 + 2 * i], NULL);
  }
  return n;
}

/* The ECN rows: ns-3's KB are 1000 bytes, ours KiB. */
static int cfg_ecn(const cfg_t *c, drv_ns3_config_t *o) {
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
  if (cfg_set(o, "ecn_by_link_gbps=%s", tab)) return -1;
  return cfg_set(o, "ecn_kmin_kb=-1") || cfg_set(o, "ecn_kmax_kb=-1") || cfg_set(o, "ecn_pmax=-1");
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
                                      "BUFFER_SIZE"};
  for (int i = 0; i < c->n; i++) {
    int ok = 0;
    for (size_t k = 0; k < sizeof known / sizeof known[0]; k++)
      ok |= strcmp(c->line[i].key, known[k]) == 0;
    for (size_t k = 0; k < sizeof cfg_ignored / sizeof cfg_ignored[0]; k++)
      ok |= strcmp(c->line[i].key, cfg_ignored[k]) == 0;
    size_t used = strlen(bad);
    if (!ok) snprintf(bad + used, len - used, "%s%s (unknown)", used ? ", " : "", c->line[i].key);
  }
}

/* A value we do not model: named in `bad`. */
static void cfg_unmodelled(char *bad, size_t len, const char *what) {
  size_t used = strlen(bad);
  snprintf(bad + used, len - used, "%s%s", used ? ", " : "", what);
}

int drv_ns3_config(const char *path, drv_ns3_config_t *o, char *err, size_t errlen) {
  static char text[1 << 16];
  static cfg_t c;
  char bad[1024] = "";
  memset(o, 0, sizeof *o);
  if (cfg_read(path, &c, text, sizeof text, err, errlen)) return -1;
  cfg_check_keys(&c, bad, sizeof bad);
  const char *topo = cfg_val(&c, "TOPOLOGY_FILE", NULL), *flows = cfg_val(&c, "FLOW_FILE", NULL);
  snprintf(o->topology, sizeof o->topology, "%s", topo ? topo : "");
  snprintf(o->flows, sizeof o->flows, "%s", flows ? flows : "");
  snprintf(o->fct, sizeof o->fct, "%s", cfg_val(&c, "FCT_OUTPUT_FILE", "fct.txt"));
  int mode = atoi(cfg_val(&c, "CC_MODE", "1"));
  int dcqcn = mode == 1, hpcc = mode == 3;
  if (!dcqcn && !hpcc) cfg_unmodelled(bad, sizeof bad, "CC_MODE (only 1 DCQCN and 3 HPCC)");
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
  int has_win = atoi(cfg_val(&c, "HAS_WIN", "1")), global_t = atoi(cfg_val(&c, "GLOBAL_T", "1"));
  int var_win = atoi(cfg_val(&c, "VAR_WIN", "0"));
  if (atoi(cfg_val(&c, "MULTI_RATE", hpcc ? "1" : "0")) && hpcc)
    cfg_unmodelled(bad, sizeof bad, "MULTI_RATE 1 (one rate per hop)");
  if (atoi(cfg_val(&c, "SAMPLE_FEEDBACK", "0")) && hpcc)
    cfg_unmodelled(bad, sizeof bad, "SAMPLE_FEEDBACK 1");
  if (!atoi(cfg_val(&c, "RATE_BOUND", "1"))) cfg_unmodelled(bad, sizeof bad, "RATE_BOUND 0");
  if (hpcc && (!has_win || !var_win))
    cfg_unmodelled(bad, sizeof bad, "HPCC without HAS_WIN 1 and VAR_WIN 1");
  if (atoi(cfg_val(&c, "L2_BACK_TO_ZERO", "0")))
    cfg_unmodelled(bad, sizeof bad, "L2_BACK_TO_ZERO 1");
  int payload = atoi(cfg_val(&c, "PACKET_PAYLOAD_SIZE", "1000"));
  double ack_iv = cfg_num(&c, "L2_ACK_INTERVAL", 1);
  if (ack_iv < 1 || ack_iv > payload)
    cfg_unmodelled(bad, sizeof bad, "L2_ACK_INTERVAL (only an ACK per packet: 1..payload bytes)");
  if (cfg_num(&c, "ERROR_RATE_PER_LINK", 0) != 0)
    cfg_unmodelled(bad, sizeof bad, "ERROR_RATE_PER_LINK (give link loss in the topology)");
  const cfg_line_t *down = cfg_get(&c, "LINK_DOWN");
  if (down && down->n > 0 && atof(down->v[0]) != 0)
    cfg_unmodelled(bad, sizeof bad, "LINK_DOWN (a link failure)");
  if (!topo || !flows) cfg_unmodelled(bad, sizeof bad, "TOPOLOGY_FILE and FLOW_FILE (missing)");
  double ai = cfg_mbps(cfg_val(&c, "RATE_AI", "5Mb/s")),
         hai = cfg_mbps(cfg_val(&c, "RATE_HAI", "50Mb/s"));
  double min_rate = cfg_mbps(cfg_val(&c, "MIN_RATE", "100Mb/s"));
  if (ai < 0 || hai < 0 || min_rate < 0)
    cfg_unmodelled(bad, sizeof bad, "a rate not in Mb/s, Gb/s");
  int rc = 0;
  rc |= cfg_set(o, "cc=%s", hpcc ? "hpcc" : "dcqcn");
  rc |= cfg_set(o, "preset=ns3_hpcc");
  rc |= cfg_set(o, "mtu=%d", payload);
  rc |= cfg_set(o, "ecn=%s", atoi(cfg_val(&c, "ENABLE_QCN", "1")) ? "true" : "false");
  rc |= cfg_set(o, "buffer_mb=%s", cfg_val(&c, "BUFFER_SIZE", "16"));
  rc |= cfg_set(o, "max_time_s=%s", cfg_val(&c, "SIMULATOR_STOP_TIME", "3.01"));
  rc |= cfg_set(o, "ack_pause=%s", atoi(cfg_val(&c, "ACK_HIGH_PRIO", "0")) ? "false" : "true");
  if (cfg_get(&c, "KMIN_MAP") || cfg_get(&c, "KMAX_MAP") || cfg_get(&c, "PMAX_MAP")) {
    if (cfg_ecn(&c, o))
      cfg_unmodelled(bad, sizeof bad, "KMIN_MAP/KMAX_MAP/PMAX_MAP (whole Gb/s, the same rates)");
  }
  if (dcqcn) {
    rc |= cfg_set(o, "dcqcn_alpha_timer_us=%s", cfg_val(&c, "ALPHA_RESUME_INTERVAL", "55"));
    rc |= cfg_set(o, "dcqcn_dec_interval_us=%s", cfg_val(&c, "RATE_DECREASE_INTERVAL", "4"));
    rc |= cfg_set(o, "dcqcn_rate_inc_timer_us=%s", cfg_val(&c, "RP_TIMER", "1500"));
    rc |= cfg_set(o, "dcqcn_g=%s", cfg_val(&c, "EWMA_GAIN", "0.0625"));
    rc |= cfg_set(o, "dcqcn_fast_steps=%s", cfg_val(&c, "FAST_RECOVERY_TIMES", "5"));
    rc |= cfg_set(o, "dcqcn_clamp_target=%s",
                  atoi(cfg_val(&c, "CLAMP_TARGET_RATE", "0")) ? "true" : "false");
    rc |= cfg_set(o, "dcqcn_rate_ai_mbps=%.17g", ai);
    rc |= cfg_set(o, "dcqcn_rate_hai_mbps=%.17g", hai);
    rc |= cfg_set(o, "dcqcn_min_rate_mbps=%.17g", min_rate);
    rc |= cfg_set(o, "dcqcn_var_window=%s", var_win ? "true" : "false");
    /* a window: each pair's BDP, or with GLOBAL_T the network's largest */
    o->dcqcn_global_window = has_win && global_t;
    rc |= cfg_set(o, "dcqcn_window_kb=%s", has_win ? "-1" : "0");
  } else {
    rc |= cfg_set(o, "hpcc_ai_mbps=%.17g", ai);
    rc |= cfg_set(o, "hpcc_min_rate_mbps=%.17g", min_rate);
    rc |= cfg_set(o, "hpcc_eta=%s", cfg_val(&c, "U_TARGET", "0.95"));
    rc |= cfg_set(o, "hpcc_max_stage=%s", cfg_val(&c, "MI_THRESH", "5"));
    rc |= cfg_set(o, "hpcc_fast_react=%s", atoi(cfg_val(&c, "FAST_REACT", "1")) ? "true" : "false");
    rc |= cfg_set(o, "hpcc_int_multi=%s", cfg_val(&c, "INT_MULTI", "1"));
    rc |= cfg_set(o, "hpcc_global_t=%s", global_t ? "true" : "false");
  }
  if (rc) {
    snprintf(err, errlen, "%s: too many settings", path);
    return -1;
  }
  if (*bad) {
    snprintf(err, errlen, "%s: not supported: %s", path, bad);
    return -1;
  }
  return 0;
}
