/* nccl-tests logs: a log written the way nccl-tests prints (src/util.cu)
 * from the shipped A100 curve reads back and refits to the shipped
 * parameters; the format's variants read the same; malformed logs fail with
 * file:line.
 * The refit is within 2e-4 of the shipped parameters (the log prints times to
 * 0.01 us). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <sys/stat.h>
#include <unistd.h>

#include "coll/coll.h"
#include "mvtest.h"

static char dir[64];

/* nccl-tests' getFloatStr: the widest of %.2f, %.1f, %.0f that fits. */
static void fstr(double v, int w, char *s) {
  static const char *const fmts[] = {"%*.2f", "%*.1f", "%*.0f", "%*.1e"};
  for (int i = 0; i < 4; i++)
    if (snprintf(s, 64, fmts[i], w, v) <= w) return;
}

typedef struct gen_t {
  int ranks, starting_line, old_rank_lines, per_iter, tag, info_lines;
  const char *prog;
} gen_t;

/* The body of one column group: time algbw busbw #wrong [i_min i_max i_p99 i_cv%]. */
static void group(FILE *f, const gen_t *o, uint64_t size, double t, double factor) {
  char ts[64], as[64], bs[64];
  double alg = (double)size / 1e3 / t;
  fstr(t, 7, ts);
  fstr(alg, 6, as);
  fstr(alg * factor, 6, bs);
  fprintf(f, "  %7s  %6s  %6s  %6g", ts, as, bs, 0.0);
  if (o->per_iter) fprintf(f, "  %7s  %7s  %7s  %7s", ts, ts, ts, "   1.20");
}

/* Writes DIR/NAME, an nccl-tests log of the points; returns its path. */
static const char *gen(const char *name, const gen_t *o, coll_kind_t k, const coll_point_t *p,
                       int n) {
  static char path[4][256];
  static int slot;
  slot = (slot + 1) % 4;
  snprintf(path[slot], sizeof path[slot], "%s/%s", dir, name);
  FILE *f = fopen(path[slot], "w");
  const char *tag = o->tag ? "[1,0]<stdout>:" : "";
  fprintf(f, "%s# nccl-tests version 2.17.6 nccl-headers=22703 nccl-library=22703\n", tag);
  if (o->starting_line) fprintf(f, "%s# Collective test starting: %s\n", tag, o->prog);
  fprintf(f,
          "%s# nThread 1 nGpus %d minBytes 1024 maxBytes 8589934592 step: 2(factor) warmup "
          "iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0\n#\n# Using devices\n",
          tag, o->ranks);
  if (o->info_lines) fprintf(f, "node001:123:123 [0] NCCL INFO Bootstrap : Using eth0\n");
  for (int r = 0; r < o->ranks; r++)
    if (o->old_rank_lines)
      fprintf(f, "#  Rank %2d Pid %6d on %10s device %2d [0x%02x] %s\n", r, 4242, "node001", r,
              7 + r, "NVIDIA A100-SXM4-80GB");
    else
      fprintf(f, "%s#  Rank %2d Group %2d Pid %6d on %10s device %2d [%04x:%02x:%02x] %s\n", tag, r,
              0, 4242, "node001", r, 0, 7 + r, 0, "NVIDIA A100-SXM4-80GB");
  fprintf(f,
          "#\n#                                                              out-of-place        "
          "               in-place          \n");
  if (o->per_iter)
    fprintf(f,
            "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %7s  %7s  %7s  %7s  %6s  "
            "%6s  %6s  %7s  %7s  %7s  %7s\n",
            "size", "count", "type", "redop", "root", "time", "algbw", "busbw", "#wrong", "i_min",
            "i_max", "i_p99", "i_cv%", "time", "algbw", "busbw", "#wrong", "i_min", "i_max",
            "i_p99", "i_cv%");
  else
    fprintf(f, "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s\n", "size",
            "count", "type", "redop", "root", "time", "algbw", "busbw", "#wrong", "time", "algbw",
            "busbw", "#wrong");
  double factor = coll_busbw_factor(k, o->ranks);
  for (int i = 0; i < n; i++) {
    int rooted = k == COLL_BROADCAST || k == COLL_REDUCE;
    const char *op =
        k == COLL_ALLGATHER || k == COLL_ALLTOALL || k == COLL_BROADCAST ? "none" : "sum";
    fprintf(f, "%s%12llu  %12llu  %8s  %6s  %6d", tag, (unsigned long long)p[i].bytes,
            (unsigned long long)p[i].bytes / 4, "float", op, rooted ? 0 : -1);
    group(f, o, p[i].bytes, p[i].time_us * 1.02, factor); /* out-of-place: 2 % slower */
    group(f, o, p[i].bytes, p[i].time_us, factor);
    fprintf(f, "\n");
    if (o->info_lines && i == 3) fprintf(f, "node001:123:130 [2] NCCL INFO Channel 00 : 2 -> 3\n");
  }
  fprintf(f, "%s# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 95.12 \n#\n", tag);
  fclose(f);
  return path[slot];
}

