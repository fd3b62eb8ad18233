/* A `network` experiment as a job file writes it: parsing, and its canonical
 * JSON (every parameter, sorted keys, compact), which parses back to the same
 * experiment. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobs/job_param_int.h"

static int exp_parse(const job_presets_t *ps, const json_t *obj, const char *where, job_exp_t *x,
                     char *err, size_t errlen) {
  static const char *const own[] = {"topology", "flows", NULL};
  char at[1100];
  memset(x, 0, sizeof *x);
  x->params = ps->defaults;
  if (!json_is_object(obj)) {
    snprintf(err, errlen, "%s: expected an object {\"kind\": \"network\", \"network\": {...}}",
             where);
    return -1;
  }
  const char *key;
  json_t *v;
  json_object_foreach((json_t *)obj, key, v) {
    if (strcmp(key, "kind") != 0 && strcmp(key, "network") != 0) {
      snprintf(err, errlen, "%s.%s: unknown member (kind, network)", where, key);
      return -1;
    }
  }
  const char *kind = json_string_value(json_object_get(obj, "kind"));
  const json_t *net = json_object_get(obj, "network");
  if (!kind || strcmp(kind, "network") != 0) {
    snprintf(err, errlen, "%s.kind: expected \"network\"", where);
    return -1;
  }
  if (!json_is_object(net)) {
    snprintf(err, errlen, "%s.network: expected an object", where);
    return -1;
  }
  snprintf(at, sizeof at, "%s.network", where);
  const json_t *topo = json_object_get(net, "topology");
  const char *flows = json_string_value(json_object_get(net, "flows"));
  if (json_is_string(topo) && *json_string_value(topo)) {
    x->topology_file = strdup(json_string_value(topo));
  } else if (json_is_object(topo)) {
    char tat[1200];
    snprintf(tat, sizeof tat, "%s.topology", at);
    if (!(x->topology = malloc(sizeof *x->topology))) {
      snprintf(err, errlen, "%s: out of memory", tat);
      return -1;
    }
    if (topo_spec_parse(topo, tat, x->topology, err, errlen)) goto fail;
  } else {
    snprintf(err, errlen, "%s.topology: expected a file name or a topology object", at);
    return -1;
  }
  if (!flows || !*flows) {
    snprintf(err, errlen, "%s.flows: expected a flow file name", at);
    goto fail;
  }
  x->flows_file = strdup(flows);
  if (!x->flows_file || !(x->topology_file || x->topology)) {
    snprintf(err, errlen, "%s: out of memory", at);
    goto fail;
  }
  if (job_params_apply(ps, &x->params, net, own, at, err, errlen)) goto fail;
  return 0;
fail:
  job_exp_free(x);
  return -1;
}

int job_exp_parse(const job_presets_t *ps, const json_t *obj, const char *where, job_exp_t *x,
                  char *err, size_t errlen) {
  /* one line whatever a key quotes ("a\nb") */
  return exp_parse(ps, obj, where, x, err, errlen) ? job_oneline(err) : 0;
}

char *job_exp_canonical(const job_exp_t *x) {
  job_member_t *m = malloc(((size_t)job_n_keys + 2) * sizeof *m);
  job_buf_t b = {0};
  if (!m) return NULL;
  int n = job_params_members(&x->params, m);
  if (n < 0) {
    free(m);
    return NULL;
  }
  job_buf_json_string(&b, x->flows_file);
  m[n++] = (job_member_t){"flows", job_buf_take(&b)};
  json_t *topo = x->topology ? topo_spec_json(x->topology) : NULL;
  if (x->topology && !topo)
    b.oom = 1;
  else if (topo)
    job_buf_json(&b, topo);
  else
    job_buf_json_string(&b, x->topology_file);
  json_decref(topo);
  m[n++] = (job_member_t){"topology", job_buf_take(&b)};
  char *net = NULL;
  if (m[n - 1].value && m[n - 2].value)
    net = job_members_object(m, n);
  else
    for (int i = 0; i < n; i++)
      free(m[i].value);
  free(m);
  if (!net) return NULL;
  job_buf_puts(&b, "{\"kind\":\"network\",\"network\":");
  job_buf_puts(&b, net);
  job_buf_puts(&b, "}");
  free(net);
  return job_buf_take(&b);
}

void job_exp_free(job_exp_t *x) {
  free(x->topology_file);
  free(x->flows_file);
  free(x->topology);
  x->topology_file = x->flows_file = NULL;
  x->topology = NULL;
}
