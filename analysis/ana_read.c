/* Results: reading a NetCDF results file (as ana_write writes them) back into a table. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <netcdf.h>

#include "ana_int.h"

typedef struct rd_t {
  int nc, rc;
  char what[NC_MAX_NAME + 64]; /* what failed */
  size_t n;                    /* records */
} rd_t;

static int fail(rd_t *r, int rc, const char *what) {
  if (r->rc == NC_NOERR && rc != NC_NOERR) {
    r->rc = rc;
    snprintf(r->what, sizeof r->what, "%s", what);
  }
  return r->rc != NC_NOERR;
}

/* A text attribute (char or string) as a new string; NULL if absent or not text. */
static char *text_att(int nc, int v, const char *name) {
  nc_type type;
  size_t len;
  if (nc_inq_att(nc, v, name, &type, &len) != NC_NOERR) return NULL;
  if (type == NC_CHAR) {
    char *s = malloc(len + 1);
    if (!s) abort();
    if (nc_get_att_text(nc, v, name, s) != NC_NOERR) len = 0;
    s[len] = '\0';
    return s;
  }
  if (type == NC_STRING && len >= 1) {
    char **ss = calloc(len, sizeof *ss);
    if (!ss) abort();
    char *s = NULL;
    if (nc_get_att_string(nc, v, name, ss) == NC_NOERR) {
      s = ana_strdup(ss[0]);
      nc_free_string(len, ss);
    }
    free(ss);
    return s;
  }
  return NULL;
}

static char **get_strings(rd_t *r, int v, const char *name) {
  char **s = calloc(r->n + 1, sizeof *s);
  if (!s) abort();
  size_t start = 0, count = r->n;
  if (r->n && fail(r, nc_get_vara_string(r->nc, v, &start, &count, s), name)) {
    free(s);
    return NULL;
  }
  return s;
}

static void free_strings(size_t n, char **s) {
  if (!s) return;
  nc_free_string(n, s);
  free(s);
}

/* The record variable `name` (1-D on the experiment dimension), or -1. */
static int fixed_var(rd_t *r, const char *name, int dim) {
  int v, nd, d;
  if (nc_inq_varid(r->nc, name, &v) != NC_NOERR || nc_inq_varndims(r->nc, v, &nd) != NC_NOERR ||
      nd != 1 || nc_inq_vardimid(r->nc, v, &d) != NC_NOERR || d != dim) {
    char what[NC_MAX_NAME + 32];
    snprintf(what, sizeof what, "record variable %s", name);
    fail(r, NC_ENOTVAR, what);
    return -1;
  }
  return v;
}

static int is_fixed(const char *name) {
  return !strcmp(name, ANA_V_INDEX) || !strcmp(name, ANA_V_ID) || !strcmp(name, ANA_V_STATUS) ||
         !strcmp(name, ANA_V_MESSAGE) || !strcmp(name, ANA_V_CONFIG);
}

/* Describes the file's other record variables as columns; returns how many. */
static int columns(rd_t *r, int dim, ana_col_t *cols, int *vars, int max) {
  int nv = 0, n = 0;
  if (fail(r, nc_inq_nvars(r->nc, &nv), "variables")) return 0;
  for (int v = 0; v < nv && n < max; v++) {
    char name[NC_MAX_NAME + 1];
    nc_type type;
    int nd, d;
    if (fail(r, nc_inq_var(r->nc, v, name, &type, &nd, NULL, NULL), "variables")) return n;
    if (nd != 1 || nc_inq_vardimid(r->nc, v, &d) != NC_NOERR || d != dim || is_fixed(name))
      continue;
    ana_type_t t = type == NC_DOUBLE || type == NC_FLOAT ? ANA_DOUBLE
                   : type == NC_STRING                   ? ANA_STRING
                   : type == NC_CHAR                     ? (ana_type_t)-1
                                                         : ANA_INT64;
    if (t == (ana_type_t)-1) {
      fail(r, NC_EBADTYPE, name);
      return n;
    }
    cols[n] = (ana_col_t){.name = ana_strdup(name),
                          .type = t,
                          .units = text_att(r->nc, v, "units"),
                          .long_name = text_att(r->nc, v, "long_name"),
                          .key = text_att(r->nc, v, "sweep_key")};
    vars[n++] = v;
  }
  return n;
}

static void free_cols(ana_col_t *cols, int n) {
  for (int c = 0; c < n; c++) {
    free((char *)cols[c].name);
    free((char *)cols[c].units);
    free((char *)cols[c].long_name);
    free((char *)cols[c].key);
  }
}

