/* Network parameters: defaults from the presets file, `key=value` overrides,
 * checks, canonical text (for experiment ids) and per-port ECN resolution.
 * Sizes: _kb keys are KiB, _mb keys are MiB. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "sim/eng_params.h"

typedef enum {
  KIND_INT,      /* int32 */
  KIND_BYTES_KB, /* int64 bytes, given in KiB; negative: -1 */
  KIND_BYTES_MB, /* int64 bytes, given in MiB */
  KIND_REAL,     /* double */
  KIND_MBPS,     /* double bit/s, given in Mb/s */
  KIND_BOOL,     /* int32 0/1 */
  KIND_PS_US,    /* int64 ps, given in us */
  KIND_PS_S,     /* int64 ps, given in s */
  KIND_LB,
  KIND_CC, /* a preset name (jobs/presets/network.json cc_presets) or none */
} param_kind_t;

/* Every key `--set` and the job file accept, in canonical (sorted) order. */
typedef struct param_key_t {
  const char *name;
  param_kind_t kind;
  size_t off;
} param_key_t;

#define OFF(f) offsetof(eng_params_t, f)
static const param_key_t keys[] = {
    {"ack_every", KIND_INT, OFF(ack_every)},
    {"buffer_mb", KIND_BYTES_MB, OFF(buffer)},
    {"cc", KIND_CC, OFF(ccp.kind)},
    {"ctrl_bytes", KIND_INT, OFF(ctrl_bytes)},
    {"dcqcn_alpha_timer_us", KIND_PS_US, OFF(ccp.alpha_timer)},
    {"dcqcn_byte_counter_kb", KIND_BYTES_KB, OFF(ccp.byte_counter)},
    {"dcqcn_clamp_target", KIND_BOOL, OFF(ccp.clamp_target)},
    {"dcqcn_cnp_interval_us", KIND_PS_US, OFF(ccp.cnp_interval)},
    {"dcqcn_dec_interval_us", KIND_PS_US, OFF(ccp.dec_interval)},
    {"dcqcn_fast_steps", KIND_INT, OFF(ccp.fast_steps)},
    {"dcqcn_g", KIND_REAL, OFF(ccp.g)},
    {"dcqcn_min_rate_mbps", KIND_MBPS, OFF(ccp.min_rate)},
    {"dcqcn_rate_ai_mbps", KIND_MBPS, OFF(ccp.rate_ai)},
    {"dcqcn_rate_hai_mbps", KIND_MBPS, OFF(ccp.rate_hai)},
    {"dcqcn_rate_inc_timer_us", KIND_PS_US, OFF(ccp.inc_timer)},
    {"dcqcn_var_window", KIND_BOOL, OFF(ccp.var_window)},
    {"dcqcn_window_kb", KIND_BYTES_KB, OFF(ccp.window)},
    {"dctcp_g", KIND_REAL, OFF(ccp.dctcp_g)},
    {"dctcp_init_cwnd_kb", KIND_BYTES_KB, OFF(ccp.init_cwnd)},
    {"ecn", KIND_BOOL, OFF(ecn)},
    {"ecn_kmax_kb", KIND_BYTES_KB, OFF(ecn_kmax)},
    {"ecn_kmin_kb", KIND_BYTES_KB, OFF(ecn_kmin)},
    {"ecn_pmax", KIND_REAL, OFF(ecn_pmax)},
    {"flowlet_gap_us", KIND_PS_US, OFF(flowlet_gap)},
    {"header", KIND_INT, OFF(header)},
    {"host_slots", KIND_INT, OFF(host_slots)},
    {"hpcc_ai_mbps", KIND_MBPS, OFF(ccp.hpcc_ai)},
    {"hpcc_eta", KIND_REAL, OFF(ccp.eta)},
    {"hpcc_fast_react", KIND_BOOL, OFF(ccp.fast_react)},
    {"hpcc_max_stage", KIND_INT, OFF(ccp.max_stage)},
    {"lb", KIND_LB, OFF(lb)},
    {"max_time_s", KIND_PS_S, OFF(max_time)},
    {"mtu", KIND_INT, OFF(mtu)},
    {"pfc", KIND_BOOL, OFF(pfc)},
    {"pfc_alpha", KIND_REAL, OFF(pfc_alpha)},
    {"pfc_resume_kb", KIND_BYTES_KB, OFF(pfc_resume)},
    {"pfc_xoff_kb", KIND_BYTES_KB, OFF(pfc_xoff)},
    {"pool_pkts", KIND_INT, OFF(pool_pkts)},
    {"reorder", KIND_BOOL, OFF(reorder)},
    {"ring_cap", KIND_INT, OFF(ring_cap)},
    {"rto_us", KIND_PS_US, OFF(rto)},
    {"sync_us", KIND_PS_US, OFF(sync)},
};
#define N_KEYS (sizeof keys / sizeof keys[0])

