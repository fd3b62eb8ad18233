/* trn: an imported ASTRA-sim 1.0 / SimAI layer-wise workload as a task graph: on every
 * GPU the loop its parallelism keyword runs in astra-sim/workload/Workload.cc (one
 * pass; SimAI's copy differs only in its transformer loops), each collective among the
 * GPUs its policy involves: ASTRA-sim 1.0 decodes a policy into dimensions of its
 * network (`dims`), SimAI into TP/DP/EP groups. docs/training.md, Imported workloads,
 * gives every loop and group rule. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "train/trn_gen_int.h"

enum { PH_FWD = 0, PH_IG = 1, PH_WG = 2 };
/* ASTRA-sim 1.0's policy "All" (DLRM's layer 0): every dimension. */
#define TRN_WL_ALL TRN_WL_POLICY_COUNT

typedef struct wb_t {
  trn_gb_t *b;
  const trn_wl_t *wl;
  const trn_gen_wl_desc_t *d;
  int simai;              /* SimAI's loops and groups, else ASTRA-sim 1.0's */
  int64_t tp, pp, dp, ep; /* SimAI's groups (and the transformer policies') */
  int32_t n_dims;         /* ASTRA-sim 1.0's dimensions */
  int64_t dims[TRN_WL_MAX_DIMS];
  int32_t *cur;                /* (gpus) the task the GPU's next step waits for, -1 */
  int32_t *pend;               /* (gpus) a layer's input-gradient collective, finished, -1 */
  int32_t *fwd0, *ig0;         /* (gpus) DLRM: layer 0's forward and input-gradient ones */
  int32_t *mem, *after, *done; /* (gpus) scratch */
} wb_t;

/* ---- groups ---- */

/* ASTRA-sim 1.0's involved dimensions of a policy's phase (decode_involved_dimensions)
 * as a mask of dims; -1: the transformer's TP/DP groups instead. */
static int32_t dims_of(const wb_t *w, int policy, int ph) {
  int32_t all = (int32_t)((1u << w->n_dims) - 1);
  switch (policy) {
  case TRN_WL_DATA:
  case TRN_WL_HYBRID_DLRM:
  case TRN_WL_HYBRID_DLRM_ENHANCED:
  case TRN_WL_MICRO:
    return ph == PH_WG ? all : 0;
  case TRN_WL_MODEL:
  case TRN_WL_DISTRIBUTED_INFERENCE:
    return ph == PH_WG ? 0 : all;
  case TRN_WL_HYBRID_MODEL_DATA: /* data: dimension 0; model: the others */
    return ph == PH_WG ? 1 : all & ~1;
  case TRN_WL_HYBRID_DATA_MODEL: /* model: dimension 0; data: the others */
    return ph == PH_WG ? all & ~1 : 1;
  case TRN_WL_ALL:
    return all;
  default: /* HYBRID_TRANSFORMER(_FWD_IN_BCKWD): model parallelism of TP consecutive GPUs */
    return -1;
  }
}

/* The members of GPU g's group of kind `grp` (SimAI's TP/DP/EP/DP_EP) into mem; only
 * the group's first member (lowest GPU) returns its size, others 0. */
