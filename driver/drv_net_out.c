/* Outputs of `multiverse net`, a sink over the pipeline's rows: the worker that
 * runs an experiment writes, per experiment id, RUNDIR/out/ID.fct (the ns-3
 * HPCC FCT file), ID.tasks (a task graph's task times), ID.trace.csv (time
 * series) and ID.json (its summary); at the end the command renders each
 * experiment of its job from them: OUTDIR/fct-N.txt, tasks-N.txt, trace-N.csv,
 * summary.jsonl and its line on stdout. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "base/base_units.h"
#include "driver/drv_net.h"

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

/* Writes the finished flows of experiment e of b to f, in finish order (ties
 * in task order), or in task order for a task graph. 0 or -1 (out of memory). */
static int out_fct(const eng_batch_t *b, int32_t e, const drv_net_own_t *o, FILE *f) {
  const tg_t *fl = o->tasks;
  out_row_t *rows = malloc(((size_t)fl->n + 1) * sizeof *rows);
  int64_t *starts = malloc(((size_t)fl->n + 1) * sizeof *starts);
  if (!rows || !starts) {
    free(rows);
    free(starts);
    return -1;
  }
  int32_t n = 0;
  for (int32_t i = 0; i < fl->n; i++) {
    eng_task_times_t tt;
    if (fl->t[i].kind != TG_FLOW || fl->t[i].open) continue; /* open-N.txt has those */
    if (eng_task_times(b, e, i, &tt) == 0 && tt.end >= 0) {
      starts[i] = tt.start; /* a flow with predecessors starts later than its `start` */
      rows[n++] = (out_row_t){tt.end, i};
    }
  }
  if (!o->graph) qsort(rows, (size_t)n, sizeof *rows, out_cmp);
  for (int32_t k = 0; k < n; k++) {
    const tg_task_t *t = &fl->t[rows[k].idx];
    int64_t start = starts[rows[k].idx], fct = rows[k].finish - start;
    int64_t alone = eng_flow_standalone(o->topo, &o->params, t);
    fprintf(f, "%08x %08x %u %u %" PRIu64 " %" PRId64 " %" PRId64 " %" PRId64 "\n", out_ip(t->host),
            out_ip(t->dst), t->sport, t->dport, t->bytes, start / 1000, fct / 1000, alone / 1000);
  }
  free(rows);
  free(starts);
  return 0;
}

/* Every task of experiment e in task order with its times (ps, -1 where the
 * event did not happen). */
static void out_tasks(const eng_batch_t *b, int32_t e, const tg_t *g, FILE *f) {
  static const char *const kinds[] = {"flow", "compute", "coll", "join"};
  fprintf(f, "# task kind host dst bytes start_ps end_ps recv_ps line label\n");
  for (int32_t i = 0; i < g->n; i++) {
    const tg_task_t *t = &g->t[i];
    eng_task_times_t tt = {-1, -1, -1};
    eng_task_times(b, e, i, &tt);
    int flow = t->kind == TG_FLOW;
    fprintf(f, "%d %s %d %d %" PRId64 " %" PRId64 " %" PRId64 " %" PRId64 " %d %s\n", i,
            kinds[t->kind], t->host, flow ? t->dst : -1, flow ? (int64_t)t->bytes : -1, tt.start,
            tt.end, tt.recv, t->line, t->label >= 0 ? g->labels[t->label] : "-");
  }
}

/* Time series of experiment e: a column of time, then per traced flow its
 * delivered bytes and CC state, per traced port its data queue. */
static void out_trace(const eng_batch_t *b, int32_t e, const eng_trace_desc_t *tr, const topo_t *t,
                      FILE *f) {
  fprintf(f, "time_us");
  for (int32_t i = 0; i < tr->n_flows; i++)
    fprintf(f, ",flow%d_delivered_bytes,flow%d_cc", tr->flows[i], tr->flows[i]);
  for (int32_t i = 0; i < tr->n_ports; i++)
    fprintf(f, ",queue_%d_%d_bytes", t->ports[tr->ports[i]].node, t->ports[tr->ports[i]].peer);
  fprintf(f, "\n");
  int32_t nser = 1 + 2 * tr->n_flows + tr->n_ports;
  for (int32_t k = 0; k < eng_trace_samples(b, e); k++) {
    fprintf(f, "%.6f", eng_trace_value(b, e, k, 0) / BASE_PS_PER_US);
    for (int32_t s = 1; s < nser; s++)
      fprintf(f, ",%.17g", eng_trace_value(b, e, k, s));
    fprintf(f, "\n");
  }
}

