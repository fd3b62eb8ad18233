/* Results: writing a table as CF-1.11 NetCDF-4, under a temporary name renamed
 * into place once the file is complete. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <netcdf.h>

#include "ana_int.h"

/* Records per chunk of every variable (the record dimension is unlimited). */
#define ANA_CHUNK 1024

typedef struct wr_t {
  int nc, rc;
  const char *what; /* the variable or step that failed */
} wr_t;

/* Each step runs only while nothing has failed; the first failure is kept. */
static void step(wr_t *w, int rc, const char *what) {
  if (w->rc == NC_NOERR && rc != NC_NOERR) {
    w->rc = rc;
    w->what = what;
  }
}

static void text_att(wr_t *w, int v, const char *name, const char *value, const char *what) {
  if (w->rc == NC_NOERR) step(w, nc_put_att_text(w->nc, v, name, strlen(value), value), what);
}

static int def_var(wr_t *w, int dim, const char *name, nc_type type, const char *long_name) {
  int v = -1;
  if (w->rc != NC_NOERR) return -1;
  step(w, nc_def_var(w->nc, name, type, 1, &dim, &v), name);
  size_t chunk = ANA_CHUNK;
  if (w->rc == NC_NOERR) step(w, nc_def_var_chunking(w->nc, v, NC_CHUNKED, &chunk), name);
  if (type != NC_STRING && w->rc == NC_NOERR) step(w, nc_def_var_deflate(w->nc, v, 1, 1, 1), name);
  text_att(w, v, "long_name", long_name, name);
  return v;
}

static int has_fill(const ana_table_t *t, const ana_column_t *c) {
  for (int64_t r = 0; r < t->n_rows; r++)
    if (c->i[r] == ANA_FILL_INT64) return 1;
  return 0;
}

static void define(wr_t *w, const ana_table_t *t, int *vars) {
  int dim = -1;
  step(w, nc_def_dim(w->nc, ANA_DIM, NC_UNLIMITED, &dim), ANA_DIM);
  vars[0] =
      def_var(w, dim, ANA_V_INDEX, NC_INT64, "index of the experiment in the job's expansion");
  vars[1] =
      def_var(w, dim, ANA_V_ID, NC_STRING, "experiment id (hash of its canonical configuration)");
  vars[2] = def_var(w, dim, ANA_V_STATUS, NC_BYTE, "status of the experiment");
  signed char flags[ANA_STATUS_N];
  for (int k = 0; k < ANA_STATUS_N; k++)
    flags[k] = (signed char)k;
  if (w->rc == NC_NOERR)
    step(w, nc_put_att_schar(w->nc, vars[2], "flag_values", NC_BYTE, ANA_STATUS_N, flags),
         ANA_V_STATUS);
  text_att(w, vars[2], "flag_meanings", ANA_STATUS_MEANINGS, ANA_V_STATUS);
  char swept[8192] = "";
  size_t used = 0;
  for (int c = 0; c < t->n_cols; c++) {
    const ana_column_t *col = &t->cols[c];
    nc_type type = col->col.type == ANA_DOUBLE  ? NC_DOUBLE
                   : col->col.type == ANA_INT64 ? NC_INT64
                                                : NC_STRING;
    int v = vars[5 + c] = def_var(w, dim, col->col.name, type, col->col.long_name);
    if (col->col.units) text_att(w, v, "units", col->col.units, col->col.name);
    if (col->col.key) {
      text_att(w, v, "sweep_key", col->col.key, col->col.name);
      used += (size_t)snprintf(swept + used, used < sizeof swept ? sizeof swept - used : 0, "%s%s",
                               used ? " " : "", col->col.name);
    }
    double nan = NAN;
    int64_t fill = ANA_FILL_INT64;
    if (type == NC_DOUBLE && w->rc == NC_NOERR)
      step(w, nc_put_att_double(w->nc, v, "_FillValue", NC_DOUBLE, 1, &nan), col->col.name);
    if (type == NC_INT64 && has_fill(t, col) && w->rc == NC_NOERR)
      step(w, nc_put_att_longlong(w->nc, v, "_FillValue", NC_INT64, 1, (const long long *)&fill),
           col->col.name);
  }
  vars[3] = def_var(w, dim, ANA_V_MESSAGE, NC_STRING, "why the experiment is not ok");
  vars[4] =
      def_var(w, dim, ANA_V_CONFIG, NC_STRING, "configuration of the experiment (canonical JSON)");
  text_att(w, NC_GLOBAL, "Conventions", "CF-1.11", "Conventions");
  if (used >= sizeof swept) step(w, NC_EMAXNAME, "swept_parameters");
  text_att(w, NC_GLOBAL, "swept_parameters", swept, "swept_parameters");
  for (int k = 0; k < t->n_attrs; k++)
    if (strcmp(t->attr_name[k], "Conventions") && strcmp(t->attr_name[k], "swept_parameters"))
      text_att(w, NC_GLOBAL, t->attr_name[k], t->attr_value[k], t->attr_name[k]);
}

