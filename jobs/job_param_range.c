/* The range of every numeric parameter key (its ENG_PARAMS / CC_PARAMS row), in
 * its user's unit, checked exactly when a value is applied (--set, --sweep, job
 * files, presets): a value outside it is an error naming the key and the
 * range, before anything runs. Only -1, and only where a derived value exists,
 * means "derived". */
#include <stdio.h>
#include <string.h>

#include "jobs/job_param_int.h"

const eng_range_t *job_range_find(const char *key) {
  for (int i = 0; i < eng_n_params; i++)
    if (strcmp(eng_param_info[i].key, key) == 0)
      return eng_param_info[i].range.numeric ? &eng_param_info[i].range : NULL;
  return NULL;
}

/* Compares decimals exactly: -1, 0 or 1 as a < b, a = b, a > b. */
static int range_cmp(const job_dec_t *a, const job_dec_t *b) {
  if (a->n == 0 || b->n == 0 || a->neg != b->neg) {
    int sa = a->n == 0 ? 0 : a->neg ? -1 : 1, sb = b->n == 0 ? 0 : b->neg ? -1 : 1;
    return (sa > sb) - (sa < sb);
  }
  int sign = a->neg ? -1 : 1;
  int ma = a->n + a->exp, mb = b->n + b->exp; /* value = 0.digits x 10^m */
  if (ma != mb) return ma > mb ? sign : -sign;
  int c = strcmp(a->digits, b->digits); /* same magnitude: digit by digit */
  return c > 0 ? sign : c < 0 ? -sign : 0;
}

/* The decimal is exactly -1. */
static int range_minus_one(const job_dec_t *d) {
  return d->neg && d->n == 1 && d->digits[0] == '1' && d->exp == 0;
}

int job_range_check(const job_key_t *k, const eng_params_t *p, const job_dec_t *d, const char *text,
                    char *why, size_t len) {
  const eng_range_t *r = job_range_find(k->name);
  if (!r) return 0;
  if (r->derived && range_minus_one(d)) return 1;
  /* A key of another congestion control than the experiment's has no effect;
   * a preset leaves those 0, and the canonical text writes them so. */
  if (k->cc_kind != CC_NONE && k->cc_kind != p->ccp.kind && d->n == 0) return 0;
  job_dec_t lo, hi;
  job_dec_from_double(r->lo, &lo);
  job_dec_from_double(r->hi, &hi);
  int ok = range_cmp(d, &lo) >= r->lo_open && range_cmp(d, &hi) <= 0;
  if (ok && strcmp(k->name, "ring_cap") == 0) { /* a power of two */
    int64_t v = -1;
    ok = job_dec_to_int(d, 0, 0, 1, &v) == 0 && (v & (v - 1)) == 0;
  }
  if (ok) return 0;
  char num[80];
  job_dec_format(d, num, sizeof num);
  snprintf(why, len, "%s%.200s%s is out of range: %s", text ? "'" : "", text ? text : num,
           text ? "'" : "", r->words);
  return -1;
}

int job_range_zero(const job_key_t *k, const eng_params_t *p, char *why, size_t len) {
  const eng_range_t *r = job_range_find(k->name);
  if (!r || !r->lo_open || (k->cc_kind != CC_NONE && k->cc_kind != p->ccp.kind)) return 0;
  snprintf(why, len, "rounds to 0, out of range: %s", r->words);
  return -1;
}