/* Long-lived flows (htsim's size 0) of experiment e, which send until its end: per
 * flow in task order SIP DIP SPORT DPORT DELIVERED_BYTES START_NS END_NS GOODPUT_GBPS
 * into f (NULL: none); their count, bytes delivered and goodput summed. */
static int32_t out_open(const eng_batch_t *b, int32_t e, const drv_net_own_t *o, FILE *f,
                        uint64_t *bytes, double *gbps) {
  const tg_t *g = o->tasks;
  int32_t n = 0;
  *bytes = 0;
  *gbps = 0;
  for (int32_t i = 0; i < g->n; i++) {
    const tg_task_t *t = &g->t[i];
    eng_task_times_t tt = {-1, -1, -1};
    uint64_t got = 0;
    if (t->kind != TG_FLOW || !t->open) continue;
    n++;
    eng_task_times(b, e, i, &tt);
    eng_task_delivered(b, e, i, &got);
    int64_t stop = tt.end >= 0 ? tt.end : o->params.max_time; /* ended: every byte (1 TiB) */
    double rate =
        tt.start >= 0 && stop > tt.start ? (double)got * 8e3 / (double)(stop - tt.start) : 0;
    *bytes += got;
    *gbps += rate;
    if (f)
      fprintf(f, "%08x %08x %u %u %" PRIu64 " %" PRId64 " %" PRId64 " %.6f\n", out_ip(t->host),
              out_ip(t->dst), t->sport, t->dport, got, tt.start >= 0 ? tt.start / 1000 : -1,
              stop / 1000, rate);
  }
  return n;
}

/* Long-lived flows of an experiment: how many, bytes delivered, goodput summed. */
typedef struct out_open_t {
  int32_t n;
  uint64_t bytes;
  double gbps;
} out_open_t;

/* A statistic of the finished flows: JSON null when none finished. */
static json_t *out_int(int32_t done, int64_t v) {
  return done ? json_integer(v) : json_null();
}
static json_t *out_real(int32_t done, double v) {
  return done ? json_real(v) : json_null();
}

/* The summary of an experiment that ran (b, e) or was invalid: every field but
 * its number, flow file and swept values, which depend on where the job lists
 * it (placeholders at their places). */
static json_t *out_summary(const drv_sink_exp_t *ev, const drv_net_own_t *o,
                           const drv_fct_stats_t *st, const out_open_t *op) {
  eng_result_t res;
  const char *reason;
  if (ev->b) {
    eng_exp_result(ev->b, ev->e, &res);
    reason = eng_result_reason(&res);
  } else { /* its batch could not be made or run: the row says why */
    res = (eng_result_t){.status = ev->status == ANA_INVALID ? ENG_INVALID : ENG_FAILED};
    reason = ev->message;
  }
  double rate = ev->wall_s > 0 ? (double)res.packet_hops / ev->wall_s : 0;
  char id[17];
  snprintf(id, sizeof id, "%016" PRIx64, ev->id);
  json_t *s = json_pack(
      "{s:i,s:s,s:s,s:s,s:s,s:i,s:i,s:I,s:o,s:o,s:o,s:I,s:I,s:I,s:I,s:I,s:I,s:o,s:I,s:s,s:f,s:f,"
      "s:n}",
      "experiment", 0, "flows_file", "", "experiment_id", id, "status", eng_status_name(res.status),
      "reason", reason, "flows", st->flows, "flows_done", st->done, "bytes", (json_int_t)st->bytes,
      "max_fct_ns", out_int(st->done, st->max_fct / 1000), "p99_fct_ns",
      out_int(st->done, st->p99_fct / 1000), "mean_fct_ns",
      out_int(st->done, (int64_t)(st->mean_fct / 1000)), "drops", (json_int_t)res.drops,
      "pfc_pauses", (json_int_t)res.pfc_pauses, "ecn_marks", (json_int_t)res.ecn_marks,
      "retransmits", (json_int_t)res.retransmits, "timeouts", (json_int_t)res.timeouts,
      "packet_hops", (json_int_t)res.packet_hops, "sim_end_ns",
      out_int(res.status == ENG_OK, res.end_ps / 1000), "windows", (json_int_t)res.windows,
      "backend", ev->backend == ENG_BACKEND_CUDA ? "cuda" : "cpu", "wall_s", ev->wall_s,
      "packet_hops_per_s", rate, "sweep");
  if (!s) return NULL;
  if (o->graph) json_object_set_new(s, "tasks", json_integer(o->tasks->n));
  json_object_set_new(s, "p50_slowdown", out_real(st->done, st->p50_slow));
  json_object_set_new(s, "p99_slowdown", out_real(st->done, st->p99_slow));
  json_object_set_new(s, "mean_slowdown", out_real(st->done, st->mean_slow));
  json_object_set_new(s, "cnps", json_integer(res.cnps));
  json_object_set_new(s, "retx_bytes", json_integer(res.retx_bytes));
  json_object_set_new(s, "paused_ns", json_integer(res.paused_ps / 1000));
  if (op->n) {
    json_object_set_new(s, "open_flows", json_integer(op->n));
    json_object_set_new(s, "open_bytes", json_integer((json_int_t)op->bytes));
    json_object_set_new(s, "open_goodput_gbps", json_real(op->gbps));
  }
  json_t *tiers = json_array();
  for (int tr = 0; tr < res.n_tiers; tr++) {
    const eng_tier_stats_t *ts = &res.tier[tr];
    if (!ts->ports) continue;
    json_array_append_new(tiers, json_pack("{s:i,s:i,s:I,s:f,s:f}", "tier", tr, "ports", ts->ports,
                                           "max_queue_bytes", (json_int_t)ts->max_queue,
                                           "mean_util", ts->mean_util, "max_util", ts->max_util));
  }
  json_object_set_new(s, "tiers", tiers);
  return s;
}

