/* jobs: a training experiment's topology, sized to its cluster: servers x
 * nics_per_server hosts numbered server by server (coll's placement), NICs at the
 * cluster's rate, switch links at network.link_gbps (default: the NIC rate) with
 * network.link_delay_ns. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "jobs/job_train.h"

/* Sets obj.key to x unless present. */
static int fill(json_t *obj, const char *key, json_t *x) {
  if (!x) return -1;
  if (json_object_get(obj, key)) {
    json_decref(x);
    return 0;
  }
  return json_object_set_new(obj, key, x);
}

/* Whether a fat_tree object sizes itself. */
static int sized(const json_t *o) {
  static const char *const keys[] = {"k",     "leaves",       "hosts_per_leaf", "pods",
                                     "cores", "tors_per_pod", "hosts_per_tor",  NULL};
  for (int i = 0; keys[i]; i++)
    if (json_object_get(o, keys[i])) return 1;
  return 0;
}

/* The smallest even radix k whose fat tree holds `hosts`; leaf-spine: leaves of k
 * ports, k * over / (over + 1) of them to hosts; three tiers: k pods of k/2 ToRs. */
static int size_fat_tree(json_t *o, int64_t hosts, const char *where, char *err, size_t errlen) {
  const json_t *jt = json_object_get(o, "tiers"), *jo = json_object_get(o, "oversubscription");
  int64_t tiers = json_is_integer(jt) ? json_integer_value(jt) : 3;
  double over = json_is_number(jo) ? json_number_value(jo) : 1;
  if ((tiers != 2 && tiers != 3) || !(over >= 1)) return 0; /* topo_spec_parse says why */
  for (int64_t k = 2; k <= 4096; k += 2) {
    int64_t down = (int64_t)floor((double)k * over / (over + 1) + 1e-9), per;
    if (tiers == 2) {
      if (down < 1 || down * k < hosts) continue;
      return fill(o, "k", json_integer(k)) ||
             fill(o, "leaves", json_integer((hosts + down - 1) / down));
    }
    per = (k / 2) * (int64_t)floor((double)(k / 2) * over + 1e-9); /* hosts per pod */
    if (per < 1 || per * k < hosts) continue;
    return fill(o, "k", json_integer(k)) || fill(o, "pods", json_integer((hosts + per - 1) / per));
  }
  snprintf(err, errlen, "%s: no fat tree of radix up to 4096 holds %lld hosts", where,
           (long long)hosts);
  return -1;
}

int job_train_topology(const json_t *net, const trn_cluster_t *c, const char *where,
                       topo_spec_t *s, char *err, size_t errlen) {
  char at[TRN_ERR_LEN];
  const json_t *src = net ? json_object_get(net, "topology") : NULL;
  const json_t *gbps = net ? json_object_get(net, "link_gbps") : NULL;
  const json_t *delay = net ? json_object_get(net, "link_delay_ns") : NULL;
  int64_t hosts = c->servers * c->nics_per_server;
  snprintf(at, sizeof at, "%s.topology", where);
  if (src && !json_is_object(src)) {
    snprintf(err, errlen, "%s: must be an object {\"kind\": ...}", at);
    return -1;
  }
  const char *bad = gbps && !(json_is_number(gbps) && json_number_value(gbps) > 0) ? "link_gbps"
                    : delay && !(json_is_number(delay) && json_number_value(delay) > 0)
                        ? "link_delay_ns"
                        : NULL;
  if (bad) {
    snprintf(err, errlen, "%s.%s: must be a number > 0", where, bad);
    return -1;
  }
  json_t *o = src ? json_deep_copy(src) : json_pack("{s:s}", "kind", "rail_optimized");
  int rc = -1;
  if (!o) goto oom;
  const char *kind = json_string_value(json_object_get(o, "kind"));
  int generated = kind && (strcmp(kind, "fat_tree") == 0 || strcmp(kind, "rail_optimized") == 0 ||
                           strcmp(kind, "torus") == 0);
  int torus = kind && strcmp(kind, "torus") == 0; /* every node a host: no host links */
  if (generated) {
    if ((!torus && fill(o, "host_gbps", json_real(c->nic_gbps))) ||
        fill(o, "link_gbps", gbps ? json_deep_copy(gbps) : json_real(c->nic_gbps)) ||
        (delay && (fill(o, "link_delay_ns", json_deep_copy(delay)) ||
                   (!torus && fill(o, "host_delay_ns", json_deep_copy(delay))))))
      goto oom;
  }
  if (kind && strcmp(kind, "rail_optimized") == 0) {
    if (fill(o, "servers", json_integer(c->servers)) ||
        fill(o, "nics_per_server", json_integer(c->nics_per_server)))
      goto oom;
  } else if (kind && strcmp(kind, "fat_tree") == 0 && !sized(o)) {
    if (size_fat_tree(o, hosts, at, err, errlen)) goto done;
  }
  if (topo_spec_parse(o, at, s, err, errlen)) goto done;
  rc = 0;
  goto done;
oom:
  snprintf(err, errlen, "%s: out of memory", at);
done:
  json_decref(o);
  return rc;
}
