/* trn_wl: reader of ASTRA-sim 1.0 / SimAI layer-wise workload files: a header line
 * (parallelism keyword, then `key: value` fields), a line with the layer count, then
 * one line per layer of 12 fields (13 under HYBRID_CUSTOMIZED). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base_err.h"
#include "base/base_file.h"
#include "train/trn_wl.h"

#define WL_LINE_MAX 65536 /* characters per line */
#define WL_MAX_LAYERS (1 << 24)
#define WL_MAX_TOKENS 4096 /* per line (the header's checkpoint lists) */

static const char *const policy_names[] = {
#define TRN_WL_POLICY_NAME(name) #name,
    TRN_WL_POLICIES(TRN_WL_POLICY_NAME)
#undef TRN_WL_POLICY_NAME
};
static const char *const comm_names[TRN_WL_COMM_COUNT] = {
    "NONE",     "ALLREDUCE",         "ALLGATHER", "REDUCESCATTER",
    "ALLTOALL", "ALLREDUCEALLTOALL", "BROADCAST"};

int trn_wl_flavor(const trn_wl_t *wl) {
  return wl->simai_fields ? TRN_WL_FLAVOR_SIMAI : TRN_WL_FLAVOR_ASTRA;
}

const char *trn_wl_policy_name(int policy) {
  return policy >= 0 && policy < TRN_WL_POLICY_COUNT ? policy_names[policy] : "?";
}
const char *trn_wl_comm_name(int comm) {
  return comm >= 0 && comm < TRN_WL_COMM_COUNT ? comm_names[comm] : "?";
}

/* The file being read, line by line. */
typedef struct wl_file_t {
  const char *path;
  FILE *fp;
  int line; /* of the line last read, 1-based */
  char *buf;
  char *tok[WL_MAX_TOKENS];
  int n; /* tokens on the line */
  char *err;
  size_t errlen;
} wl_file_t;