int drv_net_sink(const drv_sink_exp_t *ev, const eng_trace_desc_t *trace, char *err,
                 size_t errlen) {
  const drv_net_own_t *o = ev->x->own;
  if (!o) { /* not built (a file that does not read): its row says why, nothing to write */
    snprintf(err, errlen, "%s", "");
    return 0;
  }
  drv_fct_stats_t st = {0};
  out_open_t op = {0};
  drv_out_t f;
  int ran = ev->b && ev->status != ANA_INVALID;
  if (!ran) { /* nothing ran: no FCT file, no finished flow */
    for (int32_t i = 0; i < o->tasks->n; i++)
      if (o->tasks->t[i].kind == TG_FLOW) {
        st.flows++;
        if (!o->tasks->t[i].open) st.bytes += (int64_t)o->tasks->t[i].bytes;
      }
  } else {
    drv_fct_stats(o, ev->b, ev->e, &st); /* the row's statistics, in ns below */
    if (drv_sink_open(&f, ev->out_dir, ev->id, "fct", err, errlen)) return -1;
    if (out_fct(ev->b, ev->e, o, f.f)) {
      snprintf(err, errlen, "out of memory writing %s", f.path);
      drv_out_abort(&f);
      return -1;
    }
    if (drv_out_commit(&f, err, errlen)) return -1;
    if (o->graph) {
      if (drv_sink_open(&f, ev->out_dir, ev->id, "tasks", err, errlen)) return -1;
      out_tasks(ev->b, ev->e, o->tasks, f.f);
      if (drv_out_commit(&f, err, errlen)) return -1;
    }
    uint64_t open_bytes;
    double open_gbps;
    if (out_open(ev->b, ev->e, o, NULL, &open_bytes, &open_gbps)) {
      if (drv_sink_open(&f, ev->out_dir, ev->id, "open", err, errlen)) return -1;
      op.n = out_open(ev->b, ev->e, o, f.f, &op.bytes, &op.gbps);
      if (drv_out_commit(&f, err, errlen)) return -1;
    }
    if (trace && ev->x->desc.trace == trace) {
      if (drv_sink_open(&f, ev->out_dir, ev->id, "trace.csv", err, errlen)) return -1;
      out_trace(ev->b, ev->e, trace, o->topo, f.f);
      if (drv_out_commit(&f, err, errlen)) return -1;
    }
  }
  json_t *s = out_summary(ev, o, &st, &op);
  char *text = s ? json_dumps(s, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
  json_decref(s);
  int rc = -1;
  if (!text)
    snprintf(err, errlen, "out of memory");
  else if (drv_sink_open(&f, ev->out_dir, ev->id, "json", err, errlen) == 0) {
    fprintf(f.f, "%s\n", text);
    rc = drv_out_commit(&f, err, errlen);
  }
  free(text);
  return rc;
}

int drv_net_fct_copy(const char *out, uint64_t id, const char *to) {
  return drv_sink_copy("net", out, id, "fct", to);
}

/* Member k of summary s on the line: "-" when it is null (no flow finished). */
static const char *out_text(const json_t *s, const char *k, const char *fmt, char *buf,
                            size_t len) {
  const json_t *v = json_object_get(s, k);
  if (!json_is_number(v)) return "-";
  snprintf(buf, len, fmt, json_number_value(v));
  return buf;
}

int drv_net_render(const drv_net_render_t *r, FILE *summary, FILE *out, FILE *msg) {
  char path[4200];
  snprintf(path, sizeof path, "%s/%016" PRIx64 ".json", r->out, r->id);
  json_error_t je;
  json_t *s = json_load_file(path, 0, &je);
  if (!s) return drv_fail_to(msg, 2, "multiverse net: %s: %s\n", path, je.text);
  const char *status = json_string_value(json_object_get(s, "status"));
  int ok = status && strcmp(status, "ok") == 0, invalid = status && strcmp(status, "invalid") == 0;
  json_object_set_new(s, "experiment", json_integer(r->index));
  json_object_set_new(s, "flows_file", json_string(r->flows_path));
  if (r->sweep)
    json_object_set_new(s, "sweep", drv_sweep_json(r->sweep));
  else
    json_object_del(s, "sweep");
  int rc = 0;
  const char *tail = ok ? "" : ".partial";
  /* An experiment whose batch never ran (failed before its first window) has
   * no files: its line says why. */
  char fct[4200];
  drv_sink_path(fct, sizeof fct, r->out, r->id, "fct");
  if (r->outdir && !invalid && (ok || access(fct, F_OK) == 0)) {
    snprintf(path, sizeof path, "%s/fct-%d%s.txt", r->outdir, r->index, tail);
    rc = drv_sink_place("net", r->out, r->id, "fct", path, r->may_link, msg);
    if (!rc && json_object_get(s, "tasks")) {
      snprintf(path, sizeof path, "%s/tasks-%d%s.txt", r->outdir, r->index, tail);
      rc = drv_sink_place("net", r->out, r->id, "tasks", path, r->may_link, msg);
    }
    if (!rc && json_object_get(s, "open_flows")) {
      snprintf(path, sizeof path, "%s/open-%d.txt", r->outdir, r->index);
      rc = drv_sink_place("net", r->out, r->id, "open", path, r->may_link, msg);
    }
    if (!rc && r->trace) {
      snprintf(path, sizeof path, "%s/trace-%d.csv", r->outdir, r->index);
      rc = drv_sink_place("net", r->out, r->id, "trace.csv", path, r->may_link, msg);
    }
  }
  char *line = json_dumps(s, JSON_COMPACT | JSON_PRESERVE_ORDER);
  if (summary && line) fprintf(summary, "%s\n", line);
  if (r->json) {
    fprintf(out, "%s\n", line ? line : "");
  } else if (invalid) {
    fprintf(out, "exp %d %s%s%s%s: invalid: %s\n", r->index, r->flows_path, r->sweep ? " [" : "",
            r->sweep ? r->sweep : "", r->sweep ? "]" : "",
            json_string_value(json_object_get(s, "reason")));
  } else {
    const char *reason = json_string_value(json_object_get(s, "reason"));
    char mx[32], p99[32], sl[32]; /* "-" when no flow finished (null in the summary) */
    char open[128] = "";
    if (json_object_get(s, "open_flows"))
      snprintf(open, sizeof open, " open=%lld open_bytes=%lld open_goodput=%.3fGb/s",
               (long long)json_integer_value(json_object_get(s, "open_flows")),
               (long long)json_integer_value(json_object_get(s, "open_bytes")),
               json_number_value(json_object_get(s, "open_goodput_gbps")));
#define I(k) ((long long)json_integer_value(json_object_get(s, k)))
#define D(k) json_number_value(json_object_get(s, k))
    fprintf(out,
            "exp %d %s%s%s%s: %s flows=%lld bytes=%lld max_fct=%s p99_fct=%s p99_slowdown=%s "
            "drops=%lld pauses=%lld ecn=%lld cnps=%lld hops=%lld%s wall=%.3fs (%.3g hops/s)%s%s\n",
            r->index, r->flows_path, r->sweep ? " [" : "", r->sweep ? r->sweep : "",
            r->sweep ? "]" : "", status, I("flows"), I("bytes"),
            out_text(s, "max_fct_ns", "%.0fns", mx, sizeof mx),
            out_text(s, "p99_fct_ns", "%.0fns", p99, sizeof p99),
            out_text(s, "p99_slowdown", "%.2f", sl, sizeof sl), I("drops"), I("pfc_pauses"),
            I("ecn_marks"), I("cnps"), I("packet_hops"), open, D("wall_s"), D("packet_hops_per_s"),
            *reason ? ": " : "", reason);
#undef I
#undef D
  }
  free(line);
  json_decref(s);
  return rc ? rc : ok ? 0 : 1;
}
