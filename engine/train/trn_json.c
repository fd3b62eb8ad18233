/* trn: the problem list and checked access to JSON keys; a bad key adds one problem
 * naming its path ("job.json: base.training.tp: must be ...") and parsing goes on. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/base_err.h"
#include "base/base_json.h"
#include "train/trn_int.h"

/* One line whatever it quotes: control characters (a key "a\nb") become '?'. */
static void vproblem(trn_problems_t *p, const char *fmt, va_list ap) {
  if (p->n < TRN_PROBLEMS_MAX) base_verrf(p->msg[p->n], TRN_ERR_LEN, fmt, ap);
  p->n++;
}

void trn_problem(trn_problems_t *p, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vproblem(p, fmt, ap);
  va_end(ap);
}

const char *trn_path(char *buf, size_t len, const char *where, const char *key) {
  if (key)
    snprintf(buf, len, "%s.%s", where, key);
  else
    snprintf(buf, len, "%s", where);
  return buf;
}

void trn_jproblem(trn_problems_t *pr, const char *where, const char *key, const char *fmt, ...) {
  char path[TRN_ERR_LEN], msg[TRN_ERR_LEN];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  trn_problem(pr, "%s: %s", trn_path(path, sizeof path, where, key), msg);
}

void trn_jkeys(const json_t *obj, const char *const *allowed, const char *where,
               trn_problems_t *pr) {
  const char *key;
  json_t *v;
  json_object_foreach((json_t *)obj, key, v) {
    int ok = 0;
    for (int i = 0; allowed[i] && !ok; i++)
      ok = strcmp(key, allowed[i]) == 0;
    if (ok) continue;
    char list[TRN_ERR_LEN / 2] = "";
    for (int i = 0; allowed[i]; i++) {
      size_t n = strlen(list);
      snprintf(list + n, sizeof list - n, "%s%s", i ? ", " : "", allowed[i]);
    }
    trn_jproblem(pr, where, key, "unknown key (known: %s)", list);
  }
}

int trn_jint(const json_t *obj, const char *key, int64_t min, int64_t max, int64_t *out,
             const char *where, trn_problems_t *pr) {
  const json_t *v = json_object_get(obj, key);
  char buf[64];
  int64_t x;
  if (!v) return 0;
  if (json_is_integer(v)) {
    x = json_integer_value(v);
  } else if (json_is_real(v) && json_real_value(v) == floor(json_real_value(v)) &&
             fabs(json_real_value(v)) < 0x1p62) {
    x = (int64_t)json_real_value(v);
  } else {
    trn_jproblem(pr, where, key, "must be an integer, got %s",
                 base_json_describe(v, buf, sizeof buf));
    return -1;
  }
  if (x < min || x > max) {
    trn_jproblem(pr, where, key, "must be an integer in %lld..%lld, got %lld", (long long)min,
                 (long long)max, (long long)x);
    return -1;
  }
  *out = x;
  return 1;
}

int trn_jnum(const json_t *obj, const char *key, double min, double max, double *out,
             const char *where, trn_problems_t *pr) {
  const json_t *v = json_object_get(obj, key);
  char buf[64];
  if (!v) return 0;
  if (!json_is_number(v)) {
    trn_jproblem(pr, where, key, "must be a number, got %s",
                 base_json_describe(v, buf, sizeof buf));
    return -1;
  }
  double x = json_number_value(v);
  if (!(x >= min && x <= max)) {
    trn_jproblem(pr, where, key, "must be a number in [%g, %g], got %g", min, max, x);
    return -1;
  }
  *out = x;
  return 1;
}

int trn_jbool(const json_t *obj, const char *key, int32_t *out, const char *where,
              trn_problems_t *pr) {
  const json_t *v = json_object_get(obj, key);
  char buf[64];
  if (!v) return 0;
  if (!json_is_boolean(v)) {
    trn_jproblem(pr, where, key, "must be true or false, got %s",
                 base_json_describe(v, buf, sizeof buf));
    return -1;
  }
  *out = json_is_true(v);
  return 1;
}

int trn_jenum(const json_t *obj, const char *key, const char *const *names, int32_t *out,
              const char *where, trn_problems_t *pr) {
  const json_t *v = json_object_get(obj, key);
  char buf[64], list[TRN_ERR_LEN / 2] = "";
  if (!v) return 0;
  for (int i = 0; names[i]; i++) {
    if (json_is_string(v) && strcmp(json_string_value(v), names[i]) == 0) {
      *out = i;
      return 1;
    }
    size_t n = strlen(list);
    snprintf(list + n, sizeof list - n, "%s\"%s\"", i ? ", " : "", names[i]);
  }
  trn_jproblem(pr, where, key, "must be one of %s, got %s", list,
               base_json_describe(v, buf, sizeof buf));
  return -1;
}

int trn_jstr(const json_t *obj, const char *key, char *out, size_t len, const char *where,
             trn_problems_t *pr) {
  const json_t *v = json_object_get(obj, key);
  char buf[64];
  if (!v) return 0;
  if (!json_is_string(v)) {
    trn_jproblem(pr, where, key, "must be a string, got %s",
                 base_json_describe(v, buf, sizeof buf));
    return -1;
  }
  if (strlen(json_string_value(v)) >= len) {
    trn_jproblem(pr, where, key, "must be shorter than %zu characters", len);
    return -1;
  }
  snprintf(out, len, "%s", json_string_value(v));
  return 1;
}
