/* Results: the in-memory table of experiments (columns, rows, global attributes). */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ana_int.h"

char *ana_strdup(const char *s) {
  char *d = strdup(s ? s : "");
  if (!d) abort();
  return d;
}

static void *grow(void *p, int64_t n, size_t size) {
  p = realloc(p, (size_t)n * size);
  if (!p) abort();
  return p;
}

const char *ana_status_name(int s) {
#define ANA_STATUS_STR(e, name) #name,
  static const char *const names[ANA_STATUS_N] = {BASE_STATUSES(ANA_STATUS_STR)};
#undef ANA_STATUS_STR
  return s >= 0 && s < ANA_STATUS_N ? names[s] : "?";
}

void ana_var_name(const char *key, char *buf, size_t len) {
  size_t n = 0;
  if (len == 0) return;
  if (!isalpha((unsigned char)key[0]) && n + 1 < len) buf[n++] = 'v';
  for (const char *p = key; *p && n + 1 < len; p++)
    buf[n++] = isalnum((unsigned char)*p) ? *p : '_';
  buf[n] = '\0';
}

static int name_ok(const char *s) {
  if (!s || !isalpha((unsigned char)s[0])) return 0;
  for (; *s; s++)
    if (!isalnum((unsigned char)*s) && *s != '_') return 0;
  return 1;
}

static int reserved(const char *s) {
  static const char *const fixed[] = {ANA_V_INDEX,   ANA_V_ID,     ANA_V_STATUS,
                                      ANA_V_MESSAGE, ANA_V_CONFIG, ANA_DIM};
  for (size_t k = 0; k < sizeof fixed / sizeof *fixed; k++)
    if (strcmp(s, fixed[k]) == 0) return 1;
  return 0;
}

ana_table_t *ana_table_create(const ana_col_t *cols, int n_cols, char *err, size_t errlen) {
  for (int c = 0; c < n_cols; c++) {
    if (!name_ok(cols[c].name) || reserved(cols[c].name) || cols[c].type > ANA_STRING) {
      snprintf(err, errlen, "results column '%s': %s", cols[c].name ? cols[c].name : "",
               cols[c].type > ANA_STRING ? "unknown type"
               : name_ok(cols[c].name)   ? "name taken by a fixed variable"
                                         : "a name is a letter, then letters, digits, '_'");
      return NULL;
    }
    for (int k = 0; k < c; k++)
      if (strcmp(cols[k].name, cols[c].name) == 0) {
        snprintf(err, errlen, "results column '%s' appears twice", cols[c].name);
        return NULL;
      }
  }
  ana_table_t *t = calloc(1, sizeof *t);
  if (!t) abort();
  t->n_cols = n_cols;
  t->cols = calloc((size_t)n_cols + 1, sizeof *t->cols);
  if (!t->cols) abort();
  for (int c = 0; c < n_cols; c++) {
    ana_col_t *d = &t->cols[c].col;
    d->name = ana_strdup(cols[c].name);
    d->type = cols[c].type;
    d->units = cols[c].units ? ana_strdup(cols[c].units) : NULL;
    d->long_name = ana_strdup(cols[c].long_name ? cols[c].long_name
                              : cols[c].key     ? cols[c].key
                                                : cols[c].name);
    d->key = cols[c].key ? ana_strdup(cols[c].key) : NULL;
  }
  return t;
}

void ana_table_append(ana_table_t *t, const ana_row_t *r) {
  if (t->n_rows == t->cap) {
    t->cap = t->cap ? 2 * t->cap : 64;
    t->index = grow(t->index, t->cap, sizeof *t->index);
    t->id = grow(t->id, t->cap, sizeof *t->id);
    t->message = grow(t->message, t->cap, sizeof *t->message);
    t->config = grow(t->config, t->cap, sizeof *t->config);
    t->status = grow(t->status, t->cap, sizeof *t->status);
    for (int c = 0; c < t->n_cols; c++) {
      ana_column_t *col = &t->cols[c];
      if (col->col.type == ANA_DOUBLE) col->d = grow(col->d, t->cap, sizeof *col->d);
      if (col->col.type == ANA_INT64) col->i = grow(col->i, t->cap, sizeof *col->i);
      if (col->col.type == ANA_STRING) col->s = grow(col->s, t->cap, sizeof *col->s);
    }
  }
  int64_t n = t->n_rows++;
  t->index[n] = r->index;
  t->id[n] = ana_strdup(r->id);
  t->message[n] = ana_strdup(r->message);
  t->config[n] = ana_strdup(r->config);
  t->status[n] = (unsigned char)r->status;
  for (int c = 0; c < t->n_cols; c++) {
    ana_column_t *col = &t->cols[c];
    if (col->col.type == ANA_DOUBLE) col->d[n] = r->values[c].d;
    if (col->col.type == ANA_INT64) col->i[n] = r->values[c].i;
    if (col->col.type == ANA_STRING) col->s[n] = ana_strdup(r->values[c].s);
  }
}