/* Reads every cell; returns 0 or -1 (r->rc set). */
static int rows(rd_t *r, ana_table_t *t, const int *fixed, const int *vars) {
  size_t start = 0, count = r->n;
  int64_t *index = calloc(r->n + 1, sizeof *index);
  signed char *status = calloc(r->n + 1, 1);
  ana_value_t *cells = calloc((r->n + 1) * ((size_t)t->n_cols + 1), sizeof *cells);
  char ***strs = calloc((size_t)t->n_cols + 1, sizeof *strs);
  if (!index || !status || !cells || !strs) abort();
  char **id = get_strings(r, fixed[1], ANA_V_ID), **msg = get_strings(r, fixed[3], ANA_V_MESSAGE);
  char **cfg = get_strings(r, fixed[4], ANA_V_CONFIG);
  if (r->n) {
    fail(r, nc_get_vara_longlong(r->nc, fixed[0], &start, &count, (long long *)index), ANA_V_INDEX);
    fail(r, nc_get_vara_schar(r->nc, fixed[2], &start, &count, status), ANA_V_STATUS);
  }
  double *d = calloc(r->n + 1, sizeof *d);
  int64_t *i = calloc(r->n + 1, sizeof *i);
  if (!d || !i) abort();
  for (int c = 0; c < t->n_cols && r->n && r->rc == NC_NOERR; c++) {
    const char *name = t->cols[c].col.name;
    ana_type_t type = t->cols[c].col.type;
    if (type == ANA_STRING)
      strs[c] = get_strings(r, vars[c], name);
    else if (type == ANA_DOUBLE)
      fail(r, nc_get_vara_double(r->nc, vars[c], &start, &count, d), name);
    else
      fail(r, nc_get_vara_longlong(r->nc, vars[c], &start, &count, (long long *)i), name);
    for (size_t k = 0; k < r->n && r->rc == NC_NOERR; k++) {
      ana_value_t *cell = &cells[k * (size_t)t->n_cols + (size_t)c];
      if (type == ANA_STRING)
        cell->s = strs[c][k];
      else if (type == ANA_DOUBLE)
        cell->d = d[k];
      else
        cell->i = i[k];
    }
  }
  for (size_t k = 0; k < r->n && r->rc == NC_NOERR; k++) {
    if (status[k] < 0 || status[k] >= ANA_STATUS_N) fail(r, NC_ERANGE, ANA_V_STATUS);
    ana_table_append(t, &(ana_row_t){.index = index[k],
                                     .id = id[k],
                                     .status = (ana_status_t)status[k],
                                     .message = msg[k],
                                     .config = cfg[k],
                                     .values = &cells[k * (size_t)t->n_cols]});
  }
  for (int c = 0; c < t->n_cols; c++)
    free_strings(r->n, strs[c]);
  free_strings(r->n, id);
  free_strings(r->n, msg);
  free_strings(r->n, cfg);
  free(strs);
  free(cells);
  free(index);
  free(status);
  free(d);
  free(i);
  return r->rc == NC_NOERR ? 0 : -1;
}

static void global_atts(rd_t *r, ana_table_t *t) {
  int na = 0;
  if (nc_inq_natts(r->nc, &na) != NC_NOERR) return;
  for (int k = 0; k < na; k++) {
    char name[NC_MAX_NAME + 1];
    if (nc_inq_attname(r->nc, NC_GLOBAL, k, name) != NC_NOERR) continue;
    if (!strcmp(name, "Conventions") || !strcmp(name, "swept_parameters")) continue;
    char *v = text_att(r->nc, NC_GLOBAL, name);
    if (v) ana_table_set_attr(t, name, v);
    free(v);
  }
}

ana_table_t *ana_read(const char *path, char *err, size_t errlen) {
  rd_t r = {.rc = NC_NOERR};
  int rc = nc_open(path, NC_NOWRITE, &r.nc);
  if (rc == NC_ENOTNC || rc == NC_EHDFERR) {
    snprintf(err, errlen,
             "%s: not a NetCDF file that reads (%s): not a results file, or a damaged one "
             "(multiverse merge writes a run's again)",
             path, nc_strerror(rc));
    return NULL;
  }
  if (rc != NC_NOERR) {
    snprintf(err, errlen, "%s: %s", path, nc_strerror(rc));
    return NULL;
  }
  int dim = -1, fixed[5], ncols = 0, nv = 0;
  ana_table_t *t = NULL;
  ana_col_t *cols = NULL;
  int *vars = NULL;
  if (fail(&r, nc_inq_dimid(r.nc, ANA_DIM, &dim), "dimension " ANA_DIM) ||
      fail(&r, nc_inq_dimlen(r.nc, dim, &r.n), "dimension " ANA_DIM))
    goto done;
  fixed[0] = fixed_var(&r, ANA_V_INDEX, dim);
  fixed[1] = fixed_var(&r, ANA_V_ID, dim);
  fixed[2] = fixed_var(&r, ANA_V_STATUS, dim);
  fixed[3] = fixed_var(&r, ANA_V_MESSAGE, dim);
  fixed[4] = fixed_var(&r, ANA_V_CONFIG, dim);
  if (r.rc != NC_NOERR || fail(&r, nc_inq_nvars(r.nc, &nv), "variables")) goto done;
  cols = calloc((size_t)nv + 1, sizeof *cols);
  vars = calloc((size_t)nv + 1, sizeof *vars);
  if (!cols || !vars) abort();
  ncols = columns(&r, dim, cols, vars, nv);
  if (r.rc != NC_NOERR) goto done;
  t = ana_table_create(cols, ncols, r.what, sizeof r.what);
  if (!t) {
    r.rc = NC_EBADNAME;
    goto done;
  }
  if (rows(&r, t, fixed, vars) == 0) global_atts(&r, t);
done:
  nc_close(r.nc);
  free_cols(cols, ncols);
  free(cols);
  free(vars);
  if (r.rc != NC_NOERR) {
    if (r.rc == NC_ENOTVAR || r.rc == NC_EBADDIM)
      snprintf(err, errlen, "%s: not a Multiverse results file (no %s)", path, r.what);
    else
      snprintf(err, errlen, "%s: %s: %s", path, r.what, nc_strerror(r.rc));
    ana_table_free(t);
    return NULL;
  }
  return t;
}
