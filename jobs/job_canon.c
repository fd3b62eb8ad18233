/* Canonical JSON: sorted keys, compact, numbers as their shortest exact
 * decimal; parameters written in the user's units from their stored values. */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobs/job_param_int.h"

void job_buf_add(job_buf_t *b, const char *s, size_t n) {
  if (b->oom) return;
  if (b->n + n + 1 > b->cap) {
    size_t cap = b->cap ? 2 * b->cap : 256;
    while (cap < b->n + n + 1)
      cap *= 2;
    char *t = realloc(b->s, cap);
    if (!t) {
      b->oom = 1;
      return;
    }
    b->s = t;
    b->cap = cap;
  }
  memcpy(b->s + b->n, s, n);
  b->n += n;
  b->s[b->n] = 0;
}

void job_buf_puts(job_buf_t *b, const char *s) {
  job_buf_add(b, s, strlen(s));
}

void job_buf_printf(job_buf_t *b, const char *fmt, ...) {
  va_list ap, aq;
  va_start(ap, fmt);
  va_copy(aq, ap);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  char *t = n >= 0 ? malloc((size_t)n + 1) : NULL;
  if (t) {
    vsnprintf(t, (size_t)n + 1, fmt, aq);
    job_buf_add(b, t, (size_t)n);
  } else {
    b->oom = 1;
  }
  va_end(aq);
  free(t);
}

char *job_buf_take(job_buf_t *b) {
  char *s = b->oom ? NULL : b->s ? b->s : strdup("");
  if (b->oom) free(b->s);
  memset(b, 0, sizeof *b);
  return s;
}

void job_buf_json_string(job_buf_t *b, const char *s) {
  job_buf_add(b, "\"", 1);
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    char esc[8];
    if (c == '"' || c == '\\') {
      esc[0] = '\\';
      esc[1] = (char)c;
      job_buf_add(b, esc, 2);
    } else if (c < 0x20) {
      snprintf(esc, sizeof esc, "\\u%04x", c);
      job_buf_add(b, esc, 6);
    } else {
      job_buf_add(b, s, 1);
    }
  }
  job_buf_add(b, "\"", 1);
}

static int canon_by_key(const void *a, const void *b) {
  return strcmp(((const job_member_t *)a)->key, ((const job_member_t *)b)->key);
}

