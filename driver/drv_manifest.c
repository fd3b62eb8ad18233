/* driver: RUNDIR/manifest.jsonl, the expanded job a run folder holds: a header
 * line (job, name, kind, output, counts, swept keys with their types), then
 * one line per experiment: {"index","id","values","config"} (config: its
 * canonical JSON as a string, byte for byte). The merge reads it back. A job
 * with refine stages has two more keys, refine.stage (0: the sweep's) and
 * refine.of (the index of the experiment it refines, -1), and its stages in
 * the header; it is written again as each stage adds experiments. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver/drv_jobs.h"

static const char *const type_names[] = {"int", "real", "bool", "string", "json"};

static ana_type_t col_type(int t) {
  return t == JOB_SWEEP_INT || t == JOB_SWEEP_BOOL ? ANA_INT64
         : t == JOB_SWEEP_REAL                     ? ANA_DOUBLE
                                                   : ANA_STRING;
}

static json_t *man_header(const drv_job_t *j) {
  json_t *axes = json_array();
  for (int a = 0; a < job_sweep_n_axes(j->sw); a++)
    json_array_append_new(axes, json_pack("{s:s,s:s}", "key", job_sweep_axis(j->sw, a), "type",
                                          type_names[job_sweep_axis_type(j->sw, a)]));
  json_t *h =
      json_pack("{s:i,s:s,s:s,s:s,s:s,s:I,s:I,s:o}", "manifest", 1, "job", j->path, "name",
                job_sweep_name(j->sw), "kind", j->kind->name, "output", job_sweep_output(j->sw),
                "count", (json_int_t)j->count, "distinct", (json_int_t)j->distinct, "axes", axes);
  if (!h || job_sweep_n_stages(j->sw) == 0) return h;
  json_t *stages = json_array();
  for (int s = 1; s <= job_sweep_n_stages(j->sw); s++) {
    const job_refine_t *r = job_sweep_stage(j->sw, s);
    json_t *o = json_pack("{s:s,s:s,s:O}", "metric", r->metric, "order",
                          r->maximize ? "max" : "min", "set", r->set);
    if (r->keep_pct > 0)
      json_object_set_new(o, "keep_pct", json_real(r->keep_pct));
    else
      json_object_set_new(o, "keep", json_integer(r->keep));
    json_array_append_new(stages, o);
  }
  json_object_set_new(h, "refine", stages);
  json_array_append_new(axes, json_pack("{s:s,s:s}", "key", "refine.stage", "type", "int"));
  json_array_append_new(axes, json_pack("{s:s,s:s}", "key", "refine.of", "type", "int"));
  return h;
}

static int man_line(FILE *f, json_t *o) {
  if (!o) return -1;
  char *s = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
  json_decref(o);
  if (!s) return -1;
  int rc = fprintf(f, "%s\n", s) < 0 ? -1 : 0;
  free(s);
  return rc;
}

int drv_manifest_write(const char *run_dir, const drv_job_t *j, char *err, size_t errlen) {
  char path[4200], id[17];
  snprintf(path, sizeof path, "%s/manifest.jsonl", run_dir);
  drv_out_t out; /* the output rule: written whole, then renamed */
  if (drv_out_open(&out, path, err, errlen)) return -1;
  FILE *f = out.f;
  int rc = man_line(f, man_header(j));
  for (int64_t i = 0; !rc && i < j->count; i++) {
    json_t *vals = json_array();
    for (int a = 0; a < job_sweep_n_axes(j->sw); a++) {
      json_t *v = job_sweep_value(j->sw, i, a);
      json_array_append(vals, v ? v : json_null());
    }
    if (job_sweep_n_stages(j->sw) > 0) {
      json_array_append_new(vals, json_integer(job_sweep_exp_stage(j->sw, i)));
      json_array_append_new(vals, json_integer(job_sweep_exp_refines(j->sw, i)));
    }
    drv_id_text(j->id[i], id);
    rc = man_line(f, json_pack("{s:I,s:s,s:o,s:s}", "index", (json_int_t)i, "id", id, "values",
                               vals, "config", j->canon[j->first[i]]));
  }
  if (rc) {
    snprintf(err, errlen, "%s: cannot write", path);
    drv_out_abort(&out);
    return -1;
  }
  return drv_out_commit(&out, err, errlen);
}

/* Swept value v of a column of type t. `text` receives a string to free. */
static ana_value_t man_value(const json_t *v, ana_type_t t, char **text) {
  ana_value_t x = {.d = NAN, .i = ANA_FILL_INT64, .s = ""};
  if (!v || json_is_null(v)) return x;
  if (t == ANA_INT64) x.i = json_is_boolean(v) ? json_is_true(v) : json_integer_value(v);
  if (t == ANA_DOUBLE) x.d = json_number_value(v);
  if (t == ANA_STRING)
    x.s = json_is_string(v) ? json_string_value(v)
                            : (*text = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY));
  return x;
}