static void put_strings(wr_t *w, int v, int64_t n, char **s, const char *what) {
  size_t start = 0, count = (size_t)n;
  if (w->rc == NC_NOERR)
    step(w, nc_put_vara_string(w->nc, v, &start, &count, (const char **)s), what);
}

static void put_data(wr_t *w, const ana_table_t *t, const int *vars) {
  size_t start = 0, count = (size_t)t->n_rows;
  if (t->n_rows == 0) return;
  if (w->rc == NC_NOERR)
    step(w, nc_put_vara_longlong(w->nc, vars[0], &start, &count, (const long long *)t->index),
         ANA_V_INDEX);
  put_strings(w, vars[1], t->n_rows, t->id, ANA_V_ID);
  if (w->rc == NC_NOERR)
    step(w, nc_put_vara_schar(w->nc, vars[2], &start, &count, (const signed char *)t->status),
         ANA_V_STATUS);
  put_strings(w, vars[3], t->n_rows, t->message, ANA_V_MESSAGE);
  put_strings(w, vars[4], t->n_rows, t->config, ANA_V_CONFIG);
  for (int c = 0; c < t->n_cols && w->rc == NC_NOERR; c++) {
    const ana_column_t *col = &t->cols[c];
    int v = vars[5 + c];
    if (col->col.type == ANA_DOUBLE)
      step(w, nc_put_vara_double(w->nc, v, &start, &count, col->d), col->col.name);
    if (col->col.type == ANA_INT64)
      step(w, nc_put_vara_longlong(w->nc, v, &start, &count, (const long long *)col->i),
           col->col.name);
    if (col->col.type == ANA_STRING) put_strings(w, v, t->n_rows, col->s, col->col.name);
  }
}

int ana_write(const ana_table_t *t, const char *path, char *err, size_t errlen) {
  wr_t w = {.rc = NC_NOERR};
  int rc = nc_create(path, NC_CLOBBER | NC_NETCDF4, &w.nc);
  if (rc != NC_NOERR) {
    snprintf(err, errlen, "%s: %s", path, nc_strerror(rc));
    return -1;
  }
  int *vars = malloc(((size_t)t->n_cols + 5) * sizeof *vars);
  if (!vars) abort();
  define(&w, t, vars);
  if (w.rc == NC_NOERR) step(&w, nc_enddef(w.nc), "enddef");
  put_data(&w, t, vars);
  free(vars);
  rc = nc_close(w.nc);
  if (w.rc == NC_NOERR && rc != NC_NOERR) step(&w, rc, "close");
  if (w.rc != NC_NOERR) {
    snprintf(err, errlen, "%s: %s: %s", path, w.what, nc_strerror(w.rc));
    remove(path);
    return -1;
  }
  return 0;
}
