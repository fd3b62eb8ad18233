/* Output of `multiverse collective`: per size (and variant) the time of one
 * collective with nccl-tests' algbw and busbw, as a table or JSON lines. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "driver/drv_coll.h"

/* The intra-server collectives the phases use (docs/collectives.md, collectives as task
 * graphs); their count. */
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

/* The collective's time: from 0 to the last member's done join, ps; -1 if
 * the experiment did not end ok. */
static int64_t coll_time(const drv_coll_report_t *r, int e, eng_status_t st) {
  if (st != ENG_OK) return -1;
  int64_t end = 0;
  for (int32_t i = 0; i < r->a->gpus; i++) {
    eng_task_times_t t;
    eng_task_times(r->b, e, r->done[(size_t)e * (size_t)r->a->gpus + (size_t)i], &t);
    if (t.end > end) end = t.end;
  }
  return end;
}

static void print_header(const drv_coll_report_t *r) {
  const drv_coll_args_t *a = r->a;
  coll_kind_t k[2];
  int nk = intra_kinds(a, k);
  printf("# %s of %d GPUs (%s): %d server%s of %d GPUs and %d NICs at %g Gb/s; topology %s%s\n",
         coll_name(a->kind), a->gpus, a->gpu, a->servers, a->servers > 1 ? "s" : "", a->gps,
         a->nics, a->nic_gbps, a->topo ? a->topo : "(default) ", a->topo ? "" : a->topo_json);
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

static void print_json(const drv_coll_report_t *r, int e, const eng_result_t *res, int64_t t) {
  const drv_coll_args_t *a = r->a;
  uint64_t bytes = a->sizes[e % a->n_sizes];
  double us = (double)t / 1e6, alg = t > 0 ? (double)bytes / us / 1e3 : 0;
  char id[17];
  snprintf(id, sizeof id, "%016" PRIx64, r->ids[e]);
  int32_t flows = 0;
  for (int32_t i = 0; i < r->tasks[e].n; i++)
    flows += r->tasks[e].t[i].kind == TG_FLOW;
  json_t *o =
      json_pack("{s:i,s:s,s:I,s:i,s:s,s:i,s:i,s:i}", "experiment", e, "op", coll_name(a->kind),
                "bytes", (json_int_t)bytes, "gpus", a->gpus, "gpu", a->gpu, "servers", a->servers,
                "gpus_per_server", a->gps, "nics_per_server", a->nics);
  if (!o) return;
  json_object_set_new(o, "time_us", t >= 0 ? json_real(us) : json_null());
  json_object_set_new(o, "algbw_GBps", t >= 0 ? json_real(alg) : json_null());
  json_object_set_new(o, "busbw_GBps",
                      t >= 0 ? json_real(alg * coll_busbw_factor(a->kind, a->gpus)) : json_null());
  json_object_set_new(o, "status", json_string(eng_status_name(res->status)));
  json_object_set_new(
      o, "reason",
      json_string(res->status == ENG_INVALID ? res->message : eng_fail_text(res->fail)));
  const char *label = r->labels[e / a->n_sizes];
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
  json_object_set_new(o, "flows", json_integer(flows));
  json_object_set_new(o, "drops", json_integer(res->drops));
  json_object_set_new(o, "pfc_pauses", json_integer(res->pfc_pauses));
  json_object_set_new(o, "ecn_marks", json_integer(res->ecn_marks));
  json_object_set_new(o, "cnps", json_integer(res->cnps));
  json_object_set_new(o, "retransmits", json_integer(res->retransmits));
  json_object_set_new(o, "timeouts", json_integer(res->timeouts));
  json_object_set_new(o, "retx_bytes", json_integer(res->retx_bytes));
  json_object_set_new(o, "paused_ns", json_integer(res->paused_ps / 1000));
  json_object_set_new(o, "packet_hops", json_integer(res->packet_hops));
  json_object_set_new(o, "windows", json_integer(res->windows));
  json_object_set_new(o, "backend", json_string(a->backend == ENG_BACKEND_CUDA ? "cuda" : "cpu"));
  json_object_set_new(o, "wall_s", json_real(r->wall_s));
  char *line = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15));
  json_decref(o);
  if (line) printf("%s\n", line);
  free(line);
}

int drv_coll_print(const drv_coll_report_t *r) {
  const drv_coll_args_t *a = r->a;
  int rc = 0, n_exps = r->n_combo * a->n_sizes;
  if (!a->json) print_header(r);
  for (int e = 0; e < n_exps; e++) {
    eng_result_t res;
    eng_exp_result(r->b, e, &res);
    int64_t t = coll_time(r, e, res.status);
    if (res.status != ENG_OK) rc = 1;
    if (a->json) {
      print_json(r, e, &res, t);
      continue;
    }
    const char *label = r->labels[e / a->n_sizes];
    if (*label && e % a->n_sizes == 0) printf("# %s\n", label);
    uint64_t bytes = a->sizes[e % a->n_sizes];
    if (t < 0) {
      printf("%15" PRIu64 " %12s %11s %11s  %-9s %s\n", bytes, "-", "-", "-",
             eng_status_name(res.status),
             res.status == ENG_INVALID ? res.message : eng_fail_text(res.fail));
      continue;
    }
    double us = (double)t / 1e6, alg = (double)bytes / us / 1e3;
    printf("%15" PRIu64 " %12.3f %11.2f %11.2f  %-9s %8" PRId64 " %8" PRId64 " %8" PRId64
           " %8" PRId64 "\n",
           bytes, us, alg, alg * coll_busbw_factor(a->kind, a->gpus), "ok", res.drops,
           res.pfc_pauses, res.ecn_marks, res.retransmits);
  }
  if (!a->json) printf("# %d experiments in one batch, %.3f s\n", n_exps, r->wall_s);
  return rc;
}
