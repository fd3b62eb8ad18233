/* Results files: shards written under a temporary name, merged (order by index,
 * each id once, reruns resolved by status then shard path), read back with the
 * NetCDF C API: values, CF attributes and provenance as written. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <unistd.h>

#include <netcdf.h>

#include "ana.h"
#include "mvtest.h"

static const ana_col_t cols[] = {
    {.name = "network_cc", .type = ANA_STRING, .key = "network.cc"},
    {.name = "training_tp", .type = ANA_INT64, .key = "training.tp", .units = "1"},
    {.name = "iteration_time",
     .type = ANA_DOUBLE,
     .units = "s",
     .long_name = "time of one iteration"},
    {.name = "packet_hops", .type = ANA_INT64, .units = "1"},
};

static const char *const ccs[] = {"dcqcn", "hpcc", "dctcp"};
static const int64_t tps[] = {1, 2, 4, 8};

/* Experiment i of a 3 x 4 grid: values from a closed form. */
static double itime(int64_t i) {
  return 1.0 + 0.25 * (double)(i / 4) + 1.0 / (double)tps[i % 4];
}

static void add(ana_table_t *t, int64_t i, ana_status_t st, const char *msg) {
  char id[32], cfg[128];
  snprintf(id, sizeof id, "%016llx", (unsigned long long)(0x1000 + i * 7919));
  snprintf(cfg, sizeof cfg, "{\"network\":{\"cc\":\"%s\"},\"training\":{\"tp\":%lld}}", ccs[i / 4],
           (long long)tps[i % 4]);
  ana_value_t v[4] = {{.s = ccs[i / 4]},
                      {.i = tps[i % 4]},
                      {.d = st == ANA_OK ? itime(i) : NAN},
                      {.i = st == ANA_OK ? 1000 * i : ANA_FILL_INT64}};
  ana_table_append(
      t,
      &(ana_row_t){.index = i, .id = id, .status = st, .message = msg, .config = cfg, .values = v});
}

static ana_table_t *shard(const char *host) {
  char err[256];
  ana_table_t *t = ana_table_create(cols, 4, err, sizeof err);
  CHECK(t != NULL);
  ana_provenance(t, &(ana_prov_t){.title = "grid", .job_file = "grid.json", .backend = "cpu"});
  ana_table_set_attr(t, "hostname", host);
  return t;
}

static void text_att(int nc, int v, const char *name, const char *want) {
  char buf[256] = "";
  size_t len = 0;
  CHECK(nc_inq_attlen(nc, v, name, &len) == NC_NOERR && len < sizeof buf);
  CHECK(nc_get_att_text(nc, v, name, buf) == NC_NOERR);
  buf[len < sizeof buf ? len : 0] = '\0';
  CHECK(strcmp(buf, want) == 0);
  if (strcmp(buf, want)) fprintf(stderr, "%s: \"%s\", expected \"%s\"\n", name, buf, want);
}