static int32_t simai_group(const wb_t *w, int grp, int32_t g, int32_t *mem) {
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

/* The GPUs that differ from g only in the dimensions of `mask` (dimension 0 varies
 * fastest); only the first (all of those coordinates 0) returns its size. */
static int32_t dims_group(const wb_t *w, int32_t mask, int32_t g, int32_t *mem) {
  int64_t stride[TRN_WL_MAX_DIMS], s = 1;
  for (int i = 0; i < w->n_dims; i++) {
    stride[i] = s;
    if ((mask >> i & 1) && g / s % w->dims[i]) return 0;
    s *= w->dims[i];
  }
  int32_t n = 1;
  mem[0] = g;
  for (int i = 0; i < w->n_dims; i++) {
    if (!(mask >> i & 1)) continue;
    int32_t m = n;
    for (int64_t c = 1; c < w->dims[i]; c++)
      for (int32_t k = 0; k < m; k++)
        mem[n++] = (int32_t)(mem[k] + c * stride[i]);
  }
  return n;
}

/* The group of GPU g for a phase of layer l (SimAI's rule, or ASTRA-sim 1.0's for the
 * layer's policy; DLRM's layer 0 under "All"). */
static int32_t group(const wb_t *w, int32_t l, int ph, const trn_wl_phase_t *p, int32_t g,
                     int32_t *mem) {
  int policy = w->wl->layers[l].policy;
  if (!w->simai && l == 0 &&
      (policy == TRN_WL_HYBRID_DLRM || policy == TRN_WL_HYBRID_DLRM_ENHANCED))
    policy = TRN_WL_ALL;
  int32_t mask = w->simai ? -1 : dims_of(w, policy, ph);
  if (mask >= 0) return dims_group(w, mask, g, mem);
  return simai_group(w, p->group, g, mem);
}

static int cat_of(const wb_t *w, const trn_wl_phase_t *p, int ph) {
  if (!w->simai)
    return p->comm == TRN_WL_ALLTOALL ? TRN_CAT_EP : ph == PH_WG ? TRN_CAT_DP : TRN_CAT_TP;
  return p->group == TRN_WL_TP ? TRN_CAT_TP : p->group == TRN_WL_EP ? TRN_CAT_EP : TRN_CAT_DP;
}

/* ---- SimAI's pipeline bubble ---- */

/* Records an interval of GPU 0's pass for SimAI's bubble (not the embedding's). */
static int prebubble(wb_t *w, int32_t l, int32_t from, int32_t to) {
  trn_graph_t *o = w->b->o;
  const char *name = w->wl->layers[l].name;
  if (!o->bubble_den || (name && strcmp(name, "embedding_layer") == 0)) return 0;
  if (o->n_prebubble == o->cap_prebubble) {
    int32_t cap = o->cap_prebubble ? 2 * o->cap_prebubble : 256;
    int32_t *x = realloc(o->prebubble, 2 * (size_t)cap * sizeof *x);
    if (!x) {
      snprintf(w->b->err, w->b->errlen, "out of memory");
      return -1;
    }
    o->prebubble = x;
    o->cap_prebubble = cap;
  }
  o->prebubble[2 * o->n_prebubble] = from;
  o->prebubble[2 * o->n_prebubble++ + 1] = to;
  return 0;
}

/* ---- steps of the loop, on every GPU ---- */

static const trn_wl_phase_t *phase_of(const trn_wl_layer_t *L, int ph) {
  return ph == PH_FWD ? &L->fwd : ph == PH_IG ? &L->ig : &L->wg;
}

/* The compute of a phase of layer l, after the GPU's last step. */
static int compute(wb_t *w, int32_t l, int ph) {
  trn_gb_t *b = w->b;
  const trn_wl_layer_t *L = &w->wl->layers[l];
  trn_meta_t m = {TRN_CAT_COMPUTE, TRN_W_LAYER, -1, ph == PH_FWD ? TRN_W_FWD : TRN_W_BWD, -1};
  m.aux = tg_label(&b->o->g, L->name ? L->name : "layer");
  if (m.aux < 0) return -1;
  for (int32_t g = 0; g < b->gpus; g++) {
    int32_t c = trn_gb_task(b, TG_COMPUTE, g, phase_of(L, ph)->compute_ps, 1, m);
    if (c < 0 || trn_gb_edge(b, c, w->cur[g], TG_ON_END)) return -1;
    if (g == 0 && prebubble(w, l, c, c)) return -1;
    w->cur[g] = c;
  }
  return 0;
}

/* A join of task t that ends `delay` ps later (the layer's update delay). */
static int32_t finished(wb_t *w, int32_t g, int32_t t, int64_t delay, int what, int32_t l) {
  trn_meta_t jm = {TRN_CAT_SYNC, (uint8_t)what, -1, -1, l};
  int32_t j = trn_gb_task(w->b, TG_JOIN, g, 0, 0, jm);
  if (j < 0 || trn_gb_edge(w->b, j, t, TG_ON_END)) return -1;
  w->b->o->g.t[j].delay = delay;
  return j;
}

/* The collective of a phase of layer l, after the GPU's last step. Blocking: the GPU
 * goes on once it and the update delay are done; else fin[g] (NULL: none) receives
 * that instant's join (-1 where the GPU takes no part). `bytes` overrides the file's
 * size when > 0. */
static int issue(wb_t *w, int32_t l, int ph, int blocking, int32_t *fin, uint64_t bytes) {
  trn_gb_t *b = w->b;
  const trn_wl_layer_t *L = &w->wl->layers[l];
  const trn_wl_phase_t *p = phase_of(L, ph);
  int what = ph == PH_FWD ? TRN_W_FWD : ph == PH_IG ? TRN_W_BWD : TRN_W_RED;
  for (int32_t g = 0; fin && g < b->gpus; g++)
    fin[g] = -1;
  if (p->comm == TRN_WL_NONE || p->comm == TRN_WL_BROADCAST) return 0; /* SimAI skips it */
  int steps = p->comm == TRN_WL_ALLREDUCEALLTOALL ? 2 : 1;
  for (int32_t g = 0; g < b->gpus; g++) {
    int32_t n = group(w, l, ph, p, g, w->mem);
    if (n < 2) continue;
    for (int32_t i = 0; i < n; i++)
      w->after[i] = w->cur[w->mem[i]];
    for (int s = 0; s < steps; s++) {
      coll_kind_t kind = p->comm == TRN_WL_ALLREDUCE || (steps == 2 && s == 0) ? COLL_ALLREDUCE
                         : p->comm == TRN_WL_ALLGATHER                         ? COLL_ALLGATHER
                         : p->comm == TRN_WL_REDUCESCATTER                     ? COLL_REDUCESCATTER
                                                                               : COLL_ALLTOALL;
      uint64_t sz = bytes ? bytes : p->bytes;
      /* ASTRA-sim 1.0's all-gather size is each GPU's part (its ring ends with n times
       * it); SimAI's is the gathered output, nccl-tests' size */
      if (!w->simai && kind == COLL_ALLGATHER) sz *= (uint64_t)n;
      /* a collective of fewer bytes than members (AICB writes 1-byte ones) moves a
       * byte per member */
      if (sz < (uint64_t)n) sz = (uint64_t)n;
      trn_meta_t cm = {0, (uint8_t)what, -1, -1, l};
      if (trn_gb_coll(b, kind, sz, n, w->mem, w->after, w->done, cat_of(w, p, ph), cm)) return -1;
      for (int32_t i = 0; i < n; i++)
        w->after[i] = w->done[i];
    }
    for (int32_t i = 0; i < n; i++) {
      int32_t m = w->mem[i], j = finished(w, m, w->after[i], L->update_ps, what, l);
      if (j < 0) return -1;
      /* SimAI's pre-bubble counts GPU 0's waits for blocking forward and input-gradient
       * collectives, from the issue to the end of the update delay */
      if (blocking && m == 0 && ph != PH_WG && prebubble(w, l, w->cur[m], j)) return -1;
      if (blocking)
        w->cur[m] = j;
      else if (fin)
        fin[m] = j;
    }
  }
  return 0;
}

/* The GPU's next step also waits for fin[g]. */
static int wait_for(wb_t *w, const int32_t *fin) {
  for (int32_t g = 0; g < w->b->gpus; g++)
    if (trn_gb_join2(w->b, g, w->cur[g], fin[g], &w->cur[g])) return -1;
  return 0;
}

/* ---- the loops ---- */

/* SimAI's transformer forward pass bumps a collective below 4096 bytes to 4096. */
static uint64_t simai_fwd_bytes(const wb_t *w, const trn_wl_phase_t *p) {
  return w->simai && w->wl->policy == TRN_WL_HYBRID_TRANSFORMER_FWD_IN_BCKWD && p->bytes > 0 &&
                 p->bytes < 4096
             ? 4096
             : 0;
}

/* Every layer's forward compute, then (unless `comm` is 0) its collective, blocking. */
static int forward(wb_t *w, int comm) {
  for (int32_t l = 0; l < w->wl->n_layers; l++)
    if (compute(w, l, PH_FWD) ||
        (comm && issue(w, l, PH_FWD, 1, NULL, simai_fwd_bytes(w, &w->wl->layers[l].fwd))))
      return -1;
  return 0;
}

/* DATA: forward compute only; backward weight gradient (its collective not blocking)
 * then input gradient, layer by layer, without layer 0's input gradient. */
static int loop_data(wb_t *w) {
  if (forward(w, 0)) return -1;
  for (int32_t l = w->wl->n_layers - 1; l >= 0; l--)
    if (compute(w, l, PH_WG) || issue(w, l, PH_WG, 0, NULL, 0) || (l > 0 && compute(w, l, PH_IG)))
      return -1;
  return 0;
}

/* MODEL, HYBRID_DATA_MODEL, HYBRID_MODEL_DATA, HYBRID_CUSTOMIZED and the transformers:
 * forward with blocking collectives; backward per layer its input-gradient compute and
 * collective (not issued for layer 0 unless `ig0`; blocking under SimAI's
 * transformers), its weight-gradient compute and collective (none under MODEL), then a
 * wait for the input-gradient collective. HYBRID_TRANSFORMER_FWD_IN_BCKWD first
 * recomputes the forward from the checkpoint below a layer that initiates it. */
static int loop_model(wb_t *w, int ig0, int wg, int ig_blocking) {
  const trn_wl_t *wl = w->wl;
  int fib = wl->policy == TRN_WL_HYBRID_TRANSFORMER_FWD_IN_BCKWD;
  if (forward(w, 1)) return -1;
  for (int32_t l = wl->n_layers - 1; l >= 0; l--) {
    if (fib && wl->layers[l].initiates) { /* forward again from the checkpoint below */
      int32_t c = l;
      while (c > 0 && !wl->layers[c].checkpoint)
        c--;
      for (int32_t k = c; k < l; k++)
        if (compute(w, k, PH_FWD) || issue(w, k, PH_FWD, 1, NULL, 0)) return -1;
    }
    if (compute(w, l, PH_IG)) return -1;
    for (int32_t g = 0; g < w->b->gpus; g++)
      w->pend[g] = -1;
    if ((l > 0 || ig0) && issue(w, l, PH_IG, ig_blocking, w->pend, 0)) return -1;
    if (compute(w, l, PH_WG) || (wg && issue(w, l, PH_WG, 0, NULL, 0)) || wait_for(w, w->pend))
      return -1;
  }
  return 0;
}

/* HYBRID_DLRM(_ENHANCED): layer 0's forward all-to-all (every GPU) runs beside the
 * bottom MLP, which waits for it after DLRM_LAST_BOTTOM_LAYER; backward per layer its
 * weight-gradient compute and collective, (DLRM only) a wait for its input-gradient
 * collective, its input-gradient compute, and after layer DLRM_LAST_BOTTOM_LAYER + 1's
 * the embedding's input-gradient all-to-all; no forward or input-gradient collective
 * of another layer. */
static int loop_dlrm(wb_t *w) {
  const trn_wl_t *wl = w->wl;
  int64_t last = wl->dlrm_last_bottom;
  int enhanced = wl->policy == TRN_WL_HYBRID_DLRM_ENHANCED;
  for (int32_t g = 0; g < w->b->gpus; g++)
    w->fwd0[g] = w->ig0[g] = -1;
  for (int32_t l = 0; l < wl->n_layers; l++) {
    if (compute(w, l, PH_FWD)) return -1;
    if (wl->layers[l].fwd.comm == TRN_WL_ALLTOALL) {
      if (issue(w, l, PH_FWD, 0, l == 0 ? w->fwd0 : w->pend, 0)) return -1;
    } else if (l == last && wait_for(w, w->fwd0)) {
      return -1;
    }
  }
  for (int32_t l = wl->n_layers - 1; l >= 0; l--) {
    if (compute(w, l, PH_WG) || issue(w, l, PH_WG, 0, NULL, 0)) return -1;
    if (!enhanced && l == 0 && wait_for(w, w->ig0)) return -1;
    if (l == 0) break;
    if (compute(w, l, PH_IG)) return -1;
    if (l == last + 1 && issue(w, 0, PH_IG, 0, w->ig0, 0)) return -1;
  }
  return 0;
}

static int loop(wb_t *w) {
  switch (w->wl->policy) {
  case TRN_WL_DATA:
    return loop_data(w);
  case TRN_WL_MICRO: /* only the first layer's weight-gradient collective */
    return issue(w, 0, PH_WG, 0, NULL, 0);
  case TRN_WL_DISTRIBUTED_INFERENCE:
    return forward(w, 1);
  case TRN_WL_HYBRID_DLRM:
  case TRN_WL_HYBRID_DLRM_ENHANCED:
    return loop_dlrm(w);
  case TRN_WL_MODEL:
    return loop_model(w, 0, 0, 0);
  case TRN_WL_HYBRID_TRANSFORMER:
  case TRN_WL_HYBRID_TRANSFORMER_FWD_IN_BCKWD:
    return loop_model(w, 1, 1, w->simai);
  default: /* HYBRID_DATA_MODEL, HYBRID_MODEL_DATA, HYBRID_CUSTOMIZED */
    return loop_model(w, 0, 1, 0);
  }
}

/* ---- set-up ---- */

/* SimAI's groups (and the transformer policies' TP/DP): TP model_parallel_NPU_group
 * consecutive GPUs (all under MODEL, 1 otherwise without it), DP stride TP of size
 * gpus / (tp pp), EP ep consecutive data-parallel indices. */
static int groups(wb_t *w, char *err, size_t errlen) {
  const trn_wl_t *wl = w->wl;
  const trn_gen_wl_desc_t *d = w->d;
  w->tp = wl->tp > 0 ? wl->tp : wl->policy == TRN_WL_MODEL ? d->gpus : 1;
  w->pp = wl->pp > 0 ? wl->pp : 1;
  w->ep = wl->ep > 0 ? wl->ep : 1;
  if (d->gpus < 1 || d->gpus > INT32_MAX / 4 || d->gpus % (w->tp * w->pp)) {
    snprintf(err, errlen,
             "%lld GPUs are not a multiple of model_parallel_NPU_group x pp = %lld x %lld",
             (long long)d->gpus, (long long)w->tp, (long long)w->pp);
    return -1;
  }
  w->dp = d->gpus / (w->tp * w->pp);
  if (w->dp % w->ep) {
    snprintf(err, errlen, "ep %lld does not divide the data-parallel size %lld", (long long)w->ep,
             (long long)w->dp);
    return -1;
  }
  if (w->simai) return 0;
  /* ASTRA-sim 1.0: its network's dimensions, dimension 0 first */
  int64_t prod = 1;
  w->n_dims = 0;
  for (int i = 0; i < d->n_dims; i++)
    if (d->dims[i] > 1) {
      w->dims[w->n_dims++] = d->dims[i];
      prod *= d->dims[i];
    }
  if (prod != d->gpus) {
    snprintf(err, errlen, "dims (the workload's, or the torus's) hold %lld GPUs, the cluster %lld",
             (long long)prod, (long long)d->gpus);
    return -1;
  }
  for (int32_t l = 0; l < wl->n_layers; l++) {
    const trn_wl_layer_t *L = &wl->layers[l];
    const trn_wl_phase_t *p[3] = {&L->fwd, &L->ig, &L->wg};
    for (int k = 0; k < 3; k++)
      if (p[k]->group == TRN_WL_EP || p[k]->group == TRN_WL_DP_EP) {
        snprintf(err, errlen,
                 "line %d: %s_%s is SimAI's (ASTRA-sim 1.0 runs no collective for it): give "
                 "workload.flavor \"simai\"",
                 L->line, trn_wl_comm_name(p[k]->comm), p[k]->group == TRN_WL_EP ? "EP" : "DP_EP");
        return -1;
      }
  }
  return 0;
}

int trn_gen_wl(const trn_gen_wl_desc_t *d, trn_graph_t *out, char *err, size_t errlen) {
  const trn_wl_t *wl = d->wl;
  trn_gen_desc_t gd = {.model = d->model, .sync_ps = d->sync_ps, .channels = d->channels};
  trn_gb_t b = {.o = out, .d = &gd, .err = err, .errlen = errlen};
  wb_t w = {.b = &b, .wl = wl, .d = d};
  int rc = -1;
  memset(out, 0, sizeof *out);
  w.simai = d->flavor == TRN_WL_FLAVOR_SIMAI ||
            (d->flavor == TRN_WL_FLAVOR_AUTO && trn_wl_flavor(wl) == TRN_WL_FLAVOR_SIMAI);
  if (groups(&w, err, errlen)) return -1;
  if ((wl->policy == TRN_WL_HYBRID_DLRM || wl->policy == TRN_WL_HYBRID_DLRM_ENHANCED) &&
      wl->dlrm_last_bottom < 0) {
    snprintf(err, errlen, "%s without DLRM_LAST_BOTTOM_LAYER (the last bottom MLP layer)",
             trn_wl_policy_name(wl->policy));
    return -1;
  }
  trn_gb_imported(&b, (int32_t)d->gpus, d->gpus_per_server, d->nics_per_server, d->gpu, d->nvlink);
  b.host = malloc((size_t)b.gpus * sizeof *b.host);
  w.cur = malloc(7 * ((size_t)b.gpus + 1) * sizeof *w.cur);
  out->gpu_stage = malloc((size_t)b.gpus * sizeof *out->gpu_stage);
  if (!b.host || !w.cur || !out->gpu_stage) {
    snprintf(err, errlen, "out of memory");
    goto done;
  }
  w.pend = w.cur + b.gpus + 1;
  w.fwd0 = w.pend + b.gpus + 1;
  w.ig0 = w.fwd0 + b.gpus + 1;
  w.mem = w.ig0 + b.gpus + 1;
  w.after = w.mem + b.gpus + 1;
  w.done = w.after + b.gpus + 1;
  for (int32_t g = 0; g < b.gpus; g++) {
    int64_t server = g / d->gpus_per_server, local = g % d->gpus_per_server;
    b.host[g] =
        (int32_t)(server * d->nics_per_server + local * d->nics_per_server / d->gpus_per_server);
    w.cur[g] = w.pend[g] = -1;
    out->gpu_stage[g] = (int32_t)(g / (w.tp * w.dp));
  }
  if (w.simai && wl->pp > 1) { /* SimAI's analytical bubble, Layer::report */
    out->bubble_num = wl->pp - 1;
    out->bubble_den = (wl->ga > 0 ? wl->ga : 1) * (wl->vpp > 0 ? wl->vpp : 1);
  }
  if (loop(&w)) goto done;
  if (trn_gb_sort_spans(&b)) goto done;
  tg_assign_ports(&out->g);
  rc = 0;
done:
  free(b.host);
  free(w.cur);
  if (rc) trn_graph_free(out);
  return rc;
}
