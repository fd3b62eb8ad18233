/* The presets file (jobs/presets/network.json): defaults and their sources,
 * checked against the key table both ways, and the CC presets, each complete
 * for its kind. */
#include <stdio.h>
#include <string.h>

#include "base/base_json.h"
#include "jobs/job_param_int.h"

/* Keys other than its kind's a CC preset may set: the switches' thresholds. */
static int presets_ecn_bit(const char *key) {
  return strcmp(key, "ecn_kmin_kb") == 0   ? JOB_ECN_KMIN
         : strcmp(key, "ecn_kmax_kb") == 0 ? JOB_ECN_KMAX
         : strcmp(key, "ecn_pmax") == 0    ? JOB_ECN_PMAX
                                           : 0;
}

static int presets_one(const char *path, const char *name, const json_t *pre, job_presets_t *ps,
                       char *err, size_t errlen) {
  job_cc_preset_t *q = &ps->cc[ps->n_cc];
  const char *kind = json_string_value(json_object_get(pre, "kind"));
  int k = 0;
  for (int i = 1; kind && i < JOB_CC_KINDS; i++)
    if (strcmp(job_cc_names[i], kind) == 0) k = i;
  if (!k) {
    int n = snprintf(err, errlen, "%s: cc_presets.%s.kind: expected one of", path, name);
    for (int i = 1; i < JOB_CC_KINDS && n > 0 && (size_t)n < errlen; i++)
      n += snprintf(err + n, errlen - (size_t)n, " %s", job_cc_names[i]);
    return -1;
  }
  if (!json_is_string(json_object_get(pre, "source"))) {
    snprintf(err, errlen, "%s: cc_presets.%s.source: missing (every preset names its source)", path,
             name);
    return -1;
  }
  eng_params_t scratch;
  memset(&scratch, 0, sizeof scratch);
  scratch.ccp.kind = k;
  memset(q, 0, sizeof *q);
  const char *key;
  json_t *v;
  char why[512];
  json_object_foreach((json_t *)pre, key, v) {
    if (strcmp(key, "kind") == 0 || strcmp(key, "source") == 0) continue;
    const job_key_t *pk = job_key_find(key);
    const char *bad = !pk                                               ? "unknown key"
                      : pk->cc_kind == CC_NONE && !presets_ecn_bit(key) ? "not a CC key"
                      : pk->cc_kind != CC_NONE && pk->cc_kind != k      ? "of another kind"
                      : job_key_apply(ps, &scratch, pk, NULL, v, why, sizeof why) ? why
                                                                                  : NULL;
    if (bad) {
      snprintf(err, errlen, "%s: cc_presets.%s.%s: %s", path, name, key, bad);
      return -1;
    }
    q->sets_ecn |= presets_ecn_bit(key);
  }
  for (int i = 0; i < job_n_keys; i++)
    if (job_keys[i].cc_kind == k && !json_object_get(pre, job_keys[i].name)) {
      snprintf(err, errlen, "%s: cc_presets.%s.%s: missing (a %s preset sets every %s key)", path,
               name, job_keys[i].name, kind, kind);
      return -1;
    }
  snprintf(q->name, sizeof q->name, "%s", name);
  q->cc = scratch.ccp;
  q->ecn_kmin = scratch.ecn_kmin;
  q->ecn_kmax = scratch.ecn_kmax;
  q->ecn_pmax = scratch.ecn_pmax;
  return 0;
}

/* cc_presets: {"name": {"kind": "dcqcn", "source": ..., "dcqcn_g": ...}} or
 * {"alias": "earlier name"}. */