static int32_t shipped_points(coll_point_t *p) {
  char path[1024];
  const char *d = getenv("MV_PRESETS");
  snprintf(path, sizeof path, "%s/nccl_intra.json", d ? d : "jobs/presets");
  json_error_t je;
  json_t *root = json_load_file(path, 0, &je), *v;
  json_t *pts = json_object_get(json_array_get(json_object_get(root, "curves"), 0), "points");
  size_t i;
  int32_t n = 0;
  json_array_foreach(pts, i, v) {
    double bus = json_number_value(json_object_get(v, "busbw_GBps"));
    p[n].bytes = (uint64_t)json_integer_value(json_object_get(v, "bytes"));
    p[n].time_us = (double)p[n].bytes / (bus * 1e9 / coll_busbw_factor(COLL_ALLREDUCE, 8)) * 1e6;
    n++;
  }
  json_decref(root);
  return n;
}

static void test_refit(void) {
  coll_point_t p[64];
  int32_t n = shipped_points(p);
  gen_t o = {.ranks = 8, .starting_line = 1, .prog = "all_reduce_perf"};
  const char *path = gen("a.log", &o, COLL_ALLREDUCE, p, n);
  coll_log_t log;
  char err[512];
  CHECK_EQ_I64(coll_log_read(path, -1, 0, &log, err, sizeof err), 0);
  CHECK_EQ_I64(log.kind, COLL_ALLREDUCE);
  CHECK_EQ_I64(log.ranks, 8);
  CHECK_EQ_I64(log.nodes, 1);
  CHECK_EQ_I64(log.n, 24);
  char gpu[64];
  coll_gpu_name(log.device, gpu, sizeof gpu);
  CHECK_STR_CONTAINS(gpu, "a100-sxm4-80gb");
  CHECK_STR_CONTAINS(log.version, "nccl-tests version 2.17.6");
  coll_fit_t f, ref;
  CHECK_EQ_I64(coll_fit(log.p, log.n, &f, err, sizeof err), 0);
  CHECK_EQ_I64(coll_fit(p, n, &ref, err, sizeof err), 0);
  /* The log prints times to 0.01 us (7 characters: 0.1 us from 10 ms): at
   * the smallest times, 42 us, a rounding of up to 1.2e-4 relative, which the
   * least squares average over each range's points: parameters agree within
   * 2e-4 (6.6e-5 measured), the range bounds exactly. */
  CHECK_EQ_I64(f.n_ranges, ref.n_ranges);
  double worst = 0;
  for (int32_t i = 0; i < f.n_ranges && i < ref.n_ranges; i++) {
    CHECK_EQ_I64(f.r[i].max_bytes, ref.r[i].max_bytes);
    double ea = fabs(f.r[i].alpha_us / ref.r[i].alpha_us - 1);
    double eb = fabs(f.r[i].beta_gbps / ref.r[i].beta_gbps - 1);
    worst = fmax(worst, fmax(ea, eb));
  }
  printf("refit from a printed log: largest relative parameter difference %.2e\n", worst);
  CHECK(worst < 2e-4);
  coll_log_free(&log);
  /* The out-of-place column: 2 % slower. */
  CHECK_EQ_I64(coll_log_read(path, -1, 1, &log, err, sizeof err), 0);
  CHECK(fabs(log.p[23].time_us / p[23].time_us - 1.02) < 1e-5);
  coll_log_free(&log);
}

/* Older and newer layouts read the same points. */
static void test_variants(void) {
  coll_point_t p[3] = {{1048576, 30.5}, {4194304, 60.25}, {16777216, 150.75}};
  gen_t o = {.ranks = 2, .old_rank_lines = 1, .prog = "all_gather_perf"};
  /* No "Collective test starting": the file name names the program. */
  const char *path = gen("all_gather_perf_2gpu.log", &o, COLL_ALLGATHER, p, 3);
  coll_log_t log;
  char err[512];
  CHECK_EQ_I64(coll_log_read(path, -1, 0, &log, err, sizeof err), 0);
  CHECK_EQ_I64(log.kind, COLL_ALLGATHER);
  CHECK_EQ_I64(log.ranks, 2);
  CHECK_EQ_I64(log.n, 3);
  CHECK(log.n == 3 && log.p[1].bytes == 4194304 && log.p[1].time_us == 60.25);
  coll_log_free(&log);
  /* Per-iteration columns, mpirun --tag-output, NCCL INFO lines. */
  gen_t o2 = {.ranks = 4,
              .starting_line = 1,
              .per_iter = 1,
              .tag = 1,
              .info_lines = 1,
              .prog = "reduce_scatter_perf_mpi"};
  path = gen("x.log", &o2, COLL_REDUCESCATTER, p, 3);
  CHECK_EQ_I64(coll_log_read(path, -1, 0, &log, err, sizeof err), 0);
  CHECK_EQ_I64(log.kind, COLL_REDUCESCATTER);
  CHECK_EQ_I64(log.ranks, 4);
  CHECK(log.n == 3 && log.p[2].time_us == 150.75);
  coll_log_free(&log);
  /* The collective given explicitly; broadcast's root column. */
  gen_t o3 = {.ranks = 8, .prog = "broadcast_perf"};
  path = gen("y.log", &o3, COLL_BROADCAST, p, 3);
  CHECK_EQ_I64(coll_log_read(path, -1, 0, &log, err, sizeof err), -1);
  CHECK_STR_CONTAINS(err, "y.log:16: cannot tell the collective");
  CHECK_EQ_I64(coll_log_read(path, COLL_BROADCAST, 0, &log, err, sizeof err), 0);
  CHECK_EQ_I64(log.n, 3);
  coll_log_free(&log);
  /* The wrong collective shows in busbw. */
  CHECK_EQ_I64(coll_log_read(path, COLL_ALLREDUCE, 0, &log, err, sizeof err), -1);
  CHECK_STR_CONTAINS(err, "y.log:16: busbw");
  CHECK_STR_CONTAINS(err, "another collective or rank count?");
  char name[64];
  coll_gpu_name("NVIDIA H200", name, sizeof name);
  CHECK(strcmp(name, "h200") == 0);
  coll_gpu_name("NVIDIA H100 80GB HBM3", name, sizeof name);
  CHECK(strcmp(name, "h100-80gb-hbm3") == 0);
}

