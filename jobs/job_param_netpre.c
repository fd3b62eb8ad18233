/* Network presets (jobs/presets/network.json `presets`): named groups of keys,
 * some for every experiment and some only for one congestion-control kind,
 * applied by the pseudo-key `preset` (--set preset=NAME, a job file's
 * network.preset). A preset is not a parameter: the canonical text holds the
 * keys it set. */
#include <stdio.h>
#include <string.h>

#include "jobs/job_param_int.h"

/* Bytes of a key's stored value (presets hold scalar keys only). */
static size_t netpre_size(job_unit_t u) {
  return u == JOB_U_COUNT || u == JOB_U_BOOL || u == JOB_U_LB || u == JOB_U_MODEL ? 4 : 8;
}

/* One section: {"key": value, ...}, each applied for experiments of kind
 * `kind` (CC_NONE: all). */
static int netpre_section(const job_presets_t *ps, job_net_preset_t *q, const json_t *obj,
                          int32_t kind, const char *where, char *err, size_t errlen) {
  const char *key;
  json_t *v;
  char why[512];
  json_object_foreach((json_t *)obj, key, v) {
    const job_key_t *k = job_key_find(key);
    eng_params_t scratch;
    memset(&scratch, 0, sizeof scratch);
    scratch.ccp.kind = kind;
    const char *bad = !k                                                         ? "unknown key"
                      : k->unit == JOB_U_CC || k->unit == JOB_U_ECN_TABLE        ? "not in a preset"
                      : k->cc_kind != CC_NONE && k->cc_kind != kind              ? "of another kind"
                      : job_key_apply(ps, &scratch, k, NULL, v, why, sizeof why) ? why
                                                                                 : NULL;
    if (!bad && q->n == JOB_NET_PRESET_KEYS) bad = "too many keys";
    if (bad) {
      snprintf(err, errlen, "%s.%s: %s", where, key, bad);
      return -1;
    }
    job_net_set_t *s = &q->set[q->n++];
    s->key = (int32_t)(k - job_keys);
    s->kind = kind;
    memset(s->val, 0, sizeof s->val);
    memcpy(s->val, (const char *)&scratch + k->off, netpre_size(k->unit));
  }
  return 0;
}

int job_net_presets_load(const char *path, const json_t *obj, job_presets_t *ps, char *err,
                         size_t errlen) {
  const char *name;
  json_t *pre;
  ps->n_net = 0;
  if (!obj) return 0;
  if (!json_is_object(obj)) {
    snprintf(err, errlen, "%s: presets: expected an object", path);
    return -1;
  }
  json_object_foreach((json_t *)obj, name, pre) {
    char where[256];
    snprintf(where, sizeof where, "%s: presets.%s", path, name);
    if (ps->n_net == JOB_NET_PRESETS_MAX || strlen(name) >= sizeof ps->net[0].name ||
        !json_is_object(pre)) {
      snprintf(err, errlen, "%s: expected an object (at most %d presets, names under 32 bytes)",
               where, JOB_NET_PRESETS_MAX);
      return -1;
    }
    job_net_preset_t *q = &ps->net[ps->n_net];
    memset(q, 0, sizeof *q);
    snprintf(q->name, sizeof q->name, "%s", name);
    if (!json_is_string(json_object_get(pre, "source"))) {
      snprintf(err, errlen, "%s.source: missing (every preset names its source)", where);
      return -1;
    }
    const char *sec;
    json_t *v;
    json_object_foreach(pre, sec, v) {
      if (strcmp(sec, "source") == 0) continue;
      int32_t kind = -1;
      for (int i = 0; i < JOB_CC_KINDS; i++)
        if (strcmp(sec, i ? job_cc_names[i] : "network") == 0) kind = i;
      char at[300];
      snprintf(at, sizeof at, "%s.%s", where, sec);
      if (kind < 0 || !json_is_object(v)) {
        snprintf(err, errlen, "%s: expected an object named network, dcqcn, dctcp or hpcc", at);
        return -1;
      }
      if (netpre_section(ps, q, v, kind, at, err, errlen)) return -1;
    }
    ps->n_net++;
  }
  return 0;
}

int job_net_preset_apply(const job_presets_t *ps, eng_params_t *p, const char *name, char *why,
                         size_t len) {
  for (int i = 0; i < ps->n_net; i++) {
    const job_net_preset_t *q = &ps->net[i];
    if (strcmp(q->name, name) != 0) continue;
    for (int j = 0; j < q->n; j++) {
      const job_key_t *k = &job_keys[q->set[j].key];
      if (q->set[j].kind == CC_NONE || q->set[j].kind == p->ccp.kind)
        memcpy((char *)p + k->off, q->set[j].val, netpre_size(k->unit));
    }
    return 0;
  }
  int n = snprintf(why, len, "unknown preset '%s' (", name);
  for (int i = 0; i < ps->n_net && n > 0 && (size_t)n < len; i++)
    n += snprintf(why + n, len - (size_t)n, "%s%s", i ? ", " : "", ps->net[i].name);
  if (n > 0 && (size_t)n < len) snprintf(why + n, len - (size_t)n, ")");
  return -1;
}