void ana_table_set_attr(ana_table_t *t, const char *name, const char *value) {
  for (int k = 0; k < t->n_attrs; k++)
    if (strcmp(t->attr_name[k], name) == 0) {
      free(t->attr_value[k]);
      t->attr_value[k] = ana_strdup(value);
      return;
    }
  t->attr_name = grow(t->attr_name, t->n_attrs + 1, sizeof *t->attr_name);
  t->attr_value = grow(t->attr_value, t->n_attrs + 1, sizeof *t->attr_value);
  t->attr_name[t->n_attrs] = ana_strdup(name);
  t->attr_value[t->n_attrs++] = ana_strdup(value);
}

const char *ana_table_attr(const ana_table_t *t, const char *name) {
  for (int k = 0; k < t->n_attrs; k++)
    if (strcmp(t->attr_name[k], name) == 0) return t->attr_value[k];
  return NULL;
}

int ana_table_n_attrs(const ana_table_t *t) {
  return t->n_attrs;
}

const char *ana_table_attr_name(const ana_table_t *t, int k) {
  return k >= 0 && k < t->n_attrs ? t->attr_name[k] : NULL;
}

int ana_table_n_cols(const ana_table_t *t) {
  return t->n_cols;
}

const ana_col_t *ana_table_col(const ana_table_t *t, int c) {
  return c >= 0 && c < t->n_cols ? &t->cols[c].col : NULL;
}

int ana_table_find(const ana_table_t *t, const char *s) {
  for (int c = 0; c < t->n_cols; c++)
    if (strcmp(t->cols[c].col.name, s) == 0 ||
        (t->cols[c].col.key && strcmp(t->cols[c].col.key, s) == 0))
      return c;
  return -1;
}

int64_t ana_table_n_rows(const ana_table_t *t) {
  return t->n_rows;
}

ana_row_t ana_table_row(const ana_table_t *t, int64_t r) {
  return (ana_row_t){.index = t->index[r],
                     .id = t->id[r],
                     .status = (ana_status_t)t->status[r],
                     .message = t->message[r],
                     .config = t->config[r]};
}

ana_value_t ana_table_value(const ana_table_t *t, int64_t r, int c) {
  const ana_column_t *col = &t->cols[c];
  return (ana_value_t){
      .d = col->d ? col->d[r] : 0, .i = col->i ? col->i[r] : 0, .s = col->s ? col->s[r] : NULL};
}

void ana_table_free(ana_table_t *t) {
  if (!t) return;
  for (int64_t r = 0; r < t->n_rows; r++) {
    free(t->id[r]);
    free(t->message[r]);
    free(t->config[r]);
  }
  for (int c = 0; c < t->n_cols; c++) {
    ana_column_t *col = &t->cols[c];
    for (int64_t r = 0; col->s && r < t->n_rows; r++)
      free(col->s[r]);
    free(col->d);
    free(col->i);
    free(col->s);
    free((char *)col->col.name);
    free((char *)col->col.units);
    free((char *)col->col.long_name);
    free((char *)col->col.key);
  }
  for (int k = 0; k < t->n_attrs; k++) {
    free(t->attr_name[k]);
    free(t->attr_value[k]);
  }
  free(t->attr_name);
  free(t->attr_value);
  free(t->cols);
  free(t->index);
  free(t->id);
  free(t->message);
  free(t->config);
  free(t->status);
  free(t);
}