/* The merged file, read with the NetCDF C API alone. */
static void check_merged(const char *path) {
  int nc, dim, v;
  size_t n = 0;
  CHECK(nc_open(path, NC_NOWRITE, &nc) == NC_NOERR);
  CHECK(nc_inq_dimid(nc, "experiment", &dim) == NC_NOERR && nc_inq_dimlen(nc, dim, &n) == NC_NOERR);
  CHECK_EQ_I64(n, 12);
  int unlimited = -1;
  CHECK(nc_inq_unlimdim(nc, &unlimited) == NC_NOERR && unlimited == dim);
  long long index[12], tp[12], hops[12];
  double t[12];
  signed char st[12];
  char *cc[12], *id[12], *msg[12];
  CHECK(nc_inq_varid(nc, "experiment_index", &v) == NC_NOERR &&
        nc_get_var_longlong(nc, v, index) == NC_NOERR);
  CHECK(nc_inq_varid(nc, "training_tp", &v) == NC_NOERR &&
        nc_get_var_longlong(nc, v, tp) == NC_NOERR);
  text_att(nc, v, "sweep_key", "training.tp");
  CHECK(nc_inq_varid(nc, "packet_hops", &v) == NC_NOERR &&
        nc_get_var_longlong(nc, v, hops) == NC_NOERR);
  CHECK(nc_inq_varid(nc, "iteration_time", &v) == NC_NOERR &&
        nc_get_var_double(nc, v, t) == NC_NOERR);
  text_att(nc, v, "units", "s");
  text_att(nc, v, "long_name", "time of one iteration");
  CHECK(nc_inq_varid(nc, "network_cc", &v) == NC_NOERR && nc_get_var_string(nc, v, cc) == NC_NOERR);
  text_att(nc, v, "sweep_key", "network.cc");
  CHECK(nc_inq_varid(nc, "experiment_id", &v) == NC_NOERR &&
        nc_get_var_string(nc, v, id) == NC_NOERR);
  CHECK(nc_inq_varid(nc, "message", &v) == NC_NOERR && nc_get_var_string(nc, v, msg) == NC_NOERR);
  CHECK(nc_inq_varid(nc, "status", &v) == NC_NOERR && nc_get_var_schar(nc, v, st) == NC_NOERR);
  nc_type type;
  CHECK(nc_inq_vartype(nc, v, &type) == NC_NOERR && type == NC_BYTE);
  text_att(nc, v, "flag_meanings", "ok oom invalid failed timed_out");
  signed char flags[5];
  size_t nflags = 0;
  CHECK(nc_inq_attlen(nc, v, "flag_values", &nflags) == NC_NOERR && nflags == 5);
  CHECK(nc_get_att_schar(nc, v, "flag_values", flags) == NC_NOERR);
  CHECK(flags[0] == 0 && flags[1] == 1 && flags[2] == 2 && flags[3] == 3 && flags[4] == 4);
  int ok = 1;
  for (int64_t i = 0; i < 12; i++) {
    char want[32];
    snprintf(want, sizeof want, "%016llx", (unsigned long long)(0x1000 + i * 7919));
    ok &= index[i] == i && tp[i] == tps[i % 4] && strcmp(cc[i], ccs[i / 4]) == 0;
    ok &= strcmp(id[i], want) == 0;
    /* Index 7 only ever failed; 3 failed once and then ran ok. */
    if (i == 7)
      ok &= st[i] == 3 && isnan(t[i]) && hops[i] == NC_FILL_INT64 && !strcmp(msg[i], "node lost");
    else
      ok &= st[i] == 0 && t[i] == itime(i) && hops[i] == 1000 * i && !strcmp(msg[i], "");
  }
  CHECK(ok);
  nc_free_string(12, cc);
  nc_free_string(12, id);
  nc_free_string(12, msg);
  text_att(nc, NC_GLOBAL, "Conventions", "CF-1.11");
  text_att(nc, NC_GLOBAL, "swept_parameters", "network_cc training_tp");
  text_att(nc, NC_GLOBAL, "title", "grid");
  text_att(nc, NC_GLOBAL, "hostname", "node-a, node-b"); /* distinct values, sorted */
  text_att(nc, NC_GLOBAL, "shards", "3");
  text_att(nc, NC_GLOBAL, "slurm_job_id", "4242");
  text_att(nc, NC_GLOBAL, "date_created", "1970-01-01T00:00:00Z");
  CHECK(nc_close(nc) == NC_NOERR);
}