static const param_key_t *param_find(const char *name) {
  for (size_t i = 0; i < N_KEYS; i++)
    if (strcmp(keys[i].name, name) == 0) return &keys[i];
  return NULL;
}

/* Sets key k from a number (or -1 meaning "derive"); scaled to the stored unit. */
static int param_set_number(eng_params_t *p, const param_key_t *k, double v, char *err,
                            size_t errlen) {
  char *base = (char *)p + k->off;
  switch (k->kind) {
  case KIND_INT:
    if (v != floor(v) || fabs(v) > 2e9) goto bad;
    *(int32_t *)base = (int32_t)v;
    return 0;
  case KIND_BYTES_KB:
    *(int64_t *)base = v < 0 ? -1 : (int64_t)llround(v * 1024.0);
    return 0;
  case KIND_BYTES_MB:
    *(int64_t *)base = (int64_t)llround(v * 1048576.0);
    return 0;
  case KIND_REAL:
    *(double *)base = v;
    return 0;
  case KIND_MBPS:
    *(double *)base = v < 0 ? -1 : v * 1e6;
    return 0;
  case KIND_BOOL:
    if (v != 0 && v != 1) goto bad;
    *(int32_t *)base = (int32_t)v;
    return 0;
  case KIND_PS_US:
    *(int64_t *)base = (int64_t)llround(v * 1e6);
    return 0;
  case KIND_PS_S:
    *(int64_t *)base = (int64_t)llround(v * 1e12);
    return 0;
  default:
    goto bad;
  }
bad:
  snprintf(err, errlen, "%s: bad value %g", k->name, v);
  return -1;
}

static const char *const cc_names[] = {"none", "dcqcn", "dctcp", "hpcc"};

/* cc=NAME: "none", or a preset, which sets the CC parameters and possibly the
 * switches' ECN thresholds. */
static int params_apply_preset(eng_params_t *p, const char *name, char *err, size_t errlen) {
  if (strcmp(name, "none") == 0) {
    p->ccp.kind = CC_NONE;
    return 0;
  }
  for (int i = 0; i < p->n_cc_presets; i++) {
    const eng_cc_preset_t *q = &p->cc_presets[i];
    if (strcmp(q->name, name) != 0) continue;
    p->ccp = q->cc;
    if (q->ecn_kmin != -2) p->ecn_kmin = q->ecn_kmin;
    if (q->ecn_kmax != -2) p->ecn_kmax = q->ecn_kmax;
    if (q->ecn_pmax != -2) p->ecn_pmax = q->ecn_pmax;
    return 0;
  }
  int n = snprintf(err, errlen, "cc: unknown congestion control '%s' (none", name);
  for (int i = 0; i < p->n_cc_presets && n > 0 && (size_t)n < errlen; i++)
    n += snprintf(err + n, errlen - (size_t)n, ", %s", p->cc_presets[i].name);
  if (n > 0 && (size_t)n < errlen) snprintf(err + n, errlen - (size_t)n, ")");
  return -1;
}

