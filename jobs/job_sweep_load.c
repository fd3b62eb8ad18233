/* Job files: reading the file, its top-level keys (name, base, sweep, refine, output), and
 * the order in which the sections are checked and expanded. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base_file.h"
#include "job_sweep_int.h"

static int known(const char *key, const char *const *keys) {
  for (; *keys; keys++)
    if (strcmp(key, *keys) == 0) return 1;
  return 0;
}

/* Reports keys of obj not in keys; returns how many. */
static int unknown_keys(const job_sweep_t *sw, const json_t *obj, const char *prefix,
                        const char *const *keys, const char *expected, job_sweep_errs_t *errs) {
  int bad = 0;
  const char *key;
  json_t *v;
  char where[512];
  json_object_foreach((json_t *)obj, key, v) {
    if (known(key, keys)) continue;
    snprintf(where, sizeof where, "%s%s", prefix, key);
    job_err(errs, sw->file, where, "unknown key (expected %s)", expected);
    bad++;
  }
  return bad;
}

/* The file's name without folders and extension. */
static char *stem(const char *path) {
  const char *b = strrchr(path, '/');
  b = b ? b + 1 : path;
  const char *dot = strrchr(b, '.');
  size_t n = dot && dot > b ? (size_t)(dot - b) : strlen(b);
  char *s = malloc(n + 1);
  if (!s) abort();
  memcpy(s, b, n);
  s[n] = '\0';
  return s;
}

/* No control characters (they would reach file names and terminals). */
static int printable(const char *s) {
  for (; *s; s++)
    if ((unsigned char)*s < 0x20 || *s == 0x7f) return 0;
  return 1;
}

static int top_level(job_sweep_t *sw, job_sweep_errs_t *errs) {
  static const char *const top[] = {"name", "base", "sweep", "refine", "output", NULL};
  int bad = unknown_keys(sw, sw->root, "", top, "name, base, sweep, refine, output", errs);
  json_t *name = json_object_get(sw->root, "name"), *out = json_object_get(sw->root, "output");
  if (name && (!json_is_string(name) || json_string_length(name) == 0 ||
               json_string_length(name) > JOB_NAME_MAX || !printable(json_string_value(name)))) {
    job_err(errs, sw->file, "name",
            "must be a string of 1 to " JOB_NAME_MAX_TEXT " bytes without control characters (it "
            "names the run folder)");
    bad++;
  }
  sw->name = json_is_string(name) ? strdup(json_string_value(name)) : stem(sw->file);
  const char *o = json_string_value(out);
  size_t n = o ? strlen(o) : 0;
  if (out && (n < 4 || n > JOB_NAME_MAX || strcmp(o + n - 3, ".nc") != 0 || strchr(o, '/') ||
              o[0] == '.' || !printable(o))) {
    job_err(errs, sw->file, "output",
            "must be a file name ending in .nc, in the run folder (no '/', not starting with "
            "'.', at most " JOB_NAME_MAX_TEXT " bytes, no control characters)");
    bad++;
  }
  sw->output = strdup(o && !bad ? o : "results.nc");
  sw->base = json_object_get(sw->root, "base");
  if (!json_is_object(sw->base)) {
    job_err(errs, sw->file, "base",
            "must be an object (the configuration every experiment starts from)");
    sw->base = NULL;
    return bad + 1;
  }
  json_t *kind = json_object_get(sw->base, "kind");
  int known = 0;
  for (int k = 0; json_is_string(kind) && job_kinds[k]; k++)
    known |= strcmp(json_string_value(kind), job_kinds[k]) == 0;
  if (kind && !known) {
    job_err(errs, sw->file, "base.kind", "must be \"network\", \"training\" or \"collective\"");
    bad++;
  }
  return bad;
}

static int sweep_sections(job_sweep_t *sw, json_t *sweep, job_sweep_errs_t *errs) {
  static const char *const keys[] = {"grid", "zip", "samples", "include", "exclude", NULL};
  if (!json_is_object(sweep)) {
    job_err(errs, sw->file, "sweep", "must be an object with grid, zip, samples, include, exclude");
    return 1;
  }
  int bad = unknown_keys(sw, sweep, "sweep.", keys, "grid, zip, samples, include, exclude", errs);
  json_t *v;
  if ((v = json_object_get(sweep, "grid"))) bad += job_parse_grid(sw, v, errs);
  if ((v = json_object_get(sweep, "zip"))) bad += job_parse_zip(sw, v, errs);
  if ((v = json_object_get(sweep, "samples"))) bad += job_parse_samples(sw, v, errs);
  sw->incl_in = json_object_get(sweep, "include");
  sw->excl_in = json_object_get(sweep, "exclude");
  bad += job_parse_filters(sw, sw->incl_in, sw->excl_in, errs);
  return bad;
}