/* A log whose line `line` (1-based) is replaced by `text`. */
static void bad(const char *text, int line, const char *want) {
  coll_point_t p[3] = {{1048576, 30.5}, {4194304, 60.25}, {16777216, 150.75}};
  gen_t o = {.ranks = 2, .starting_line = 1, .prog = "all_reduce_perf"};
  const char *path = gen("bad.log", &o, COLL_ALLREDUCE, p, 3);
  char buf[8192], out[8192] = "";
  FILE *f = fopen(path, "r");
  for (int no = 1; fgets(buf, sizeof buf, f); no++)
    strcat(out, no == line ? text : buf);
  fclose(f);
  f = fopen(path, "w");
  fputs(out, f);
  fclose(f);
  coll_log_t log;
  char err[512] = "";
  CHECK_EQ_I64(coll_log_read(path, -1, 0, &log, err, sizeof err), -1);
  CHECK_STR_CONTAINS(err, want);
}

static void test_bad(void) {
  /* Lines: 1 version, 2 starting, 3 nThread, 4 #, 5 Using devices, 6-7 ranks,
   * 8 #, 9 title, 10 columns, 11-13 rows, 14 Out of bounds. */
  bad("     1048576        262144     float     sum      -1    30.50\n", 11,
      "bad.log:11: expected a result row");
  bad("     1048576        262144     float     sum      -1    x  34.38  34.38  0  30.50  34.38  "
      "34.38  0\n",
      11, "bad.log:11: time, algbw, busbw and #wrong must be numbers");
  bad("     1048576        262144     float     sum      -1   30.50  34.38  34.38  3  30.50  "
      "34.38  34.38  3\n",
      11, "bad.log:11: 3 wrong elements");
  bad("     1048576        262144     float     sum      -1   30.50  99.00  99.00  0  30.50  "
      "99.00  99.00  0\n",
      11, "bad.log:11: algbw 99.00 GB/s but size / time is 34.38");
  bad("     4194304       1048576      half     sum      -1   60.25  69.61  69.61  0  60.25  "
      "69.61  69.61  0\n",
      12, "bad.log:12: type half and operation sum after float and sum");
  bad("# Collective test starting: gather_perf\n", 2, "bad.log:2: gather_perf: not a collective");
  bad("#  Rank  1 Group  0 Pid   4242 on    node001 device  1 [0000:08:00] NVIDIA H200\n", 7,
      "bad.log:7: rank 1 is a NVIDIA H200, an earlier one a NVIDIA A100-SXM4-80GB");
  bad("#  Rank  1 Group  0 Pid   4242\n", 7, "bad.log:7: a device line that does not read");
  bad("#\n", 6, "bad.log:11: busbw"); /* one rank fewer: busbw is not algbw x 2(n-1)/n */
  bad("# Out of bounds values : 0 OK\n", 10, "bad.log: no result rows");
  coll_log_t log;
  char err[512];
  CHECK_EQ_I64(coll_log_read("no/such.log", -1, 0, &log, err, sizeof err), -1);
  CHECK_STR_CONTAINS(err, "no/such.log: cannot open");
}

int main(void) {
  snprintf(dir, sizeof dir, "coll_log_XXXXXX");
  if (!mkdtemp(dir)) return 2;
  test_refit();
  test_variants();
  test_bad();
  const char *names[] = {"a.log", "all_gather_perf_2gpu.log", "x.log", "y.log", "bad.log"};
  char path[256];
  for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
    snprintf(path, sizeof path, "%s/%s", dir, names[i]);
    unlink(path);
  }
  rmdir(dir);
  return mvtest_end();
}