static int param_set_text(eng_params_t *p, const param_key_t *k, const char *s, char *err,
                          size_t errlen) {
  char *base = (char *)p + k->off;
  if (k->kind == KIND_LB) {
    if (strcmp(s, "ecmp") == 0)
      *(eng_lb_t *)base = ENG_LB_ECMP;
    else if (strcmp(s, "spray") == 0)
      *(eng_lb_t *)base = ENG_LB_SPRAY;
    else if (strcmp(s, "adaptive") == 0)
      *(eng_lb_t *)base = ENG_LB_ADAPTIVE;
    else
      goto bad;
    return 0;
  }
  if (k->kind == KIND_CC) return params_apply_preset(p, s, err, errlen);
  if (k->kind == KIND_BOOL) {
    if (strcmp(s, "true") == 0 || strcmp(s, "on") == 0 || strcmp(s, "1") == 0)
      *(int32_t *)base = 1;
    else if (strcmp(s, "false") == 0 || strcmp(s, "off") == 0 || strcmp(s, "0") == 0)
      *(int32_t *)base = 0;
    else
      goto bad;
    return 0;
  }
  errno = 0;
  char *end;
  double v = strtod(s, &end);
  if (end == s || *end || errno || !isfinite(v)) goto bad;
  return param_set_number(p, k, v, err, errlen);
bad:
  if (k->kind == KIND_LB)
    snprintf(err, errlen, "lb: unknown load balancing '%s' (ecmp, spray, adaptive)", s);
  else
    snprintf(err, errlen, "%s: bad value '%s'", k->name, s);
  return -1;
}

static int params_ecn_table(const char *path, json_t *tab, eng_params_t *p, char *err,
                            size_t errlen) {
  const char *speed;
  json_t *row;
  p->n_ecn_rows = 0;
  json_object_foreach(tab, speed, row) {
    if (p->n_ecn_rows == ENG_ECN_ROWS_MAX || !json_is_array(row) || json_array_size(row) != 3) {
      snprintf(err, errlen, "%s: ecn_by_link_gbps.%s: expected [kmin_KB, kmax_KB, pmax]", path,
               speed);
      return -1;
    }
    eng_ecn_row_t *r = &p->ecn_table[p->n_ecn_rows++];
    r->gbps = atoll(speed);
    r->kmin = (int64_t)llround(json_number_value(json_array_get(row, 0)) * 1024.0);
    r->kmax = (int64_t)llround(json_number_value(json_array_get(row, 1)) * 1024.0);
    r->pmax = json_number_value(json_array_get(row, 2));
  }
  /* Rows by ascending speed (JSON object order is not numeric). */
  for (int i = 1; i < p->n_ecn_rows; i++)
    for (int j = i; j > 0 && p->ecn_table[j - 1].gbps > p->ecn_table[j].gbps; j--) {
      eng_ecn_row_t t = p->ecn_table[j];
      p->ecn_table[j] = p->ecn_table[j - 1];
      p->ecn_table[j - 1] = t;
    }
  return 0;
}

static int param_set_json(eng_params_t *p, const param_key_t *k, json_t *v, char *err,
                          size_t errlen) {
  if (json_is_string(v)) return param_set_text(p, k, json_string_value(v), err, errlen);
  if (json_is_boolean(v)) return param_set_number(p, k, json_is_true(v), err, errlen);
  if (json_is_number(v)) return param_set_number(p, k, json_number_value(v), err, errlen);
  snprintf(err, errlen, "%s: bad type", k->name);
  return -1;
}

/* cc_presets: {"name": {"kind": "dcqcn", "dcqcn_g": ..., "ecn_kmin_kb": ...}} or
 * {"alias": "name"}; each value is a --set key. */