/* Checks everything, then expands; takes root. */
static int build(const char *file, json_t *root, job_sweep_t **out, job_sweep_errs_t *errs) {
  *out = NULL;
  job_sweep_t *sw = calloc(1, sizeof *sw);
  if (!sw) abort();
  sw->file = strdup(file);
  sw->root = root;
  sw->sample_factor = -1;
  int bad = 0;
  if (!json_is_object(root)) {
    job_err(errs, file, "top level", "must be a JSON object");
    bad = 1;
  } else {
    bad = top_level(sw, errs);
    json_t *sweep = json_object_get(root, "sweep");
    if (sw->base && sweep) bad += sweep_sections(sw, sweep, errs);
    if (sw->base) bad += job_parse_refine(sw, json_object_get(root, "refine"), errs);
  }
  double combos = 1;
  for (int f = 0; f < sw->n_factors; f++)
    combos *= (double)sw->factors[f].size;
  if (!bad && combos > (double)JOB_SWEEP_MAX) {
    job_err(errs, file, "sweep", "%.4g experiments before filters; at most %lld", combos,
            JOB_SWEEP_MAX);
    bad = 1;
  }
  sw->n_combos = (int64_t)combos;
  if (!bad) bad = job_draw_samples(sw, errs);
  if (!bad) bad = job_expand(sw, errs);
  if (!bad) {
    sw->n_sweep = sw->n_exp;
    job_refine_types(sw);
  }
  if (bad) {
    job_sweep_free(sw);
    return -1;
  }
  *out = sw;
  return 0;
}

int job_sweep_parse(const char *file, const char *text, job_sweep_t **out, job_sweep_errs_t *errs) {
  json_error_t je;
  json_t *root = json_loads(text, JSON_REJECT_DUPLICATES, &je);
  if (!root) {
    *out = NULL;
    job_sweep_errs_add(errs, "%s:%d:%d: %s", file, je.line, je.column, je.text);
    return -1;
  }
  return build(file, root, out, errs);
}

int job_sweep_load(const char *path, job_sweep_t **out, job_sweep_errs_t *errs) {
  json_error_t je;
  char why[128];
  if (base_input_regular(path, why, sizeof why)) {
    *out = NULL;
    job_sweep_errs_add(errs, "%s: %s", path, why);
    return -1;
  }
  json_t *root = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
  if (!root) {
    *out = NULL;
    if (je.line < 1)
      job_sweep_errs_add(errs, "%s: %s", path, je.text);
    else
      job_sweep_errs_add(errs, "%s:%d:%d: %s", path, je.line, je.column, je.text);
    return -1;
  }
  return build(path, root, out, errs);
}

void job_sweep_free(job_sweep_t *sw) {
  if (!sw) return;
  for (int a = 0; a < sw->n_axes; a++) {
    free(sw->axes[a].path);
    free(sw->axes[a].where);
  }
  for (int k = 0; k < sw->n_excl; k++)
    for (int f = 0; f < JOB_FACTORS_MAX; f++)
      free(sw->excl[k].match[f]);
  free(sw->excl);
  free(sw->axes);
  free(sw->order);
  free(sw->stages);
  free(sw->ref_stage);
  free(sw->ref_from);
  json_decref(sw->points);
  json_decref(sw->incl);
  json_decref(sw->root);
  free(sw->file);
  free(sw->name);
  free(sw->output);
  free(sw);
}

const char *job_sweep_name(const job_sweep_t *sw) {
  return sw->name;
}

const char *job_sweep_output(const job_sweep_t *sw) {
  return sw->output;
}

const char *job_sweep_file(const job_sweep_t *sw) {
  return sw->file;
}

const char *const job_kinds[] = {"network", "training", "collective", NULL};

const char *job_sweep_kind_name(const json_t *experiment) {
  const char *kind = json_string_value(json_object_get(experiment, "kind"));
  if (kind) return kind;
  if (json_object_get(experiment, "model") || json_object_get(experiment, "training") ||
      json_object_get(experiment, "workload"))
    return "training";
  return "network";
}

job_sweep_kind_t job_sweep_kind(const json_t *experiment) {
  return strcmp(job_sweep_kind_name(experiment), "training") == 0 ? JOB_SWEEP_TRAINING
                                                                   : JOB_SWEEP_NETWORK;
}
