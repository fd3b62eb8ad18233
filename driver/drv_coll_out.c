/* Results and output of `multiverse collective`: per experiment its time with
 * nccl-tests' algbw and busbw and the network's counters (the kind's row), the
 * sink that keeps them per experiment id in RUNDIR/out, and the table (or JSON
 * lines) printed from those at the end. */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base_units.h"
#include "driver/drv_coll.h"

int64_t drv_coll_time(const drv_coll_own_t *o, const eng_batch_t *b, int32_t e) {
  eng_result_t res;
  eng_exp_result(b, e, &res);
  if (res.status != ENG_OK) return -1;
  int64_t end = 0;
  for (int32_t i = 0; i < o->c.gpus; i++) {
    eng_task_times_t t;
    eng_task_times(b, e, o->done[i], &t);
    if (t.end > end) end = t.end;
  }
  return end;
}

static int32_t coll_flows(const tg_t *g) {
  int32_t n = 0;
  for (int32_t i = 0; i < g->n; i++)
    n += g->t[i].kind == TG_FLOW;
  return n;
}

void drv_coll_results(const drv_coll_own_t *o, const eng_batch_t *b, int32_t e, ana_value_t *v) {
  eng_result_t r;
  eng_exp_result(b, e, &r);
  int64_t t = drv_coll_time(o, b, e);
  double alg =
      t > 0 ? (double)o->c.bytes / ((double)t / BASE_PS_PER_US) / BASE_NS_PER_US : 0; /* GB/s */
  v[DRV_COLL_time].d = t >= 0 ? (double)t * BASE_S_PER_PS : 0;
  v[DRV_COLL_algbw].d = alg;
  v[DRV_COLL_busbw].d = alg * coll_busbw_factor((coll_kind_t)o->c.op, o->c.gpus);
  v[DRV_COLL_flows].i = coll_flows(&o->g);
  drv_counter_values(b, e, &v[DRV_COLL_drops]);
  v[DRV_COLL_paused_time].d = (double)r.paused_ps * BASE_S_PER_PS;
  v[DRV_COLL_windows].i = r.windows;
}

int drv_coll_sink(const drv_sink_exp_t *ev, char *err, size_t errlen) {
  const drv_coll_own_t *o = ev->x->own;
  eng_result_t res = {.status = ENG_FAILED};
  const char *reason = ev->message;
  if (ev->b) {
    eng_exp_result(ev->b, ev->e, &res);
    reason = res.status == ENG_INVALID ? res.message : eng_fail_text(res.fail);
  } else if (ev->status == ANA_INVALID) {
    res.status = ENG_INVALID;
  }
  json_t *s = json_pack(
      "{s:I,s:s,s:s,s:i,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:s,s:f,s:i}", "time_ps",
      (json_int_t)(o && ev->b ? drv_coll_time(o, ev->b, ev->e) : -1), "status",
      eng_status_name(res.status), "reason", reason ? reason : "", "flows",
      o ? coll_flows(&o->g) : 0, "drops", (json_int_t)res.drops, "pfc_pauses",
      (json_int_t)res.pfc_pauses, "ecn_marks", (json_int_t)res.ecn_marks, "cnps",
      (json_int_t)res.cnps, "retransmits", (json_int_t)res.retransmits, "timeouts",
      (json_int_t)res.timeouts, "retx_bytes", (json_int_t)res.retx_bytes, "paused_ns",
      (json_int_t)(res.paused_ps / 1000), "packet_hops", (json_int_t)res.packet_hops, "windows",
      (json_int_t)res.windows, "backend", ev->backend == ENG_BACKEND_CUDA ? "cuda" : "cpu",
      "wall_s", ev->wall_s, "batch", ev->batch);
  char *text = s ? json_dumps(s, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
  json_decref(s);
  if (!text) {
    snprintf(err, errlen, "out of memory");
    return -1;
  }
  int rc = drv_sink_text(ev, "json", text, err, errlen);
  free(text);
  return rc;
}

/* The intra-server collectives the phases use (docs/collectives.md,
 * collectives as task graphs); their count. */
static int intra_kinds(const drv_coll_args_t *a, coll_kind_t *k) {
  if (a->per < 2 || a->kind == COLL_SENDRECV) return 0;
  if (a->servers > 1 && a->kind == COLL_ALLREDUCE) {
    k[0] = COLL_REDUCESCATTER;
    k[1] = COLL_ALLGATHER;
    return 2;
  }
  k[0] = (coll_kind_t)a->kind;
  return 1;
}

static void print_header(const drv_coll_report_t *r) {
  const drv_coll_args_t *a = r->a;
  coll_kind_t k[2];
  int nk = intra_kinds(a, k);
  printf("# %s of %d GPUs (%s): %d server%s of %d GPUs and %d NICs", coll_name(a->kind), a->gpus,
         a->gpu, a->servers, a->servers > 1 ? "s" : "", a->gps, a->nics);
  if (a->topo) /* its links set the rates */
    printf("; topology %s (its links' rates)\n", a->topo);
  else
    printf(" at %g Gb/s; topology (default) %s\n", a->nic_gbps, a->topo_json);
  printf("# intra-server model:%s", nk ? "" : " not used");
  for (int i = 0; i < nk; i++) {
    coll_fit_t f;
    char err[512];
    int got = coll_model_get(r->model, a->gpu, k[i], a->per, &f, err, sizeof err);
    printf("%s %s among %d GPUs %s", i ? "," : "", coll_name(k[i]), a->per,
           got == 0 ? "measured" : "derived");
  }
  printf("\n#%14s %12s %11s %11s  %-9s %8s %8s %8s %8s\n", "size", "time_us", "algbw_GBps",
         "busbw_GBps", "status", "drops", "pauses", "ecn", "retx");
}

#define I(k) json_integer_value(json_object_get(s, k))

static void print_json(const drv_coll_report_t *r, int64_t e, const json_t *s, const char *label) {
  const drv_coll_args_t *a = r->a;
  uint64_t bytes = a->sizes[e % a->n_sizes];
  int64_t t = I("time_ps");
  double us = (double)t / BASE_PS_PER_US, alg = t > 0 ? (double)bytes / us / BASE_NS_PER_US : 0;
  char id[17];
  snprintf(id, sizeof id, "%016" PRIx64, r->job->id[e]);
  json_t *o =
      json_pack("{s:I,s:s,s:I,s:i,s:s,s:i,s:i,s:i}", "experiment", (json_int_t)e, "op",
                coll_name(a->kind), "bytes", (json_int_t)bytes, "gpus", a->gpus, "gpu", a->gpu,
                "servers", a->servers, "gpus_per_server", a->gps, "nics_per_server", a->nics);
  if (!o) return;
  json_object_set_new(o, "time_us", t >= 0 ? json_real(us) : json_null());
  json_object_set_new(o, "algbw_GBps", t >= 0 ? json_real(alg) : json_null());
  json_object_set_new(o, "busbw_GBps",
                      t >= 0 ? json_real(alg * coll_busbw_factor(a->kind, a->gpus)) : json_null());
  json_object_set(o, "status", json_object_get(s, "status"));
  json_object_set(o, "reason", json_object_get(s, "reason"));
  if (*label) json_object_set_new(o, "sweep", drv_sweep_json(label));
  json_object_set_new(o, "experiment_id", json_string(id));
  coll_kind_t k[2];
  json_t *im = json_array();
  for (int i = 0, nk = intra_kinds(a, k); i < nk; i++) {
    coll_fit_t f;
    char err[512];
    int got = coll_model_get(r->model, a->gpu, k[i], a->per, &f, err, sizeof err);
    json_array_append_new(im, json_pack("{s:s,s:i,s:s}", "collective", coll_name(k[i]), "gpus",
                                        a->per, "curve", got == 0 ? "measured" : "derived"));
  }
  json_object_set_new(o, "intra_model", im);
  static const char *const counters[] = {"flows",      "drops",      "pfc_pauses", "ecn_marks",
                                         "cnps",       "retransmits", "timeouts",  "retx_bytes",
                                         "paused_ns",  "packet_hops", "windows",   "backend",
                                         "wall_s"};
  for (size_t i = 0; i < sizeof counters / sizeof *counters; i++)
    json_object_set(o, counters[i], json_object_get(s, counters[i]));
  char *line = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15));
  json_decref(o);
  if (line) printf("%s\n", line);
  free(line);
}