static int params_cc_presets(const char *path, json_t *obj, eng_params_t *p, char *err,
                             size_t errlen) {
  const char *name;
  json_t *pre;
  char sub[256];
  json_object_foreach(obj, name, pre) {
    if (p->n_cc_presets == ENG_CC_PRESETS_MAX || strlen(name) >= sizeof p->cc_presets[0].name) {
      snprintf(err, errlen, "%s: cc_presets.%s: too many presets or name too long", path, name);
      return -1;
    }
    eng_cc_preset_t *q = &p->cc_presets[p->n_cc_presets];
    if (json_is_string(pre)) { /* an alias of an earlier preset */
      int found = 0;
      for (int i = 0; i < p->n_cc_presets && !found; i++)
        if (strcmp(p->cc_presets[i].name, json_string_value(pre)) == 0) {
          *q = p->cc_presets[i];
          found = 1;
        }
      if (!found) {
        snprintf(err, errlen, "%s: cc_presets.%s: no earlier preset '%s'", path, name,
                 json_string_value(pre));
        return -1;
      }
      snprintf(q->name, sizeof q->name, "%s", name);
      p->n_cc_presets++;
      continue;
    }
    eng_params_t scratch;
    memset(&scratch, 0, sizeof scratch);
    scratch.ecn_kmin = scratch.ecn_kmax = -2;
    scratch.ecn_pmax = -2;
    const char *kind = json_string_value(json_object_get(pre, "kind"));
    int k = -1;
    for (int i = 0; kind && i < (int)(sizeof cc_names / sizeof cc_names[0]); i++)
      if (strcmp(cc_names[i], kind) == 0) k = i;
    if (k <= 0) {
      snprintf(err, errlen, "%s: cc_presets.%s.kind: expected \"dcqcn\", \"dctcp\" or \"hpcc\"",
               path, name);
      return -1;
    }
    scratch.ccp.kind = k;
    const char *key;
    json_t *v;
    json_object_foreach(pre, key, v) {
      if (strcmp(key, "kind") == 0 || strcmp(key, "source") == 0) continue;
      const param_key_t *pk = param_find(key);
      if (!pk || pk->kind == KIND_CC || param_set_json(&scratch, pk, v, sub, sizeof sub)) {
        snprintf(err, errlen, "%s: cc_presets.%s.%s: %s", path, name, key,
                 pk ? sub : "unknown key");
        return -1;
      }
    }
    snprintf(q->name, sizeof q->name, "%s", name);
    q->cc = scratch.ccp;
    q->ecn_kmin = scratch.ecn_kmin;
    q->ecn_kmax = scratch.ecn_kmax;
    q->ecn_pmax = scratch.ecn_pmax;
    p->n_cc_presets++;
  }
  return 0;
}

int eng_params_defaults(const char *path, eng_params_t *p, char *err, size_t errlen) {
  json_error_t je;
  memset(p, 0, sizeof *p);
  json_t *root = json_load_file(path, 0, &je);
  if (!root) {
    snprintf(err, errlen, "%s:%d: %s", path, je.line, je.text);
    return -1;
  }
  int rc = -1;
  json_t *pre = json_object_get(root, "cc_presets");
  if (!json_is_object(pre)) {
    snprintf(err, errlen, "%s: cc_presets: missing object", path);
    goto done;
  }
  if (params_cc_presets(path, pre, p, err, errlen)) goto done;
  json_t *defs = json_object_get(root, "defaults");
  if (!json_is_object(defs)) {
    snprintf(err, errlen, "%s: defaults: missing object", path);
    goto done;
  }
  for (size_t i = 0; i < N_KEYS; i++) {
    if (strncmp(keys[i].name, "dcqcn_", 6) == 0 || strncmp(keys[i].name, "dctcp_", 6) == 0 ||
        strncmp(keys[i].name, "hpcc_", 5) == 0)
      continue; /* set by cc presets */
    json_t *v = json_object_get(defs, keys[i].name);
    char sub[256];
    if (!v) {
      snprintf(err, errlen, "%s: defaults.%s: missing", path, keys[i].name);
      goto done;
    }
    if (param_set_json(p, &keys[i], v, sub, sizeof sub)) {
      snprintf(err, errlen, "%s: defaults.%s", path, sub);
      goto done;
    }
  }
  json_t *tab = json_object_get(root, "ecn_by_link_gbps");
  if (!json_is_object(tab)) {
    snprintf(err, errlen, "%s: ecn_by_link_gbps: missing object", path);
    goto done;
  }
  rc = params_ecn_table(path, tab, p, err, errlen);
done:
  json_decref(root);
  return rc;
}