static int presets_cc(const char *path, const json_t *obj, job_presets_t *ps, char *err,
                      size_t errlen) {
  const char *name;
  json_t *pre;
  json_object_foreach((json_t *)obj, name, pre) {
    if (ps->n_cc == JOB_CC_PRESETS_MAX || strlen(name) >= sizeof ps->cc[0].name ||
        strcmp(name, "none") == 0) {
      snprintf(err, errlen,
               "%s: cc_presets.%s: at most %d presets, names under 32 characters, "
               "not \"none\"",
               path, name, JOB_CC_PRESETS_MAX);
      return -1;
    }
    if (json_is_string(pre)) { /* an alias of an earlier preset */
      int found = -1;
      for (int i = 0; i < ps->n_cc; i++)
        if (strcmp(ps->cc[i].name, json_string_value(pre)) == 0) found = i;
      if (found < 0) {
        snprintf(err, errlen, "%s: cc_presets.%s: no earlier preset '%s'", path, name,
                 json_string_value(pre));
        return -1;
      }
      ps->cc[ps->n_cc] = ps->cc[found];
      snprintf(ps->cc[ps->n_cc].name, sizeof ps->cc[0].name, "%s", name);
    } else if (!json_is_object(pre) || presets_one(path, name, pre, ps, err, errlen)) {
      if (!json_is_object(pre))
        snprintf(err, errlen, "%s: cc_presets.%s: expected an object or a preset's name", path,
                 name);
      return -1;
    }
    ps->n_cc++;
  }
  /* The canonical form names a kind as `cc`: reading it back applies the
   * preset of that name, then every CC key. */
  for (int k = 1; k < JOB_CC_KINDS; k++) {
    int found = 0;
    for (int i = 0; i < ps->n_cc; i++)
      found |= strcmp(ps->cc[i].name, job_cc_names[k]) == 0 && ps->cc[i].cc.kind == k;
    if (!found) {
      snprintf(err, errlen, "%s: cc_presets: needs a %s preset named \"%s\"", path, job_cc_names[k],
               job_cc_names[k]);
      return -1;
    }
  }
  return 0;
}

/* Defaults name exactly the network keys; sources explain each of them. */
static int presets_defaults(const char *path, const json_t *defs, const json_t *src,
                            job_presets_t *ps, char *err, size_t errlen) {
  char where[1100];
  const char *key;
  json_t *v;
  for (int i = 0; i < job_n_keys; i++) {
    const char *name = job_keys[i].name;
    if (job_keys[i].cc_kind != CC_NONE) continue;
    if (!json_object_get(defs, name) || !json_is_string(json_object_get(src, name))) {
      snprintf(err, errlen, "%s: %s.%s: missing (every parameter has a default and a source)", path,
               json_object_get(defs, name) ? "sources" : "defaults", name);
      return -1;
    }
  }
  json_object_foreach((json_t *)defs, key, v) {
    const job_key_t *k = job_key_find(key);
    if (!k || k->cc_kind != CC_NONE) {
      snprintf(err, errlen, "%s: defaults.%s: %s", path, key,
               k ? "set by the cc presets, not a default" : "unknown key");
      return -1;
    }
  }
  json_object_foreach((json_t *)src, key, v) {
    if (!json_object_get(defs, key)) {
      snprintf(err, errlen, "%s: sources.%s: not a default", path, key);
      return -1;
    }
  }
  memset(&ps->defaults, 0, sizeof ps->defaults);
  snprintf(where, sizeof where, "%s: defaults", path);
  if (job_params_apply(ps, &ps->defaults, defs, NULL, where, err, errlen)) return -1;
  char why[512];
  if (eng_params_check(&ps->defaults, why, sizeof why)) {
    snprintf(err, errlen, "%s: defaults: %s", path, why);
    return -1;
  }
  return 0;
}

int job_presets_load(const char *path, job_presets_t *ps, char *err, size_t errlen) {
  static const char *const members[] = {"description", "defaults",    "sources",
                                        "cc_presets",  "ecn_columns", "presets"};
  memset(ps, 0, sizeof *ps);
  json_t *root = base_json_load(path, 0, err, errlen); /* a pipe is refused, not read */
  if (!root) return -1;
  int rc = -1;
  const char *key;
  json_t *v;
  json_object_foreach(root, key, v) {
    int known = 0;
    for (size_t i = 0; i < sizeof members / sizeof members[0]; i++)
      known |= strcmp(key, members[i]) == 0;
    if (!known) {
      snprintf(err, errlen, "%s: %s: unknown member", path, key);
      goto done;
    }
  }
  json_t *pre = json_object_get(root, "cc_presets");
  json_t *defs = json_object_get(root, "defaults"), *src = json_object_get(root, "sources");
  if (!json_is_object(pre) || !json_is_object(defs) || !json_is_object(src)) {
    snprintf(err, errlen, "%s: %s: missing object", path,
             !json_is_object(pre)    ? "cc_presets"
             : !json_is_object(defs) ? "defaults"
                                     : "sources");
    goto done;
  }
  if (presets_cc(path, pre, ps, err, errlen)) goto done;
  if (job_net_presets_load(path, json_object_get(root, "presets"), ps, err, errlen)) goto done;
  rc = presets_defaults(path, defs, src, ps, err, errlen);
done:
  json_decref(root);
  return rc ? job_oneline(err) : 0;
}