/* The table's columns from the header: swept keys, then the kind's results. */
static ana_table_t *man_table(const json_t *h, const drv_kind_t *kind, char *err, size_t errlen) {
  const json_t *axes = json_object_get(h, "axes");
  size_t na = json_array_size(axes);
  ana_col_t *cols = calloc(na + (size_t)kind->n_cols + 1, sizeof *cols);
  char(*names)[128] = calloc(na + 1, sizeof *names);
  if (!cols || !names) abort();
  for (size_t a = 0; a < na; a++) {
    const json_t *ax = json_array_get(axes, a);
    const char *key = json_string_value(json_object_get(ax, "key"));
    const char *type = json_string_value(json_object_get(ax, "type"));
    int t = 0;
    while (t < 5 && (!type || strcmp(type, type_names[t]) != 0))
      t++;
    ana_var_name(key ? key : "", names[a], sizeof names[a]);
    cols[a] = (ana_col_t){.name = names[a], .type = col_type(t), .key = key};
  }
  for (int c = 0; c < kind->n_cols; c++)
    cols[na + (size_t)c] = kind->cols[c];
  ana_table_t *t = ana_table_create(cols, (int)na + kind->n_cols, err, errlen);
  if (t) {
    ana_table_set_attr(t, "title", json_string_value(json_object_get(h, "name")));
    ana_table_set_attr(t, "job_file", json_string_value(json_object_get(h, "job")));
    char *refine = json_object_get(h, "refine")
                       ? json_dumps(json_object_get(h, "refine"), JSON_COMPACT | JSON_SORT_KEYS)
                       : NULL;
    if (refine) ana_table_set_attr(t, "refine", refine);
    free(refine);
  }
  free(cols);
  free(names);
  return t;
}

/* Appends one experiment line to t; -1 if malformed. */
static int man_row(ana_table_t *t, const json_t *o, int na, ana_value_t *v) {
  const json_t *vals = json_object_get(o, "values");
  const char *id = json_string_value(json_object_get(o, "id"));
  const char *config = json_string_value(json_object_get(o, "config"));
  const json_t *index = json_object_get(o, "index");
  if (!id || !config || !json_is_integer(index) || json_array_size(vals) != (size_t)na) return -1;
  char **texts = calloc((size_t)na + 1, sizeof *texts);
  if (!texts) abort();
  for (int a = 0; a < na; a++)
    v[a] = man_value(json_array_get(vals, (size_t)a), ana_table_col(t, a)->type, &texts[a]);
  for (int c = na; c < ana_table_n_cols(t); c++)
    v[c] = (ana_value_t){.d = NAN, .i = ANA_FILL_INT64, .s = ""};
  ana_table_append(t, &(ana_row_t){.index = json_integer_value(index),
                                   .id = id,
                                   .status = ANA_OK,
                                   .config = config,
                                   .values = v});
  for (int a = 0; a < na; a++)
    free(texts[a]);
  free(texts);
  return 0;
}

int drv_manifest_header(const char *run_dir, char *name, size_t name_len, char *job,
                        size_t job_len) {
  char path[4200];
  snprintf(path, sizeof path, "%s/manifest.jsonl", run_dir);
  FILE *f = fopen(path, "r");
  if (!f) return -1;
  char *line = NULL;
  size_t cap = 0;
  ssize_t n = getline(&line, &cap, f);
  fclose(f);
  json_t *o = n > 0 ? json_loadb(line, (size_t)n, 0, NULL) : NULL;
  free(line);
  const char *s = json_string_value(json_object_get(o, "name"));
  const char *j = json_string_value(json_object_get(o, "job"));
  int rc = s && j && json_integer_value(json_object_get(o, "manifest")) == 1 ? 0 : -1;
  if (!rc) {
    snprintf(name, name_len, "%s", s);
    snprintf(job, job_len, "%s", j);
  }
  json_decref(o);
  return rc;
}

/* What a row must agree with (a hand-edited manifest relabelled results):
 * its index is its place, its id names one configuration and a configuration
 * one id, and each swept value is the configuration's where that holds the key
 * as a number, string or bool. 0, or -1 with why in err. */
typedef struct man_seen_t {
  drv_map_t *by_id, *by_config; /* id -> config, config -> id (owned copies) */
  const json_t *axes;
} man_seen_t;