int eng_params_set(eng_params_t *p, const char *kv, char *err, size_t errlen) {
  const char *eq = strchr(kv, '=');
  char name[64];
  if (!eq || eq == kv || (size_t)(eq - kv) >= sizeof name) {
    snprintf(err, errlen, "--set %s: expected KEY=VALUE", kv);
    return -1;
  }
  memcpy(name, kv, (size_t)(eq - kv));
  name[eq - kv] = 0;
  const param_key_t *k = param_find(name);
  if (!k) {
    snprintf(err, errlen, "--set %s: unknown key '%s' (see README: network parameters)", kv, name);
    return -1;
  }
  char sub[256];
  if (param_set_text(p, k, eq + 1, sub, sizeof sub)) {
    snprintf(err, errlen, "--set %s", sub);
    return -1;
  }
  return 0;
}

int eng_params_check(const eng_params_t *p, char *err, size_t errlen) {
  const char *why = NULL;
  if (p->mtu < 1 || p->mtu + p->header > 65000)
    why = "mtu: must be 1..65000-header bytes";
  else if (p->header < 0)
    why = "header: must be >= 0";
  else if (p->ctrl_bytes < 1 || p->ctrl_bytes > 65000)
    why = "ctrl_bytes: must be 1..65000";
  else if (p->buffer < p->mtu + p->header)
    why = "buffer_mb: must hold at least one packet";
  else if (p->pool_pkts < 0 || p->host_slots < 1)
    why = "pool_pkts/host_slots: must be positive";
  else if (p->pfc_xoff < 0 || p->pfc_resume < 0)
    why = "pfc_xoff_kb/pfc_resume_kb: must be >= 0";
  else if (!(p->pfc_alpha > 0 && p->pfc_alpha <= 64))
    why = "pfc_alpha: must be in (0, 64]";
  else if (p->ecn_pmax > 1)
    why = "ecn_pmax: must be <= 1";
  else if (p->ecn_kmin >= 0 && p->ecn_kmax >= 0 && p->ecn_kmax < p->ecn_kmin)
    why = "ecn_kmax_kb: must not be below ecn_kmin_kb";
  else if (p->ecn_kmax > ((int64_t)1 << 31))
    why = "ecn_kmax_kb: must be below 2 GiB";
  else if (p->ack_every < 1)
    why = "ack_every: must be >= 1";
  else if (p->rto < 1)
    why = "rto_us: must be > 0";
  else if (p->sync < 1 || p->sync > 1000000000000LL)
    why = "sync_us: must be in (0, 1e6] us";
  else if (p->flowlet_gap < 0)
    why = "flowlet_gap_us: must be >= 0";
  else if (p->max_time < 1 || p->max_time > 1000000000000000000LL)
    why = "max_time_s: must be in (0, 1e6] s";
  else if (p->ring_cap < 0 || (p->ring_cap & (p->ring_cap - 1)))
    why = "ring_cap: must be 0 (derived) or a power of two";
  else if (p->n_ecn_rows == 0 && (p->ecn_kmin < 0 || p->ecn_kmax < 0 || p->ecn_pmax < 0))
    why = "ecn: no ECN table and no explicit ecn_kmin_kb/ecn_kmax_kb/ecn_pmax";
  const cc_params_t *c = &p->ccp;
  if (!why && c->kind == CC_DCQCN) {
    if (!(c->g > 0 && c->g <= 1))
      why = "dcqcn_g: must be in (0, 1]";
    else if (c->alpha_timer < 1 || c->inc_timer < 1)
      why = "dcqcn timers: must be > 0";
    else if (c->byte_counter < 1)
      why = "dcqcn_byte_counter_kb: must be > 0";
    else if (c->fast_steps < 0)
      why = "dcqcn_fast_steps: must be >= 0";
    else if (!(c->rate_ai >= 0 && c->rate_hai >= 0 && c->min_rate >= 1e6))
      why = "dcqcn rates: increases >= 0, dcqcn_min_rate_mbps >= 1";
    else if (c->cnp_interval < 0 || c->dec_interval < 0)
      why = "dcqcn intervals: must be >= 0";
  }
  if (!why && c->kind == CC_HPCC) {
    if (!(c->eta > 0 && c->eta <= 1))
      why = "hpcc_eta: must be in (0, 1]";
    else if (c->max_stage < 0)
      why = "hpcc_max_stage: must be >= 0";
  }
  if (!why && c->kind == CC_DCTCP) {
    if (!(c->dctcp_g > 0 && c->dctcp_g <= 1))
      why = "dctcp_g: must be in (0, 1]";
    else if (c->init_cwnd < 1)
      why = "dctcp_init_cwnd_kb: must be > 0";
  }
  if (why) {
    snprintf(err, errlen, "%s", why);
    return -1;
  }
  return 0;
}

