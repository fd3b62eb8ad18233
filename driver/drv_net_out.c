/* Outputs of `multiverse net`: the ns-3 HPCC FCT file of each experiment, a
 * task graph's task times, and its summary (a text line or a JSON object). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "driver/drv.h"

/* ns-3 writes node id as the IPv4 address 11.0.x.y it gives that node. */
static uint32_t out_ip(int32_t id) {
  return 0x0b000001u + (uint32_t)(id / 256) * 0x10000u + (uint32_t)(id % 256) * 0x100u;
}

typedef struct out_row_t {
  int64_t finish;
  int32_t idx;
} out_row_t;

static int out_cmp(const void *a, const void *b) {
  const out_row_t *x = a, *y = b;
  if (x->finish != y->finish) return x->finish < y->finish ? -1 : 1;
  return x->idx - y->idx;
}

static int out_cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return x < y ? -1 : x > y;
}

static int out_cmp_f64(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* Nearest-rank percentile q (0..100] of n sorted values. */
static int32_t out_rank(int32_t n, int q) {
  return (int32_t)((q * (int64_t)n + 99) / 100 - 1);
}

typedef struct out_stats_t {
  int32_t done;
  uint64_t bytes;
  int64_t max_fct, p99_fct, mean_fct;   /* ns */
  double p50_slow, p99_slow, mean_slow; /* FCT / standalone FCT */
} out_stats_t;

/* Writes the finished flows, in finish order (ties in task order), or in task
 * order for a task graph; fills the FCT statistics. */
static int out_fct_file(const eng_batch_t *b, const drv_net_report_t *r, const char *path,
                        out_stats_t *st) {
  const tg_t *fl = r->tasks;
  out_row_t *rows = malloc(((size_t)fl->n + 1) * sizeof *rows);
  int64_t *starts = malloc(((size_t)fl->n + 1) * sizeof *starts);
  int64_t *fcts = malloc(((size_t)fl->n + 1) * sizeof *fcts);
  double *slow = malloc(((size_t)fl->n + 1) * sizeof *slow);
  FILE *f = path ? fopen(path, "w") : NULL;
  if (!rows || !starts || !fcts || !slow || (path && !f)) {
    free(rows);
    free(starts);
    free(fcts);
    free(slow);
    if (f) fclose(f);
    return drv_fail(2, "multiverse net: cannot write %s: %s\n", path, strerror(errno));
  }
  int32_t n = 0;
  for (int32_t i = 0; i < fl->n; i++) {
    eng_task_times_t tt;
    if (fl->t[i].kind != TG_FLOW) continue;
    st->bytes += fl->t[i].bytes;
    if (eng_task_times(b, r->index, i, &tt) == 0 && tt.end >= 0) {
      starts[i] = tt.start; /* a flow with predecessors starts later than its `start` */
      rows[n++] = (out_row_t){tt.end, i};
    }
  }
  if (!r->graph) qsort(rows, (size_t)n, sizeof *rows, out_cmp);
  double sum = 0;
  for (int32_t k = 0; k < n; k++) {
    const tg_task_t *t = &fl->t[rows[k].idx];
    int64_t start = starts[rows[k].idx], fct = rows[k].finish - start;
    int64_t alone = eng_flow_standalone(r->topo, r->params, t);
    if (f)
      fprintf(f, "%08x %08x %u %u %" PRIu64 " %" PRId64 " %" PRId64 " %" PRId64 "\n",
              out_ip(t->host), out_ip(t->dst), t->sport, t->dport, t->bytes, start / 1000,
              fct / 1000, alone / 1000);
    fcts[k] = fct / 1000;
    sum += (double)fcts[k];
    slow[k] = alone > 0 ? (double)fct / (double)alone : 0;
    st->mean_slow += slow[k] / n;
  }
  qsort(fcts, (size_t)n, sizeof *fcts, out_cmp_i64);
  qsort(slow, (size_t)n, sizeof *slow, out_cmp_f64);
  st->done = n;
  st->max_fct = n ? fcts[n - 1] : 0;
  st->p99_fct = n ? fcts[out_rank(n, 99)] : 0;
  st->mean_fct = n ? (int64_t)(sum / n) : 0;
  st->p50_slow = n ? slow[out_rank(n, 50)] : 0;
  st->p99_slow = n ? slow[out_rank(n, 99)] : 0;
  free(rows);
  free(starts);
  free(fcts);
  free(slow);
  if (f && fclose(f)) return drv_fail(2, "multiverse net: cannot write %s\n", path);
  return 0;
}

/* tasks-N.txt of a task graph: every task in task order with its times (ps,
 * -1 where the event did not happen). */
static int out_tasks_file(const eng_batch_t *b, const drv_net_report_t *r, const char *path) {
  static const char *const kinds[] = {"flow", "compute", "coll", "join"};
  FILE *f = fopen(path, "w");
  if (!f) return drv_fail(2, "multiverse net: cannot write %s: %s\n", path, strerror(errno));
  fprintf(f, "# task kind host dst bytes start_ps end_ps recv_ps line label\n");
  for (int32_t i = 0; i < r->tasks->n; i++) {
    const tg_task_t *t = &r->tasks->t[i];
    eng_task_times_t tt = {-1, -1, -1};
    eng_task_times(b, r->index, i, &tt);
    int flow = t->kind == TG_FLOW;
    fprintf(f, "%d %s %d %d %" PRId64 " %" PRId64 " %" PRId64 " %" PRId64 " %d %s\n", i,
            kinds[t->kind], t->host, flow ? t->dst : -1, flow ? (int64_t)t->bytes : -1, tt.start,
            tt.end, tt.recv, t->line, t->label >= 0 ? r->tasks->labels[t->label] : "-");
  }
  if (fclose(f)) return drv_fail(2, "multiverse net: cannot write %s\n", path);
  return 0;
}

int drv_net_fct(const eng_batch_t *b, const drv_net_report_t *r, const char *path) {
  eng_result_t res;
  eng_exp_result(b, r->index, &res);
  out_stats_t st = {0};
  return res.status == ENG_INVALID ? 0 : out_fct_file(b, r, path, &st);
}

/* A statistic of the finished flows: JSON null when none finished. */
static json_t *out_int(int32_t done, int64_t v) {
  return done ? json_integer(v) : json_null();
}
static json_t *out_real(int32_t done, double v) {
  return done ? json_real(v) : json_null();
}

/* The same on the summary line: "-" when none finished. */
static const char *out_text(int32_t done, const char *fmt, double v, char *buf, size_t len) {
  if (!done) return "-";
  snprintf(buf, len, fmt, v);
  return buf;
}

int drv_net_write(const eng_batch_t *b, const drv_net_report_t *r, const char *outdir, int json,
                  FILE *summary) {
  eng_result_t res;
  eng_exp_result(b, r->index, &res);
  char path[4096];
  snprintf(path, sizeof path, "%s/fct-%d%s.txt", outdir ? outdir : ".", r->index,
           res.status == ENG_OK ? "" : ".partial");
  out_stats_t st = {0};
  int32_t flows = 0;
  for (int32_t i = 0; i < r->tasks->n; i++)
    flows += r->tasks->t[i].kind == TG_FLOW;
  if (res.status == ENG_INVALID) { /* nothing ran: no FCT file */
    for (int32_t i = 0; i < r->tasks->n; i++)
      st.bytes += r->tasks->t[i].kind == TG_FLOW ? r->tasks->t[i].bytes : 0;
  } else if (out_fct_file(b, r, outdir ? path : NULL, &st)) {
    return 2;
  } else if (r->graph && outdir) {
    snprintf(path, sizeof path, "%s/tasks-%d%s.txt", outdir, r->index,
             res.status == ENG_OK ? "" : ".partial");
    if (out_tasks_file(b, r, path)) return 2;
  }
  const char *reason = eng_result_reason(&res);
  double rate = r->wall_s > 0 ? (double)res.packet_hops / r->wall_s : 0;
  char id[17];
  snprintf(id, sizeof id, "%016" PRIx64, r->id);
  json_t *o = json_pack(
      "{s:i,s:s,s:s,s:s,s:s,s:i,s:i,s:I,s:o,s:o,s:o,s:I,s:I,s:I,s:I,s:I,s:I,s:o,s:I,s:s,s:f,s:f}",
      "experiment", r->index, "flows_file", r->flows_path, "experiment_id", id, "status",
      eng_status_name(res.status), "reason", reason, "flows", flows, "flows_done", st.done, "bytes",
      (json_int_t)st.bytes, "max_fct_ns", out_int(st.done, st.max_fct), "p99_fct_ns",
      out_int(st.done, st.p99_fct), "mean_fct_ns", out_int(st.done, st.mean_fct), "drops",
      (json_int_t)res.drops, "pfc_pauses", (json_int_t)res.pfc_pauses, "ecn_marks",
      (json_int_t)res.ecn_marks, "retransmits", (json_int_t)res.retransmits, "timeouts",
      (json_int_t)res.timeouts, "packet_hops", (json_int_t)res.packet_hops, "sim_end_ns",
      out_int(res.status == ENG_OK, res.end_ps / 1000), "windows", (json_int_t)res.windows,
      "backend", r->backend == ENG_BACKEND_CUDA ? "cuda" : "cpu", "wall_s", r->wall_s,
      "packet_hops_per_s", rate);
  if (r->sweep) json_object_set_new(o, "sweep", drv_sweep_json(r->sweep));
  if (r->graph) json_object_set_new(o, "tasks", json_integer(r->tasks->n));
  json_object_set_new(o, "p50_slowdown", out_real(st.done, st.p50_slow));
  json_object_set_new(o, "p99_slowdown", out_real(st.done, st.p99_slow));
  json_object_set_new(o, "mean_slowdown", out_real(st.done, st.mean_slow));
  json_object_set_new(o, "cnps", json_integer(res.cnps));
  json_object_set_new(o, "retx_bytes", json_integer(res.retx_bytes));
  json_object_set_new(o, "paused_ns", json_integer(res.paused_ps / 1000));
  json_t *tiers = json_array();
  for (int tr = 0; tr < res.n_tiers; tr++) {
    const eng_tier_stats_t *ts = &res.tier[tr];
    if (!ts->ports) continue;
    json_array_append_new(tiers, json_pack("{s:i,s:i,s:I,s:f,s:f}", "tier", tr, "ports", ts->ports,
                                           "max_queue_bytes", (json_int_t)ts->max_queue,
                                           "mean_util", ts->mean_util, "max_util", ts->max_util));
  }
  json_object_set_new(o, "tiers", tiers);
  char *line = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
  json_decref(o);
  if (summary) fprintf(summary, "%s\n", line);
  if (json) {
    printf("%s\n", line);
  } else if (res.status == ENG_INVALID) {
    printf("exp %d %s%s%s%s: invalid: %s\n", r->index, r->flows_path, r->sweep ? " [" : "",
           r->sweep ? r->sweep : "", r->sweep ? "]" : "", reason);
  } else {
    char mx[32], p99[32], sl[32]; /* "-" when no flow finished */
    printf("exp %d %s%s%s%s: %s flows=%d bytes=%" PRIu64 " max_fct=%s p99_fct=%s p99_slowdown=%s"
           " drops=%" PRId64 " pauses=%" PRId64 " ecn=%" PRId64 " cnps=%" PRId64 " hops=%" PRId64
           " wall=%.3fs (%.3g hops/s)%s%s\n",
           r->index, r->flows_path, r->sweep ? " [" : "", r->sweep ? r->sweep : "",
           r->sweep ? "]" : "", eng_status_name(res.status), flows, st.bytes,
           out_text(st.done, "%.0fns", (double)st.max_fct, mx, sizeof mx),
           out_text(st.done, "%.0fns", (double)st.p99_fct, p99, sizeof p99),
           out_text(st.done, "%.2f", st.p99_slow, sl, sizeof sl), res.drops, res.pfc_pauses,
           res.ecn_marks, res.cnps, res.packet_hops, r->wall_s, rate, *reason ? ": " : "", reason);
  }
  free(line);
  return res.status == ENG_OK ? 0 : 1;
}