static int fail(wl_file_t *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(wl_file_t *f, const char *fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  base_errf(f->err, f->errlen, "%s:%d: %s", f->path, f->line, msg);
  return -1;
}

/* Reads the next line into tokens (f->n of them); skips blank lines unless
 * keep_blank. 1: a line, 0: end of file, -1: error. */
static int next_line(wl_file_t *f, int keep_blank) {
  while (fgets(f->buf, WL_LINE_MAX, f->fp)) {
    f->line++;
    size_t len = strlen(f->buf);
    if (len == WL_LINE_MAX - 1 && f->buf[len - 1] != '\n' && !feof(f->fp))
      return fail(f, "line longer than %d characters", WL_LINE_MAX - 2);
    f->n = 0;
    for (char *p = f->buf;;) {
      while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
        *p++ = '\0';
      if (!*p) break;
      if (f->n == WL_MAX_TOKENS) return fail(f, "more than %d fields", WL_MAX_TOKENS);
      f->tok[f->n++] = p;
      while (*p && *p != ' ' && *p != '\t' && *p != '\r' && *p != '\n')
        p++;
    }
    if (f->n || keep_blank) return 1;
  }
  if (ferror(f->fp)) {
    snprintf(f->err, f->errlen, "cannot read %s: %s", f->path, strerror(errno));
    return -1;
  }
  return 0;
}

/* A decimal integer of digits only (with a leading '-' when `neg`), at most max in
 * magnitude; 0 or -1. */
static int parse_int(const char *s, int neg, uint64_t max, int64_t *sv, uint64_t *uv) {
  int minus = neg && *s == '-';
  uint64_t x = 0;
  s += minus;
  if (!*s) return -1;
  for (; *s; s++) {
    uint64_t d = (uint64_t)(*s - '0');
    if (*s < '0' || *s > '9' || d > max || x > (max - d) / 10) return -1;
    x = x * 10 + d;
  }
  if (uv) *uv = x;
  if (sv) *sv = minus ? -(int64_t)x : (int64_t)x;
  return 0;
}

static int find_policy(const char *s) {
  for (int i = 0; i < TRN_WL_POLICY_COUNT; i++)
    if (strcmp(s, policy_names[i]) == 0) return i;
  return -1;
}

/* `TYPE[_EP|_DP_EP]` of phase `which` (0 fwd, 1 ig, 2 wg). */
static int parse_comm(wl_file_t *f, const char *s, int which, trn_wl_phase_t *ph) {
  static const char *const suffix[] = {"", "_EP", "_DP_EP"};
  static const int32_t group[] = {-1, TRN_WL_EP, TRN_WL_DP_EP};
  static const char *const phase[] = {"forward", "input-gradient", "weight-gradient"};
  for (int c = 0; c < TRN_WL_COMM_COUNT; c++) {
    size_t n = strlen(comm_names[c]);
    if (strncmp(s, comm_names[c], n) != 0) continue;
    for (int k = 0; k < 3; k++) {
      if (strcmp(s + n, suffix[k]) != 0 || (c == TRN_WL_NONE && k)) continue;
      ph->comm = c;
      ph->group = group[k] >= 0 ? group[k] : which == 2 ? TRN_WL_DP : TRN_WL_TP;
      return 0;
    }
  }
  return fail(f,
              "%s communication '%s' is not NONE, ALLREDUCE, ALLGATHER, REDUCESCATTER, "
              "ALLTOALL, ALLREDUCEALLTOALL or BROADCAST (with an optional _EP or _DP_EP)",
              phase[which], s);
}

/* A compute or update time in the file's unit, converted to ps. */
static int parse_time(wl_file_t *f, const char *s, int64_t unit_ps, const char *what, int64_t *ps) {
  uint64_t v;
  if (parse_int(s, 0, (uint64_t)(INT64_MAX / unit_ps), NULL, &v) < 0)
    return fail(f, "%s '%s' is not a time of 0..%lld units", what, s,
                (long long)(INT64_MAX / unit_ps));
  *ps = (int64_t)v * unit_ps;
  return 0;
}

static int parse_phase(wl_file_t *f, char **tok, int which, int64_t unit_ps, trn_wl_phase_t *ph) {
  static const char *const what[] = {"forward compute time", "input-gradient compute time",
                                     "weight-gradient compute time"};
  if (parse_time(f, tok[0], unit_ps, what[which], &ph->compute_ps) < 0) return -1;
  if (parse_comm(f, tok[1], which, ph) < 0) return -1;
  if (parse_int(tok[2], 0, UINT64_MAX, NULL, &ph->bytes) < 0)
    return fail(f, "communication size '%s' is not a number of bytes", tok[2]);
  return 0;
}

/* The per-layer flags of the header's checkpoint lists, kept until the layers exist. */
typedef struct wl_marks_t {
  int64_t *layer;
  int32_t *kind; /* 0: checkpoint, 1: initiates */
  int n;
} wl_marks_t;

/* The header: the parallelism keyword, then its fields. */
static int parse_header(wl_file_t *f, trn_wl_t *wl, wl_marks_t *marks) {
  static const char *const int_keys[] = {
      "model_parallel_NPU_group:", "ep:", "pp:", "vpp:", "ga:", "all_gpus:"};
  int64_t *int_vals[] = {&wl->tp, &wl->ep, &wl->pp, &wl->vpp, &wl->ga, &wl->all_gpus};
  int i = 1;
  wl->policy = find_policy(f->tok[0]);
  if (wl->policy < 0)
    return fail(f, "'%s' is not a parallelism keyword (DATA, MODEL, HYBRID_TRANSFORMER, ...)",
                f->tok[0]);
  int dlrm = wl->policy == TRN_WL_HYBRID_DLRM || wl->policy == TRN_WL_HYBRID_DLRM_ENHANCED;
  if (dlrm && f->n > 1 && parse_int(f->tok[1], 0, INT32_MAX, &wl->dlrm_last_bottom, NULL) == 0)
    i = 2; /* ASTRA-sim 1.0: the last bottom layer right after the keyword */
  marks->layer = malloc((size_t)f->n * sizeof *marks->layer);
  marks->kind = malloc((size_t)f->n * sizeof *marks->kind);
  if (!marks->layer || !marks->kind) return fail(f, "out of memory");
  while (i < f->n) {
    const char *key = f->tok[i];
    int k, mark = strcmp(key, "checkpoints:") == 0            ? 0
                  : strcmp(key, "checkpoint_initiates:") == 0 ? 1
                                                              : -1;
    if (i + 1 >= f->n) return fail(f, "header field '%s' has no value", key);
    const char *val = f->tok[i + 1];
    for (k = 0; k < 6 && strcmp(key, int_keys[k]); k++)
      ;
    if (k < 6) {
      if (parse_int(val, 0, INT32_MAX, int_vals[k], NULL) < 0)
        return fail(f, "header field '%s' must be a count, got '%s'", key, val);
      if (k > 0) wl->simai_fields = 1;
    } else if (strcmp(key, "pp_comm") == 0 || strcmp(key, "pp_comm:") == 0) {
      wl->simai_fields = 1;
      if (parse_int(val, 0, UINT64_MAX, NULL, &wl->pp_comm_bytes) < 0)
        return fail(f, "header field '%s' must be a number of bytes, got '%s'", key, val);
    } else if (strcmp(key, "DLRM_LAST_BOTTOM_LAYER:") == 0) {
      if (parse_int(val, 0, INT32_MAX, &wl->dlrm_last_bottom, NULL) < 0)
        return fail(f, "header field '%s' must be a layer number, got '%s'", key, val);
    } else if (mark >= 0) {
      int64_t count;
      if (parse_int(val, 0, (uint64_t)(f->n - i - 2), &count, NULL) < 0)
        return fail(f, "header field '%s' must be a count of the layers that follow, got '%s'", key,
                    val);
      for (int64_t j = 0; j < count; j++) {
        int64_t layer;
        if (parse_int(f->tok[i + 2 + j], 0, INT32_MAX, &layer, NULL) < 0)
          return fail(f, "'%s' in '%s' is not a layer number", f->tok[i + 2 + j], key);
        marks->layer[marks->n] = layer;
        marks->kind[marks->n++] = mark;
      }
      i += (int)count;
    } else {
      return fail(f, "unknown header field '%s'", key);
    }
    i += 2;
  }
  return 0;
}

static int parse_layer(wl_file_t *f, const trn_wl_t *wl, int64_t unit_ps, trn_wl_layer_t *l) {
  int custom = wl->policy == TRN_WL_HYBRID_CUSTOMIZED;
  int want = custom ? 13 : 12;
  if (f->n != want)
    return fail(f,
                "expected %d fields (name reserved fwd_compute fwd_comm fwd_size ig_compute "
                "ig_comm ig_size wg_compute wg_comm wg_size update%s), found %d",
                want, custom ? " policy" : "", f->n);
  l->line = f->line;
  size_t len = strlen(f->tok[0]);
  l->name = malloc(len + 1);
  if (!l->name) return fail(f, "out of memory");
  memcpy(l->name, f->tok[0], len + 1);
  if (parse_int(f->tok[1], 1, INT32_MAX, &l->reserved, NULL) < 0)
    return fail(f, "reserved field '%s' is not an integer", f->tok[1]);
  if (parse_phase(f, f->tok + 2, 0, unit_ps, &l->fwd) < 0 ||
      parse_phase(f, f->tok + 5, 1, unit_ps, &l->ig) < 0 ||
      parse_phase(f, f->tok + 8, 2, unit_ps, &l->wg) < 0 ||
      parse_time(f, f->tok[11], unit_ps, "update time", &l->update_ps) < 0)
    return -1;
  l->policy = wl->policy;
  if (custom && (l->policy = find_policy(f->tok[12])) < 0)
    return fail(f, "layer parallelism '%s' is not a parallelism keyword", f->tok[12]);
  return 0;
}

static int read_all(wl_file_t *f, int64_t unit_ps, trn_wl_t *wl, wl_marks_t *marks) {
  int rc = next_line(f, 1);
  if (rc < 0) return -1;
  if (rc == 0 || f->n == 0) {
    f->line = 1;
    return fail(f, "expected the parallelism keyword (DATA, HYBRID_TRANSFORMER, ...)");
  }
  if (parse_header(f, wl, marks) < 0) return -1;
  rc = next_line(f, 1);
  if (rc < 0) return -1;
  int64_t count;
  if (rc == 0 || f->n != 1 || parse_int(f->tok[0], 0, WL_MAX_LAYERS, &count, NULL) < 0 ||
      count == 0) {
    if (rc == 0) f->line++;
    return fail(f, "expected the number of layers (1..%d) alone on the line", WL_MAX_LAYERS);
  }
  int count_line = f->line;
  wl->layers = calloc((size_t)count, sizeof *wl->layers);
  if (!wl->layers) return fail(f, "out of memory for %lld layers", (long long)count);
  while (wl->n_layers < count) {
    rc = next_line(f, 0);
    if (rc < 0) return -1;
    if (rc == 0)
      return fail(f, "the file ends after %d of the %lld layers announced on line %d", wl->n_layers,
                  (long long)count, count_line);
    if (parse_layer(f, wl, unit_ps, &wl->layers[wl->n_layers++]) < 0) return -1;
  }
  rc = next_line(f, 0);
  if (rc < 0) return -1;
  if (rc > 0)
    return fail(f, "more layers than the %lld announced on line %d", (long long)count, count_line);
  for (int i = 0; i < marks->n; i++) {
    if (marks->layer[i] >= wl->n_layers) {
      f->line = 1;
      return fail(f, "checkpoint layer %lld is not one of the %d layers",
                  (long long)marks->layer[i], wl->n_layers);
    }
    trn_wl_layer_t *l = &wl->layers[marks->layer[i]];
    if (marks->kind[i])
      l->initiates = 1;
    else
      l->checkpoint = 1;
  }
  return 0;
}

int trn_wl_read(const char *path, int64_t unit_ps, trn_wl_t *wl, char *err, size_t errlen) {
  wl_file_t f = {.path = path, .err = err, .errlen = errlen};
  wl_marks_t marks = {0};
  memset(wl, 0, sizeof *wl);
  wl->dlrm_last_bottom = -1;
  if (unit_ps == 0) unit_ps = 1000;
  if (unit_ps < 0) {
    snprintf(err, errlen, "%s: time unit must be > 0 ps", path);
    return -1;
  }
  char why[128];
  f.fp = base_fopen_input(path, "r", why, sizeof why);
  if (!f.fp) {
    snprintf(err, errlen, "cannot open %s: %s", path, why);
    return -1;
  }
  f.buf = malloc(WL_LINE_MAX);
  int rc = f.buf ? read_all(&f, unit_ps, wl, &marks) : fail(&f, "out of memory");
  free(f.buf);
  free(marks.layer);
  free(marks.kind);
  fclose(f.fp);
  if (rc < 0) trn_wl_free(wl);
  return rc;
}

void trn_wl_free(trn_wl_t *wl) {
  for (int32_t i = 0; i < wl->n_layers; i++)
    free(wl->layers[i].name);
  free(wl->layers);
  memset(wl, 0, sizeof *wl);
  wl->dlrm_last_bottom = -1;
}
