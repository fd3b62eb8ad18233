/* topo: checked access to the keys of a JSON topology object, with messages that
 * name the key ("topo.json: topology.k: must be ..."). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/base_json.h"
#include "base/base_units.h"
#include "topo/topo_int.h"

void topo_jerr(char *err, size_t errlen, const char *where, const char *key, const char *fmt, ...) {
  char msg[TOPO_ERR_LEN];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (!key)
    base_errf(err, errlen, "%s: %s", where, msg);
  else if (strstr(where, ": "))
    base_errf(err, errlen, "%s.%s: %s", where, key, msg);
  else
    base_errf(err, errlen, "%s: %s: %s", where, key, msg);
}

int topo_jkeys(const json_t *obj, const char *const *allowed, const char *where, char *err,
               size_t errlen) {
  const char *key;
  json_t *v;
  json_object_foreach((json_t *)obj, key, v) {
    int ok = 0;
    for (int i = 0; allowed[i] && !ok; i++)
      ok = strcmp(key, allowed[i]) == 0;
    if (ok) continue;
    char list[256] = "";
    for (int i = 0; allowed[i]; i++) {
      size_t n = strlen(list);
      snprintf(list + n, sizeof list - n, "%s%s", i ? ", " : "", allowed[i]);
    }
    topo_jerr(err, errlen, where, key, "unknown key (this kind takes: %s)", list);
    return -1;
  }
  return 0;
}

int topo_jint(const json_t *obj, const char *key, int64_t def, int64_t min, int64_t max,
              int64_t *out, const char *where, char *err, size_t errlen) {
  const json_t *v = json_object_get(obj, key);
  char buf[64];
  int64_t x;
  if (!v) {
    *out = def;
    return 0;
  }
  if (json_is_integer(v)) {
    x = json_integer_value(v);
  } else if (json_is_real(v) && json_real_value(v) == floor(json_real_value(v)) &&
             fabs(json_real_value(v)) < 0x1p62) {
    x = (int64_t)json_real_value(v);
  } else {
    topo_jerr(err, errlen, where, key, "must be an integer, got %s",
              base_json_describe(v, buf, sizeof buf));
    return -1;
  }
  if (x < min || x > max) {
    topo_jerr(err, errlen, where, key, "must be an integer in %lld..%lld, got %lld", (long long)min,
              (long long)max, (long long)x);
    return -1;
  }
  *out = x;
  return 0;
}

int topo_jnum(const json_t *obj, const char *key, double def, double min, double max, double *out,
              const char *where, char *err, size_t errlen) {
  const json_t *v = json_object_get(obj, key);
  char buf[64];
  if (!v) {
    *out = def;
    return 0;
  }
  if (!json_is_number(v)) {
    topo_jerr(err, errlen, where, key, "must be a number, got %s",
              base_json_describe(v, buf, sizeof buf));
    return -1;
  }
  double x = json_number_value(v);
  if (!(x >= min && x <= max)) {
    topo_jerr(err, errlen, where, key, "must be a number in [%g, %g], got %g", min, max, x);
    return -1;
  }
  *out = x;
  return 0;
}

/* A rate key in Gb/s or a delay key in ns, as bit/s or ps within the limits of topo.h;
 * def (already scaled) when absent. */
static int scaled_key(const json_t *obj, const char *key, int64_t def, int is_rate, int64_t *out,
                      const char *where, char *err, size_t errlen) {
  double x;
  if (topo_jnum(obj, key, -1, -INFINITY, INFINITY, &x, where, err, errlen) < 0) return -1;
  if (!json_object_get(obj, key)) {
    *out = def;
    return 0;
  }
  const double scale = is_rate ? (double)BASE_BPS_PER_GBPS : (double)BASE_PS_PER_NS;
  const double lo = is_rate ? (double)TOPO_MIN_RATE_BPS : 1;
  const double hi = is_rate ? (double)TOPO_MAX_RATE_BPS : (double)TOPO_MAX_DELAY_PS;
  if (!(x * scale >= lo - 0.5 && x * scale <= hi)) { /* NaN fails too */
    topo_jerr(err, errlen, where, key, "must be %s, got %g",
              is_rate ? "1 to 1e6 Gb/s (1 Gb/s to 1 Pb/s)" : "0.001 to 1e9 ns (1 ps to 1 s)", x);
    return -1;
  }
  *out = llround(x * scale);
  return 0;
}

int topo_jlinks(const json_t *obj, int with_host, topo_jlinks_t *out, const char *where, char *err,
                size_t errlen) {
  if (scaled_key(obj, "link_gbps", 100000000000, 1, &out->link_bps, where, err, errlen) < 0 ||
      scaled_key(obj, "link_delay_ns", 1000000, 0, &out->link_ps, where, err, errlen) < 0)
    return -1;
  out->host_bps = out->link_bps;
  out->host_ps = out->link_ps;
  if (!with_host) return 0;
  if (scaled_key(obj, "host_gbps", out->link_bps, 1, &out->host_bps, where, err, errlen) < 0 ||
      scaled_key(obj, "host_delay_ns", out->link_ps, 0, &out->host_ps, where, err, errlen) < 0)
    return -1;
  return 0;
}