int eng_params_canonical(const eng_params_t *p, char *buf, size_t len) {
  size_t n = 0;
  n += (size_t)snprintf(buf, len, "{");
  for (size_t i = 0; i < N_KEYS; i++) {
    const char *base = (const char *)p + keys[i].off;
    char *at = n < len ? buf + n : NULL;
    size_t room = n < len ? len - n : 0;
    const char *sep = i ? "," : "";
    switch (keys[i].kind) {
    case KIND_INT:
    case KIND_BOOL:
      n += (size_t)snprintf(at, room, "%s\"%s\":%d", sep, keys[i].name, *(const int32_t *)base);
      break;
    case KIND_LB:
      n += (size_t)snprintf(at, room, "%s\"%s\":\"%s\"", sep, keys[i].name,
                            *(const eng_lb_t *)base == ENG_LB_SPRAY      ? "spray"
                            : *(const eng_lb_t *)base == ENG_LB_ADAPTIVE ? "adaptive"
                                                                         : "ecmp");
      break;
    case KIND_CC:
      n += (size_t)snprintf(at, room, "%s\"%s\":\"%s\"", sep, keys[i].name,
                            cc_names[*(const int32_t *)base]);
      break;
    case KIND_REAL:
    case KIND_MBPS:
      n += (size_t)snprintf(at, room, "%s\"%s\":%.17g", sep, keys[i].name, *(const double *)base);
      break;
    default: /* stored as int64 bytes or ps: exact */
      n += (size_t)snprintf(at, room, "%s\"%s\":%lld", sep, keys[i].name,
                            (long long)*(const int64_t *)base);
      break;
    }
    if (strcmp(keys[i].name, "ecn_pmax") == 0) { /* the table, in its sorted place */
      n += (size_t)snprintf(n < len ? buf + n : NULL, n < len ? len - n : 0, ",\"ecn_table\":[");
      for (int r = 0; r < p->n_ecn_rows; r++)
        n += (size_t)snprintf(n < len ? buf + n : NULL, n < len ? len - n : 0,
                              "%s[%lld,%lld,%lld,%.17g]", r ? "," : "",
                              (long long)p->ecn_table[r].gbps, (long long)p->ecn_table[r].kmin,
                              (long long)p->ecn_table[r].kmax, p->ecn_table[r].pmax);
      n += (size_t)snprintf(n < len ? buf + n : NULL, n < len ? len - n : 0, "]");
    }
  }
  n += (size_t)snprintf(n < len ? buf + n : NULL, n < len ? len - n : 0, "}");
  return (int)n;
}

void eng_params_ecn_for(const eng_params_t *p, int64_t rate_bps, int64_t *kmin, int64_t *kmax,
                        double *pmax) {
  const eng_ecn_row_t *row = p->n_ecn_rows ? &p->ecn_table[0] : NULL;
  for (int i = 0; i < p->n_ecn_rows; i++)
    if (p->ecn_table[i].gbps * 1000000000LL <= rate_bps) row = &p->ecn_table[i];
  *kmin = p->ecn_kmin >= 0 ? p->ecn_kmin : row ? row->kmin : 0;
  *kmax = p->ecn_kmax >= 0 ? p->ecn_kmax : row ? row->kmax : 1;
  *pmax = p->ecn_pmax >= 0 ? p->ecn_pmax : row ? row->pmax : 0;
}
