/* trn: an imported ASTRA-sim 1.0 / SimAI layer-wise workload as a task graph, with
 * SimAI's loop on every GPU (astra-sim/workload/Workload.cc, one pass): forward
 * layer by layer (compute, then its collective, blocking); backward from the last
 * layer: input-gradient compute and collective (blocking), weight-gradient compute
 * and collective (not blocking: only the iteration's end waits for it); each
 * collective's completion is followed by its layer's update delay; under
 * HYBRID_TRANSFORMER_FWD_IN_BCKWD a layer that initiates a checkpoint recomputes the
 * forward from the checkpoint layer below it first. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "train/trn_gen_int.h"

typedef struct wb_t {
  trn_gb_t *b;
  const trn_wl_t *wl;
  int64_t tp, pp, dp, ep;
  int32_t *wait;       /* (gpus) done join the next compute waits for, -1 */
  int64_t *delay;      /* (gpus) ps after it (the update delay) */
  int32_t *after;      /* (gpus) scratch: each member's compute task */
  int32_t *mem, *done; /* (gpus) scratch */
} wb_t;

/* Members of group kind `grp` starting from GPU g's group: fills mem, returns the
 * size; only the group's first member (lowest GPU) returns > 0, so each group is
 * visited once when g runs over all GPUs. */
static int32_t group(const wb_t *w, int grp, int32_t g, int32_t *mem) {
  int64_t t = g % w->tp, d = g / w->tp % w->dp, p = g / (w->tp * w->dp), n = 0;
  int64_t base = p * w->tp * w->dp;
  switch (grp) {
  case TRN_WL_TP:
    if (t) return 0;
    for (int64_t i = 0; i < w->tp; i++)
      mem[n++] = (int32_t)(g + i);
    break;
  case TRN_WL_DP:
    if (d) return 0;
    for (int64_t i = 0; i < w->dp; i++)
      mem[n++] = (int32_t)(base + t + w->tp * i);
    break;
  case TRN_WL_EP:
    if (d % w->ep) return 0;
    for (int64_t i = 0; i < w->ep; i++)
      mem[n++] = (int32_t)(base + t + w->tp * (d + i));
    break;
  default: /* DP_EP: data-parallel indices equal modulo ep */
    if (d >= w->ep) return 0;
    for (int64_t i = d; i < w->dp; i += w->ep)
      mem[n++] = (int32_t)(base + t + w->tp * i);
  }
  return (int32_t)n;
}

static int cat_of(int grp) {
  return grp == TRN_WL_TP ? TRN_CAT_TP : grp == TRN_WL_EP ? TRN_CAT_EP : TRN_CAT_DP;
}

/* One phase of layer l on every GPU: compute, then its collective (blocking: the
 * next compute waits for it plus the update delay; else a join after it and the
 * delay, for the iteration's end). */
static int phase(wb_t *w, int32_t l, const trn_wl_phase_t *ph, int blocking, int what) {
  trn_gb_t *b = w->b;
  const trn_wl_layer_t *L = &w->wl->layers[l];
  trn_meta_t m = {TRN_CAT_COMPUTE, TRN_W_LAYER, -1, what, -1};
  m.aux = tg_label(&b->o->g, L->name ? L->name : "layer");
  if (m.aux < 0) return -1;
  for (int32_t g = 0; g < b->gpus; g++) {
    int32_t c = trn_gb_task(b, TG_COMPUTE, g, ph->compute_ps, 1, m);
    if (c < 0 || trn_gb_edge(b, c, w->wait[g], TG_ON_END)) return -1;
    if (w->wait[g] >= 0) b->o->g.t[c].delay = w->delay[g];
    w->wait[g] = -1;
    w->after[g] = c;
  }
  if (ph->comm == TRN_WL_NONE || ph->comm == TRN_WL_BROADCAST) return 0; /* SimAI skips it */
  int steps = ph->comm == TRN_WL_ALLREDUCEALLTOALL ? 2 : 1;
  for (int s = 0; s < steps; s++) {
    coll_kind_t kind = ph->comm == TRN_WL_ALLREDUCE || (steps == 2 && s == 0) ? COLL_ALLREDUCE
                       : ph->comm == TRN_WL_ALLGATHER                         ? COLL_ALLGATHER
                       : ph->comm == TRN_WL_REDUCESCATTER                     ? COLL_REDUCESCATTER
                                                                              : COLL_ALLTOALL;
    trn_meta_t cm = {0, (uint8_t)what, -1, -1, l};
    for (int32_t g = 0; g < b->gpus; g++) {
      int32_t n = group(w, ph->group, g, w->mem);
      if (n < 2) continue;
      for (int32_t i = 0; i < n; i++)
        w->done[i] = w->after[w->mem[i]];
      /* a collective of fewer bytes than members (AICB writes 1-byte ones) moves a
       * byte per member */
      uint64_t bytes = ph->bytes < (uint64_t)n ? (uint64_t)n : ph->bytes;
      if (trn_gb_coll(b, kind, bytes, n, w->mem, w->done, w->done + n, cat_of(ph->group), cm))
        return -1;
      for (int32_t i = 0; i < n; i++) {
        w->after[w->mem[i]] = w->done[n + i];
        w->wait[w->mem[i]] = -2; /* marked: a collective ran */
      }
    }
  }
  for (int32_t g = 0; g < b->gpus; g++) {
    if (w->wait[g] != -2) continue;
    if (blocking) {
      w->wait[g] = w->after[g];
      w->delay[g] = L->update_ps;
      continue;
    }
    w->wait[g] = -1;
    trn_meta_t jm = {TRN_CAT_SYNC, (uint8_t)what, -1, -1, l};
    int32_t j = trn_gb_task(b, TG_JOIN, g, 0, 0, jm);
    if (j < 0 || trn_gb_edge(b, j, w->after[g], TG_ON_END)) return -1;
    b->o->g.t[j].delay = L->update_ps;
  }
  return 0;
}