static int man_agrees(man_seen_t *s, const json_t *o, long row, char *why, size_t len) {
  const char *id = json_string_value(json_object_get(o, "id"));
  const char *config = json_string_value(json_object_get(o, "config"));
  if (json_integer_value(json_object_get(o, "index")) != row) {
    snprintf(why, len, "index %lld, expected %ld (rows in order)",
             (long long)json_integer_value(json_object_get(o, "index")), row);
    return -1;
  }
  const char *c = drv_map_get(s->by_id, id), *i = drv_map_get(s->by_config, config);
  if ((c && strcmp(c, config) != 0) || (i && strcmp(i, id) != 0)) {
    snprintf(why, len, "experiment id %.40s %s", id,
             c && strcmp(c, config) != 0 ? "is an earlier row's, with another configuration"
                                         : "differs from an earlier row's with this configuration");
    return -1;
  }
  if (!c &&
      (drv_map_put(s->by_id, id, strdup(config)) || drv_map_put(s->by_config, config, strdup(id))))
    abort();
  json_t *cfg = json_loads(config, 0, NULL);
  int rc = 0;
  for (size_t a = 0; !rc && a < json_array_size(s->axes); a++) {
    const char *key = json_string_value(json_object_get(json_array_get(s->axes, a), "key"));
    const json_t *v = json_array_get(json_object_get(o, "values"), a);
    const json_t *w = key && cfg ? job_sweep_get(cfg, key) : NULL;
    /* null: an include entry that does not set this key */
    int scalar = v && !json_is_null(v) && w &&
                 (json_is_number(w) || json_is_string(w) || json_is_boolean(w));
    if (scalar && !job_same(v, w)) {
      char *vs = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
      char *ws = json_dumps(w, JSON_COMPACT | JSON_ENCODE_ANY);
      snprintf(why, len, "%s is %.100s here but %.100s in its config", key, vs ? vs : "?",
               ws ? ws : "?");
      free(vs);
      free(ws);
      rc = -1;
    }
  }
  json_decref(cfg);
  return rc;
}

ana_table_t *drv_manifest_read(const char *run_dir, const drv_kind_t **kind, char *output,
                               size_t output_len, char *err, size_t errlen) {
  char path[4200];
  snprintf(path, sizeof path, "%s/manifest.jsonl", run_dir);
  FILE *f = fopen(path, "r");
  if (!f) {
    snprintf(err, errlen, "%s: %s (not a run folder?)", path, strerror(errno));
    return NULL;
  }
  char *line = NULL;
  size_t cap = 0;
  long no = 0;
  ana_table_t *t = NULL;
  ana_value_t *v = NULL;
  int na = 0, bad = 0;
  man_seen_t seen = {drv_map_new(), drv_map_new(), NULL};
  json_t *header = NULL;
  char why[512];
  if (!seen.by_id || !seen.by_config) abort();
  while (!bad && getline(&line, &cap, f) > 0) {
    json_error_t je;
    json_t *o = json_loads(line, 0, &je);
    no++;
    if (!o) {
      snprintf(err, errlen, "%s:%ld: %s", path, no, je.text);
      bad = 1;
    } else if (no == 1) {
      *kind = drv_kind_find(json_string_value(json_object_get(o, "kind")));
      const char *out = json_string_value(json_object_get(o, "output"));
      na = (int)json_array_size(json_object_get(o, "axes"));
      if (!*kind || !out || json_integer_value(json_object_get(o, "manifest")) != 1) {
        snprintf(err, errlen, "%s:1: not a manifest header this multiverse reads", path);
        bad = 1;
      } else {
        snprintf(output, output_len, "%s", out);
        seen.axes = json_object_get(header = json_incref(o), "axes");
        t = man_table(o, *kind, err, errlen);
        v = calloc((size_t)(na + (*kind)->n_cols) + 1, sizeof *v);
        bad = !t || !v;
      }
    } else if (man_row(t, o, na, v)) {
      snprintf(err, errlen, "%s:%ld: expected {\"index\",\"id\",\"values\",\"config\"}", path, no);
      bad = 1;
    } else if (man_agrees(&seen, o, no - 2, why, sizeof why)) {
      snprintf(err, errlen, "%s:%ld: %s (the manifest was changed by hand? rerun `multiverse run`)",
               path, no, why);
      bad = 1;
    }
    json_decref(o);
  }
  if (!bad && no == 0) {
    snprintf(err, errlen, "%s: empty", path);
    bad = 1;
  }
  fclose(f);
  free(line);
  free(v);
  json_decref(header);
  drv_map_free(seen.by_id, free);
  drv_map_free(seen.by_config, free);
  if (bad) {
    ana_table_free(t);
    return NULL;
  }
  return t;
}