int main(void) {
  char dir[] = "/tmp/mv_ana_XXXXXX";
  CHECK(mkdtemp(dir) != NULL);
  char a[256], b[256], c[256], out[256], tmp[300], err[512];
  snprintf(a, sizeof a, "%s/shard-0.nc", dir);
  snprintf(b, sizeof b, "%s/shard-1.nc", dir);
  snprintf(c, sizeof c, "%s/shard-2.nc", dir);
  snprintf(out, sizeof out, "%s/results.nc", dir);
  setenv("SLURM_JOB_ID", "4242", 1);
  setenv("SOURCE_DATE_EPOCH", "0", 1);
  /* Shard 0: even indices, 3 failed, 7 failed; shard 1: odd ones, 3 ok (rerun);
   * shard 2: a rerun of 0 and 5, ok too (shard 0 and 1 sort first: theirs win). */
  ana_table_t *s0 = shard("node-a"), *s1 = shard("node-b"), *s2 = shard("node-a");
  for (int64_t i = 0; i < 12; i += 2)
    add(s0, i, ANA_OK, NULL);
  add(s0, 3, ANA_FAILED, "node lost");
  add(s0, 7, ANA_FAILED, "node lost");
  for (int64_t i = 1; i < 12; i += 2)
    if (i != 7) add(s1, i, ANA_OK, NULL);
  add(s2, 5, ANA_OK, "rerun");
  add(s2, 0, ANA_OK, "rerun");
  CHECK(ana_write(s0, a, err, sizeof err) == 0);
  CHECK(ana_write(s1, b, err, sizeof err) == 0);
  CHECK(ana_write(s2, c, err, sizeof err) == 0);
  snprintf(tmp, sizeof tmp, "%s.tmp", a);
  CHECK(access(a, R_OK) == 0 && access(tmp, F_OK) != 0); /* renamed into place */
  /* Read back: the same table. */
  ana_table_t *r0 = ana_read(a, err, sizeof err);
  CHECK(r0 && ana_table_n_rows(r0) == 8 && ana_table_n_cols(r0) == 4);
  if (r0) {
    ana_row_t row = ana_table_row(r0, 6);
    CHECK(row.index == 3 && row.status == ANA_FAILED && !strcmp(row.message, "node lost"));
    CHECK(ana_table_value(r0, 6, 3).i == ANA_FILL_INT64 && isnan(ana_table_value(r0, 6, 2).d));
    CHECK(ana_table_value(r0, 2, 2).d == itime(4) && !strcmp(ana_table_value(r0, 2, 0).s, "hpcc"));
    CHECK(!strcmp(ana_table_col(r0, 1)->key, "training.tp") &&
          !strcmp(ana_table_col(r0, 2)->units, "s"));
    CHECK(!strcmp(ana_table_attr(r0, "backend"), "cpu") &&
          !strcmp(ana_table_attr(r0, "job_file"), "grid.json"));
    CHECK(ana_table_find(r0, "network.cc") == 0 && ana_table_find(r0, "training_tp") == 1);
  }
  ana_table_free(r0);
  /* Merge in any order of paths; 12 expected. */
  const char *paths[] = {c, a, b};
  CHECK(ana_merge(out, paths, 3, 12, err, sizeof err) == 0);
  check_merged(out);
  /* 13 expected: one missing. */
  CHECK(ana_merge(out, paths, 3, 13, err, sizeof err) == -1);
  CHECK_STR_CONTAINS(err, "1 of 13 experiments missing (the first: index 12)");
  CHECK(ana_merge(out, paths, 2, 12, err, sizeof err) == -1); /* without shard 1 */
  CHECK_STR_CONTAINS(err, "3 of 12 experiments missing (the first: index 1)");
  /* One index, two ids. */
  char d[256];
  snprintf(d, sizeof d, "%s/shard-3.nc", dir);
  ana_table_t *s3 = shard("node-c");
  add(s3, 2, ANA_OK, NULL);
  ana_table_append(
      s3, &(ana_row_t){.index = 4,
                       .id = "ffffffffffffffff",
                       .status = ANA_OK,
                       .values = (ana_value_t[4]){{.s = "x"}, {.i = 1}, {.d = 1}, {.i = 1}}});
  CHECK(ana_write(s3, d, err, sizeof err) == 0);
  const char *clash[] = {a, d};
  CHECK(ana_merge(out, clash, 2, 0, err, sizeof err) == -1);
  CHECK_STR_CONTAINS(err, "experiment index 4 holds two experiments");
  /* Columns that differ. */
  ana_table_t *other = ana_table_create(cols, 3, err, sizeof err);
  CHECK(ana_write(other, d, err, sizeof err) == 0);
  CHECK(ana_merge(out, clash, 2, 0, err, sizeof err) == -1);
  CHECK_STR_CONTAINS(err, "3 columns, not 4");
  /* Not a results file, no file, a bad column name, a folder that is not there. */
  int nc;
  CHECK(nc_create(d, NC_CLOBBER | NC_NETCDF4, &nc) == NC_NOERR && nc_close(nc) == NC_NOERR);
  CHECK(ana_read(d, err, sizeof err) == NULL);
  CHECK_STR_CONTAINS(err, "not a Multiverse results file");
  CHECK(ana_read("/nonexistent.nc", err, sizeof err) == NULL);
  CHECK_STR_CONTAINS(err, "/nonexistent.nc: ");
  ana_col_t bad = {.name = "network.cc", .type = ANA_STRING};
  CHECK(ana_table_create(&bad, 1, err, sizeof err) == NULL);
  CHECK_STR_CONTAINS(err, "network.cc");
  char name[64];
  ana_var_name("network.topology.kind", name, sizeof name);
  CHECK(!strcmp(name, "network_topology_kind"));
  CHECK(ana_write(s0, "/nonexistent/x.nc", err, sizeof err) == -1);
  CHECK_STR_CONTAINS(err, "/nonexistent/x.nc: ");
  ana_table_free(s0);
  ana_table_free(s1);
  ana_table_free(s2);
  ana_table_free(s3);
  ana_table_free(other);
  const char *files[] = {a, b, c, d, out};
  for (size_t k = 0; k < sizeof files / sizeof *files; k++)
    unlink(files[k]);
  rmdir(dir);
  return mvtest_end();
}