static int loop(wb_t *w) {
  const trn_wl_t *wl = w->wl;
  int32_t n = wl->n_layers;
  int fib = wl->policy == TRN_WL_HYBRID_TRANSFORMER_FWD_IN_BCKWD;
  for (int32_t l = 0; l < n; l++)
    if (phase(w, l, &wl->layers[l].fwd, 1, TRN_W_FWD)) return -1;
  for (int32_t l = n - 1; l >= 0; l--) {
    if (fib && wl->layers[l].initiates) { /* forward again from the checkpoint below */
      int32_t c = l;
      while (c > 0 && !wl->layers[c].checkpoint)
        c--;
      for (int32_t k = c; k < l; k++)
        if (phase(w, k, &wl->layers[k].fwd, 1, TRN_W_FWD)) return -1;
    }
    if (phase(w, l, &wl->layers[l].ig, 1, TRN_W_BWD) ||
        phase(w, l, &wl->layers[l].wg, 0, TRN_W_RED))
      return -1;
  }
  return 0;
}

int trn_gen_wl(const trn_gen_wl_desc_t *d, trn_graph_t *out, char *err, size_t errlen) {
  const trn_wl_t *wl = d->wl;
  trn_gen_desc_t gd = {.model = d->model, .sync_ps = d->sync_ps, .channels = d->channels};
  trn_gb_t b = {.o = out, .d = &gd, .err = err, .errlen = errlen};
  wb_t w = {.b = &b, .wl = wl};
  int rc = -1;
  memset(out, 0, sizeof *out);
  w.tp = wl->tp > 0 ? wl->tp : wl->policy == TRN_WL_MODEL ? d->gpus : 1;
  w.pp = wl->pp > 0 ? wl->pp : 1;
  w.ep = wl->ep > 0 ? wl->ep : 1;
  if (d->gpus < 1 || d->gpus > INT32_MAX / 4 || d->gpus % (w.tp * w.pp)) {
    snprintf(err, errlen,
             "%lld GPUs are not a multiple of model_parallel_NPU_group x pp = %lld x %lld",
             (long long)d->gpus, (long long)w.tp, (long long)w.pp);
    return -1;
  }
  w.dp = d->gpus / (w.tp * w.pp);
  if (w.dp % w.ep) {
    snprintf(err, errlen, "ep %lld does not divide the data-parallel size %lld", (long long)w.ep,
             (long long)w.dp);
    return -1;
  }
  b.gpus = (int32_t)d->gpus;
  b.gps = d->gpus_per_server;
  out->n_gpus = b.gpus;
  b.cl = (coll_cluster_t){.gpus_per_server = (int32_t)d->gpus_per_server,
                          .nics_per_server = (int32_t)d->nics_per_server,
                          .gpu = d->gpu,
                          .model = d->model,
                          .sync_ps = d->sync_ps};
  b.host = malloc((size_t)b.gpus * sizeof *b.host);
  w.wait = malloc(5 * (size_t)b.gpus * sizeof *w.wait);
  w.delay = malloc((size_t)b.gpus * sizeof *w.delay);
  out->gpu_stage = malloc((size_t)b.gpus * sizeof *out->gpu_stage);
  if (!b.host || !w.wait || !w.delay || !out->gpu_stage) {
    snprintf(err, errlen, "out of memory");
    goto done;
  }
  w.after = w.wait + b.gpus;
  w.mem = w.after + b.gpus;
  w.done = w.mem + b.gpus; /* 2 x gpus */
  for (int32_t g = 0; g < b.gpus; g++) {
    int64_t server = g / d->gpus_per_server, local = g % d->gpus_per_server;
    b.host[g] =
        (int32_t)(server * d->nics_per_server + local * d->nics_per_server / d->gpus_per_server);
    w.wait[g] = -1;
    out->gpu_stage[g] = (int32_t)(g / (w.tp * w.dp));
  }
  if (loop(&w)) goto done;
  if (trn_gb_sort_spans(&b)) goto done;
  tg_assign_ports(&out->g);
  rc = 0;
done:
  free(b.host);
  free(w.wait);
  free(w.delay);
  if (rc) trn_graph_free(out);
  return rc;
}