static int canon_by_name(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

void job_buf_json(job_buf_t *b, const json_t *v) {
  char num[80];
  job_dec_t d;
  switch (json_typeof(v)) {
  case JSON_OBJECT: {
    size_t n = json_object_size(v), i = 0;
    const char **keys = malloc((n + 1) * sizeof *keys);
    if (!keys) {
      b->oom = 1;
      return;
    }
    const char *key;
    json_t *x;
    json_object_foreach((json_t *)v, key, x) keys[i++] = key;
    qsort(keys, n, sizeof *keys, canon_by_name);
    job_buf_add(b, "{", 1);
    for (i = 0; i < n; i++) {
      if (i) job_buf_add(b, ",", 1);
      job_buf_json_string(b, keys[i]);
      job_buf_add(b, ":", 1);
      job_buf_json(b, json_object_get(v, keys[i]));
    }
    job_buf_add(b, "}", 1);
    free(keys);
    return;
  }
  case JSON_ARRAY:
    job_buf_add(b, "[", 1);
    for (size_t i = 0; i < json_array_size(v); i++) {
      if (i) job_buf_add(b, ",", 1);
      job_buf_json(b, json_array_get(v, i));
    }
    job_buf_add(b, "]", 1);
    return;
  case JSON_STRING:
    job_buf_json_string(b, json_string_value(v));
    return;
  case JSON_INTEGER:
    snprintf(num, sizeof num, "%lld", (long long)json_integer_value(v));
    job_buf_puts(b, num);
    return;
  case JSON_REAL:
    if (job_dec_from_double(json_real_value(v), &d)) d.n = 0; /* jansson holds finite reals */
    job_dec_format(&d, num, sizeof num);
    job_buf_puts(b, num);
    return;
  case JSON_TRUE:
    job_buf_puts(b, "true");
    return;
  case JSON_FALSE:
    job_buf_puts(b, "false");
    return;
  default:
    job_buf_puts(b, "null");
    return;
  }
}

/* v / (2^pow2 * 10^scale10) as an exact decimal. */
static void canon_int(job_buf_t *b, int64_t v, int pow2, int scale10) {
  job_dec_t d;
  char num[80];
  job_dec_of_int(v, pow2, scale10, &d);
  job_dec_format(&d, num, sizeof num);
  job_buf_puts(b, num);
}

/* x * 10^-scale10 as the shortest decimal that reads back as x. */
static void canon_double(job_buf_t *b, double x, int scale10) {
  job_dec_t d;
  char num[80];
  if (job_dec_from_double(x, &d)) memset(&d, 0, sizeof d); /* not finite: checks reject it */
  if (d.n) d.exp -= scale10;
  job_dec_format(&d, num, sizeof num);
  job_buf_puts(b, num);
}

static void canon_value(job_buf_t *b, const eng_params_t *p, const job_key_t *k) {
  const char *at = (const char *)p + k->off;
  switch (k->unit) {
  case JOB_U_COUNT:
    canon_int(b, *(const int32_t *)at, 0, 0);
    return;
  case JOB_U_BOOL:
    job_buf_puts(b, *(const int32_t *)at ? "true" : "false");
    return;
  case JOB_U_KIB:
    if (*(const int64_t *)at < 0)
      job_buf_puts(b, "-1");
    else
      canon_int(b, *(const int64_t *)at, 10, 0);
    return;
  case JOB_U_MIB:
    canon_int(b, *(const int64_t *)at, 20, 0);
    return;
  case JOB_U_Q16:
    canon_int(b, *(const int64_t *)at, 16, 0);
    return;
  case JOB_U_US:
    canon_int(b, *(const int64_t *)at, 0, 6);
    return;
  case JOB_U_S:
    canon_int(b, *(const int64_t *)at, 0, 12);
    return;
  case JOB_U_REAL:
    canon_double(b, *(const double *)at, 0);
    return;
  case JOB_U_MBPS:
    if (*(const double *)at < 0)
      job_buf_puts(b, "-1");
    else
      canon_double(b, *(const double *)at, 6);
    return;
  case JOB_U_LB: {
    int32_t lb = *(const int32_t *)at;
    job_buf_json_string(b, lb >= 0 && lb < JOB_LBS ? job_lb_names[lb] : "?");
    return;
  }
  case JOB_U_MODEL: {
    int32_t m = *(const int32_t *)at;
    job_buf_json_string(b, m >= 0 && m < JOB_MODELS ? job_model_names[m] : "?");
    return;
  }
  case JOB_U_CC: {
    int32_t kind = ((const cc_params_t *)at)->kind;
    job_buf_json_string(b, kind >= 0 && kind < JOB_CC_KINDS ? job_cc_names[kind] : "?");
    return;
  }
  case JOB_U_ECN_TABLE: {
    /* Keys sorted as strings, as every canonical object. */
    const eng_ecn_table_t *t = (const eng_ecn_table_t *)at;
    job_member_t m[ENG_ECN_ROWS_MAX];
    char keys[ENG_ECN_ROWS_MAX][24];
    int n = t->n < 0 ? 0 : t->n > ENG_ECN_ROWS_MAX ? ENG_ECN_ROWS_MAX : t->n;
    for (int r = 0; r < n; r++) {
      job_buf_t row = {0};
      snprintf(keys[r], sizeof keys[r], "%lld", (long long)t->row[r].gbps);
      job_buf_puts(&row, "[");
      canon_int(&row, t->row[r].kmin, 10, 0);
      job_buf_puts(&row, ",");
      canon_int(&row, t->row[r].kmax, 10, 0);
      job_buf_puts(&row, ",");
      canon_double(&row, t->row[r].pmax, 0);
      job_buf_puts(&row, "]");
      m[r] = (job_member_t){keys[r], job_buf_take(&row)};
    }
    int lost = 0;
    for (int r = 0; r < n; r++)
      lost |= m[r].value == NULL;
    for (int r = 0; lost && r < n; r++)
      free(m[r].value);
    char *obj = lost ? NULL : job_members_object(m, n);
    if (!obj)
      b->oom = 1;
    else
      job_buf_puts(b, obj);
    free(obj);
    return;
  }
  }
}

int job_params_members(const eng_params_t *p, job_member_t *m) {
  for (int i = 0; i < job_n_keys; i++) {
    job_buf_t b = {0};
    canon_value(&b, p, &job_keys[i]);
    m[i] = (job_member_t){job_keys[i].name, job_buf_take(&b)};
    if (!m[i].value) {
      for (int j = 0; j <= i; j++)
        free(m[j].value);
      return -1;
    }
  }
  return job_n_keys;
}

char *job_members_object(job_member_t *m, int n) {
  job_buf_t b = {0};
  qsort(m, (size_t)n, sizeof *m, canon_by_key);
  job_buf_puts(&b, "{");
  for (int i = 0; i < n; i++) {
    if (i) job_buf_puts(&b, ",");
    job_buf_json_string(&b, m[i].key);
    job_buf_puts(&b, ":");
    job_buf_puts(&b, m[i].value);
    free(m[i].value);
  }
  job_buf_puts(&b, "}");
  return job_buf_take(&b);
}

char *job_params_canonical(const eng_params_t *p) {
  job_member_t *m = malloc(((size_t)job_n_keys + 1) * sizeof *m);
  if (!m) return NULL;
  int n = job_params_members(p, m);
  char *s = n < 0 ? NULL : job_members_object(m, n);
  free(m);
  return s;
}

char *job_json_canonical(const json_t *v) {
  job_buf_t b = {0};
  job_buf_json(&b, v);
  return job_buf_take(&b);
}

json_t *job_param_json(const eng_params_t *p, const char *key) {
  const job_key_t *k = job_key_find(key);
  if (!k) return NULL;
  job_buf_t b = {0};
  canon_value(&b, p, k);
  char *text = job_buf_take(&b);
  json_t *v = text ? json_loads(text, JSON_DECODE_ANY, NULL) : NULL;
  free(text);
  return v;
}

int job_member_json(job_member_t *m, int *n, const char *key, json_t *v) {
  job_buf_t b = {0};
  if (!v) return -1;
  job_buf_json(&b, v);
  json_decref(v);
  m[*n] = (job_member_t){key, job_buf_take(&b)};
  return m[(*n)++].value ? 0 : -1;
}
