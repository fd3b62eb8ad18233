/* Parameter keys, generated from ENG_PARAMS and CC_PARAMS: finding a key,
 * converting a user's value (--set text or job-file JSON) to its stored unit,
 * applying `cc` presets, comparing stored values. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base_err.h"
#include "jobs/job_param_int.h"

/* The storage type each unit implies (checked for every line of the lists). */
#define JOB_T_COUNT int32_t
#define JOB_T_BOOL int32_t
#define JOB_T_KIB int64_t
#define JOB_T_MIB int64_t
#define JOB_T_US int64_t
#define JOB_T_S int64_t
#define JOB_T_REAL double
#define JOB_T_MBPS double
#define JOB_T_Q16 int64_t
#define JOB_T_LB int32_t
#define JOB_T_MODEL int32_t
#define JOB_T_CC cc_params_t
#define JOB_T_ECN_TABLE eng_ecn_table_t

#define JOB_CHECK_NET(A, key, unit, type, field, col, range, doc)                                  \
  _Static_assert(_Generic(((eng_params_t *)0)->field, JOB_T_##unit : 1, default : 0),              \
                 #key ": its storage does not fit its unit " #unit);
#define JOB_CHECK_CC(A, key, unit, type, field, kind, range, doc)                                  \
  _Static_assert(_Generic(((cc_params_t *)0)->field, JOB_T_##unit : 1, default : 0),               \
                 #key ": its storage does not fit its unit " #unit);
ENG_PARAMS(JOB_CHECK_NET, _)
CC_PARAMS(JOB_CHECK_CC, _)

const job_key_t job_keys[] = {
#define JOB_KEY_NET(A, key, unit, type, field, col, range, doc)                                    \
  {#key, JOB_U_##unit, offsetof(eng_params_t, field), CC_NONE},
#define JOB_KEY_CC(A, key, unit, type, field, kind, range, doc)                                    \
  {#key, JOB_U_##unit, offsetof(eng_params_t, ccp) + offsetof(cc_params_t, field), CC_##kind},
    ENG_PARAMS(JOB_KEY_NET, _) CC_PARAMS(JOB_KEY_CC, _)
#undef JOB_KEY_NET
#undef JOB_KEY_CC
};
const int job_n_keys = (int)(sizeof job_keys / sizeof job_keys[0]);

const job_key_t *job_key_find(const char *name) {
  for (int i = 0; i < job_n_keys; i++)
    if (strcmp(job_keys[i].name, name) == 0) return &job_keys[i];
  return NULL;
}

int job_param_known(const char *key) {
  return job_key_find(key) != NULL || strcmp(key, JOB_PRESET_KEY) == 0;
}

const char *const job_cc_names[JOB_CC_KINDS] = {"none", "dcqcn", "dctcp", "hpcc"};
const char *const job_lb_names[JOB_LBS] = {"ecmp", "spray", "adaptive"};
const char *const job_model_names[JOB_MODELS] = {"packet", "flow"};

/* cc=NAME: "none" (every CC parameter cleared), or a preset, which sets the CC
 * parameters and possibly the switches' ECN thresholds. */
static int key_cc(const job_presets_t *ps, eng_params_t *p, const char *name, char *why,
                  size_t len) {
  if (strcmp(name, "none") == 0) {
    memset(&p->ccp, 0, sizeof p->ccp);
    p->ccp.kind = CC_NONE;
    return 0;
  }
  for (int i = 0; i < ps->n_cc; i++) {
    const job_cc_preset_t *q = &ps->cc[i];
    if (strcmp(q->name, name) != 0) continue;
    p->ccp = q->cc;
    if (q->sets_ecn & JOB_ECN_KMIN) p->ecn_kmin = q->ecn_kmin;
    if (q->sets_ecn & JOB_ECN_KMAX) p->ecn_kmax = q->ecn_kmax;
    if (q->sets_ecn & JOB_ECN_PMAX) p->ecn_pmax = q->ecn_pmax;
    return 0;
  }
  int n = snprintf(why, len, "unknown congestion control '%s' (none", name);
  for (int i = 0; i < ps->n_cc && n > 0 && (size_t)n < len; i++)
    n += snprintf(why + n, len - (size_t)n, ", %s", ps->cc[i].name);
  if (n > 0 && (size_t)n < len) snprintf(why + n, len - (size_t)n, ")");
  return -1;
}

/* {"GBPS": [kmin_KB, kmax_KB, pmax], ...} into rows by ascending speed. */
static int key_ecn_table(eng_ecn_table_t *tab, const json_t *obj, char *why, size_t len) {
  const char *speed;
  json_t *row;
  eng_ecn_table_t t;
  memset(&t, 0, sizeof t);
  if (!json_is_object(obj)) {
    snprintf(why, len, "expected {\"GBPS\": [kmin_KB, kmax_KB, pmax], ...}");
    return -1;
  }
  json_object_foreach((json_t *)obj, speed, row) {
    job_dec_t d[3], g;
    int64_t gbps = 0;
    int ok = job_dec_parse(speed, &g) == 0 && !g.neg && job_dec_to_int(&g, 0, 0, 1, &gbps) == 0 &&
             gbps > 0 && json_is_array(row) && json_array_size(row) == 3;
    char text[80];
    for (int c = 0; ok && c < 3; c++) {
      const json_t *v = json_array_get(row, (size_t)c);
      if (json_is_integer(v)) {
        snprintf(text, sizeof text, "%lld", (long long)json_integer_value(v));
        ok = job_dec_parse(text, &d[c]) == 0;
      } else {
        ok = json_is_real(v) && job_dec_from_double(json_real_value(v), &d[c]) == 0;
      }
    }
    if (!ok || t.n == ENG_ECN_ROWS_MAX) {
      snprintf(why, len, "%s: expected a speed in Gb/s and [kmin_KB, kmax_KB, pmax] (at most %d)",
               speed, ENG_ECN_ROWS_MAX);
      return -1;
    }
    eng_ecn_row_t *r = &t.row[t.n++];
    r->gbps = gbps;
    r->pmax = job_dec_to_double(&d[2], 0);
    if (job_dec_to_int(&d[0], 10, 0, 0, &r->kmin) || job_dec_to_int(&d[1], 10, 0, 0, &r->kmax) ||
        gbps > 1000000 || r->kmin < 0 || r->kmax < r->kmin || r->kmax > ((int64_t)1 << 31) ||
        !(r->pmax >= 0 && r->pmax <= 1)) {
      snprintf(why, len, "%s: out of range: %s", speed, JOB_ECN_ROW_RANGE);
      return -1;
    }
  }
  for (int i = 1; i < t.n; i++) /* JSON object order is not numeric */
    for (int j = i; j > 0 && t.row[j - 1].gbps >= t.row[j].gbps; j--) {
      if (t.row[j - 1].gbps == t.row[j].gbps) {
        snprintf(why, len, "speed %lld given twice", (long long)t.row[j].gbps);
        return -1;
      }
      eng_ecn_row_t x = t.row[j];
      t.row[j] = t.row[j - 1];
      t.row[j - 1] = x;
    }
  *tab = t;
  return 0;
}

/* A number's decimal digits: the text, or the JSON number. */
static int key_decimal(const char *text, const json_t *json, job_dec_t *d) {
  if (text) return job_dec_parse(text, d);
  if (json_is_integer(json)) {
    char buf[32];
    snprintf(buf, sizeof buf, "%lld", (long long)json_integer_value(json));
    return job_dec_parse(buf, d);
  }
  if (json_is_real(json)) return job_dec_from_double(json_real_value(json), d);
  return -1;
}

static const char *key_expects(job_unit_t u) {
  switch (u) {
  case JOB_U_COUNT:
    return "an integer";
  case JOB_U_BOOL:
    return "true or false";
  case JOB_U_KIB:
    return "a size in KiB";
  case JOB_U_MIB:
    return "a size in MiB";
  case JOB_U_US:
    return "a time in us (whole ps)";
  case JOB_U_S:
    return "a time in s (whole ps)";
  case JOB_U_MBPS:
    return "a rate in Mb/s";
  default:
    return "a number";
  }
}

int job_key_apply(const job_presets_t *ps, eng_params_t *p, const job_key_t *k, const char *text,
                  const json_t *json, char *why, size_t len) {
  char *at = (char *)p + k->off;
  const char *name = text ? text : json_string_value(json);
  if (k->unit == JOB_U_CC) {
    if (!name) goto bad;
    return key_cc(ps, p, name, why, len);
  }
  if (k->unit == JOB_U_LB) {
    for (int i = 0; name && i < JOB_LBS; i++)
      if (strcmp(name, job_lb_names[i]) == 0) {
        *(int32_t *)at = i;
        return 0;
      }
    if (!name) goto bad;
    snprintf(why, len, "unknown load balancing '%s' (ecmp, spray, adaptive)", name);
    return -1;
  }
  if (k->unit == JOB_U_MODEL) {
    for (int i = 0; name && i < JOB_MODELS; i++)
      if (strcmp(name, job_model_names[i]) == 0) {
        *(int32_t *)at = i;
        return 0;
      }
    if (!name) goto bad;
    snprintf(why, len, "unknown network model '%s' (packet, flow)", name);
    return -1;
  }
  if (k->unit == JOB_U_ECN_TABLE) {
    json_t *parsed = text ? json_loads(text, 0, NULL) : NULL;
    int rc = key_ecn_table((eng_ecn_table_t *)at, text ? parsed : json, why, len);
    json_decref(parsed);
    return rc;
  }
  if (k->unit == JOB_U_BOOL) {
    int v = -1;
    if (json)
      v = json_is_true(json) ? 1 : json_is_false(json) ? 0 : -1;
    else if (!strcmp(text, "true") || !strcmp(text, "on") || !strcmp(text, "1"))
      v = 1;
    else if (!strcmp(text, "false") || !strcmp(text, "off") || !strcmp(text, "0"))
      v = 0;
    if (v < 0) goto bad;
    *(int32_t *)at = v;
    return 0;
  }
  job_dec_t d;
  int64_t v;
  if (key_decimal(text, json, &d)) goto bad;
  int range = job_range_check(k, p, &d, text, why, len);
  if (range < 0) return -1;
  if (range == 1) { /* -1: derived */
    if (k->unit == JOB_U_COUNT)
      *(int32_t *)at = -1;
    else if (k->unit == JOB_U_REAL || k->unit == JOB_U_MBPS)
      *(double *)at = -1.0;
    else
      *(int64_t *)at = -1;
    return 0;
  }
  switch (k->unit) {
  case JOB_U_COUNT:
    if (job_dec_to_int(&d, 0, 0, 1, &v) || v < INT32_MIN || v > INT32_MAX) goto bad;
    *(int32_t *)at = (int32_t)v;
    return 0;
  case JOB_U_KIB:
  case JOB_U_MIB:
  case JOB_U_Q16:
    if (job_dec_to_int(&d, k->unit == JOB_U_KIB ? 10 : k->unit == JOB_U_MIB ? 20 : 16, 0, 0, &v))
      goto bad;
    if (v == 0 && job_range_zero(k, p, why, len)) return -1;
    *(int64_t *)at = v;
    return 0;
  case JOB_U_US:
  case JOB_U_S:
    if (job_dec_to_int(&d, 0, k->unit == JOB_U_US ? 6 : 12, 1, &v)) goto bad;
    *(int64_t *)at = v;
    return 0;
  case JOB_U_REAL:
    if (!isfinite(job_dec_to_double(&d, 0))) goto bad; /* past the largest double */
    *(double *)at = job_dec_to_double(&d, 0);
    return 0;
  case JOB_U_MBPS:
    if (!isfinite(job_dec_to_double(&d, 6))) goto bad;
    *(double *)at = job_dec_to_double(&d, 6);
    return 0;
  default:
    goto bad;
  }
bad:
  if (text)
    snprintf(why, len, "bad value '%s' (expected %s)", text, key_expects(k->unit));
  else
    snprintf(why, len, "expected %s",
             k->unit == JOB_U_CC      ? "a congestion control name"
             : k->unit == JOB_U_LB    ? "ecmp, spray or adaptive"
             : k->unit == JOB_U_MODEL ? "packet or flow"
                                      : key_expects(k->unit));
  return -1;
}

int job_oneline(char *err) {
  base_oneline(err, -1);
  return -1;
}

int job_param_set(const job_presets_t *ps, eng_params_t *p, const char *kv, char *err,
                  size_t errlen) {
  const char *eq = strchr(kv, '=');
  char name[64], why[512];
  if (!eq || eq == kv || (size_t)(eq - kv) >= sizeof name) {
    snprintf(err, errlen, "--set %s: expected KEY=VALUE", kv);
    return job_oneline(err);
  }
  memcpy(name, kv, (size_t)(eq - kv));
  name[eq - kv] = 0;
  if (strcmp(name, JOB_PRESET_KEY) == 0) {
    if (job_net_preset_apply(ps, p, eq + 1, why, sizeof why) == 0) return 0;
    snprintf(err, errlen, "--set %s: %s", name, why);
    return -1;
  }
  const job_key_t *k = job_key_find(name);
  if (!k) {
    snprintf(err, errlen, "--set %s: unknown key '%s' (multiverse params lists them)", kv, name);
    return job_oneline(err);
  }
  if (job_key_apply(ps, p, k, eq + 1, NULL, why, sizeof why)) {
    snprintf(err, errlen, "--set %s: %s", name, why);
    return job_oneline(err);
  }
  return 0;
}

int job_param_set_json(const job_presets_t *ps, eng_params_t *p, const char *key, const json_t *v,
                       const char *where, char *err, size_t errlen) {
  char why[512];
  if (strcmp(key, JOB_PRESET_KEY) == 0) {
    if (json_is_string(v) &&
        job_net_preset_apply(ps, p, json_string_value(v), why, sizeof why) == 0)
      return 0;
    snprintf(err, errlen, "%s.%s: %s", where, key,
             json_is_string(v) ? why : "expected a preset's name");
    return -1;
  }
  const job_key_t *k = job_key_find(key);
  if (!k) {
    snprintf(err, errlen, "%s.%s: unknown key", where, key);
    return job_oneline(err);
  }
  if (job_key_apply(ps, p, k, NULL, v, why, sizeof why)) {
    snprintf(err, errlen, "%s.%s: %s", where, key, why);
    return job_oneline(err);
  }
  return 0;
}

int job_params_apply(const job_presets_t *ps, eng_params_t *p, const json_t *obj,
                     const char *const *skip, const char *where, char *err, size_t errlen) {
  const json_t *cc = json_object_get(obj, "cc"), *pre = json_object_get(obj, JOB_PRESET_KEY);
  if (cc && job_param_set_json(ps, p, "cc", cc, where, err, errlen)) return -1;
  if (pre && job_param_set_json(ps, p, JOB_PRESET_KEY, pre, where, err, errlen)) return -1;
  const char *key;
  json_t *v;
  json_object_foreach((json_t *)obj, key, v) {
    int skipped = strcmp(key, "cc") == 0 || strcmp(key, JOB_PRESET_KEY) == 0;
    for (int i = 0; skip && skip[i] && !skipped; i++)
      skipped = strcmp(key, skip[i]) == 0;
    if (!skipped && job_param_set_json(ps, p, key, v, where, err, errlen)) return -1;
  }
  return 0;
}

int job_params_equal(const eng_params_t *a, const eng_params_t *b) {
  for (int i = 0; i < job_n_keys; i++) {
    const job_key_t *k = &job_keys[i];
    const char *x = (const char *)a + k->off, *y = (const char *)b + k->off;
    size_t size = k->unit == JOB_U_COUNT || k->unit == JOB_U_BOOL || k->unit == JOB_U_LB ||
                          k->unit == JOB_U_MODEL
                      ? 4
                      : 8;
    if (k->unit == JOB_U_CC) {
      x = (const char *)&a->ccp.kind;
      y = (const char *)&b->ccp.kind;
      size = sizeof a->ccp.kind;
    }
    if (k->unit == JOB_U_ECN_TABLE) {
      const eng_ecn_table_t *s = &a->ecn_table, *t = &b->ecn_table;
      if (s->n != t->n) return 0;
      for (int r = 0; r < s->n; r++)
        if (s->row[r].gbps != t->row[r].gbps || s->row[r].kmin != t->row[r].kmin ||
            s->row[r].kmax != t->row[r].kmax ||
            memcmp(&s->row[r].pmax, &t->row[r].pmax, sizeof(double)))
          return 0;
      continue;
    }
    if (memcmp(x, y, size)) return 0;
  }
  return 1;
}