int drv_coll_print(const drv_coll_report_t *r) {
  const drv_coll_args_t *a = r->a;
  int rc = 0, batches = 0, seen[4096] = {0};
  double wall = 0;
  if (!a->json) print_header(r);
  for (int64_t e = 0; e < r->job->count; e++) {
    char path[4300];
    snprintf(path, sizeof path, "%s/%016" PRIx64 ".json", r->out, r->job->id[r->job->first[e]]);
    json_t *s = json_load_file(path, 0, NULL);
    if (!s) return drv_fail(2, "multiverse collective: cannot read %s\n", path);
    char *label = drv_sweep_label(a->sweeps, a->n_sweeps, (long)(e / a->n_sizes));
    const char *status = json_string_value(json_object_get(s, "status"));
    int64_t batch = I("batch");
    if (batch >= 0 && batch < 4096 && !seen[batch]) { /* each batch's run once */
      seen[batch] = 1;
      batches++;
      wall += json_number_value(json_object_get(s, "wall_s"));
    }
    if (!status || strcmp(status, "ok") != 0) rc = 1;
    if (a->json) {
      print_json(r, e, s, label ? label : "");
    } else {
      if (label && *label && e % a->n_sizes == 0) printf("# %s\n", label);
      uint64_t bytes = a->sizes[e % a->n_sizes];
      int64_t t = I("time_ps");
      if (t < 0) {
        printf("%15" PRIu64 " %12s %11s %11s  %-9s %s\n", bytes, "-", "-", "-", status,
               json_string_value(json_object_get(s, "reason")));
      } else {
        double us = (double)t / BASE_PS_PER_US, alg = (double)bytes / us / BASE_NS_PER_US;
        printf("%15" PRIu64 " %12.3f %11.2f %11.2f  %-9s %8lld %8lld %8lld %8lld\n", bytes, us,
               alg, alg * coll_busbw_factor(a->kind, a->gpus), "ok", (long long)I("drops"),
               (long long)I("pfc_pauses"), (long long)I("ecn_marks"), (long long)I("retransmits"));
      }
    }
    free(label);
    json_decref(s);
  }
  if (!a->json) {
    if (batches == 1)
      printf("# %lld experiments in one batch, %.3f s\n", (long long)r->job->count, wall);
    else
      printf("# %lld experiments in %d batches, %.3f s\n", (long long)r->job->count, batches,
             wall);
  }
  return rc;
}
