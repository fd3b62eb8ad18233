/* trn: pipeline transfers between the call steps of neighbouring ranks. NCCL's
 * send and receive meet (a transfer starts once both sides have reached their
 * calls) and Megatron waits for every operation of a call before going on: the
 * sender's call ends when its flow is acknowledged, the receiver's when the data is
 * in. Inside a server the pair is an intra-server sendrecv step (coll_append). */
#include <stdio.h>
#include <stdlib.h>

#include "train/trn_gen_int.h"

/* One transfer on every (tp, dp) pair of its two ranks. */
static int transfer(trn_gb_t *b, const trn_p2p_t *op, int64_t rs, int32_t ks, int64_t rr,
                    int32_t kr) {
  trn_meta_t m = {TRN_CAT_PP, op->grad ? TRN_W_GRAD : TRN_W_ACT, (int16_t)(op->vs / b->p), op->mb,
                  op->vs};
  uint64_t bytes = b->tm.p2p_bytes;
  for (int64_t d = 0; d < b->dp; d++)
    for (int64_t t = 0; t < b->t; t++) {
      int32_t gs = trn_gb_gpu(b, t, d, rs), gr = trn_gb_gpu(b, t, d, rr);
      trn_gpu_b_t *s = &b->gb[gs], *r = &b->gb[gr];
      if (gs / b->gps == gr / b->gps) {
        int32_t gpus[2] = {gs, gr}, after[2] = {s->call_mark[ks], r->call_mark[kr]}, done[2];
        if (trn_gb_coll(b, COLL_SENDRECV, bytes, 2, gpus, after, done, TRN_CAT_PP, m)) return -1;
        b->o->spans[b->o->n_spans - 1].recv_side = 1; /* the receiver's span */
        if (trn_gb_edge(b, s->call_join[ks], done[0], TG_ON_END) ||
            trn_gb_edge(b, r->call_join[kr], done[1], TG_ON_END))
          return -1;
        continue;
      }
      int32_t f = trn_gb_flow(b, gs, gr, bytes, m);
      if (f < 0 || trn_gb_edge(b, f, s->call_mark[ks], TG_ON_END) ||
          trn_gb_edge(b, f, r->call_mark[kr], TG_ON_END) ||
          trn_gb_edge(b, s->call_join[ks], f, TG_ON_END) ||
          trn_gb_edge(b, r->call_join[kr], f, TG_ON_RECV))
        return -1;
      if (trn_gb_p2p_spans(b, gs, gr, f, bytes)) return -1;
    }
  return 0;
}

int trn_gen_p2p(trn_gb_t *b) {
  int64_t nvs = b->p * b->v, keys = 2 * nvs * b->m;
  int32_t *recv_at = malloc((size_t)keys * sizeof *recv_at); /* step of the receive */
  int rc = -1;
  int64_t n_recv = 0, n_send = 0;
  if (!recv_at) {
    snprintf(b->err, b->errlen, "out of memory");
    return -1;
  }
  for (int64_t i = 0; i < keys; i++)
    recv_at[i] = -1;
#define KEY(o) (((int64_t)(o)->grad * nvs + (o)->vs) * b->m + (o)->mb)
  for (int64_t r = 0; r < b->p; r++)
    for (int32_t k = 0; k < b->n_steps[r]; k++)
      for (int32_t j = 0; j < b->prog[r][k].n_ops; j++) {
        const trn_p2p_t *o = &b->prog[r][k].op[j];
        if (o->send) continue;
        if (o->vs % b->p != r || o->mb < 0 || o->mb >= b->m || recv_at[KEY(o)] >= 0) {
          fprintf(stderr, "%s:%d: rank %lld receives tensor (%d, vs %d, mb %d) twice or wrongly\n",
                  __FILE__, __LINE__, (long long)r, o->grad, o->vs, o->mb);
          abort();
        }
        recv_at[KEY(o)] = k;
        n_recv++;
      }
  for (int64_t r = 0; r < b->p; r++)
    for (int32_t k = 0; k < b->n_steps[r]; k++)
      for (int32_t j = 0; j < b->prog[r][k].n_ops; j++) {
        const trn_p2p_t *o = &b->prog[r][k].op[j];
        if (!o->send) continue;
        int32_t kr = o->vs >= 0 && o->vs < nvs && o->mb >= 0 && o->mb < b->m ? recv_at[KEY(o)] : -1;
        if (kr < 0) {
          fprintf(stderr, "%s:%d: rank %lld sends tensor (%d, vs %d, mb %d) nobody receives\n",
                  __FILE__, __LINE__, (long long)r, o->grad, o->vs, o->mb);
          abort();
        }
        n_send++;
        if (transfer(b, o, r, k, o->vs % b->p, kr)) goto done;
      }
#undef KEY
  if (n_send != n_recv) {
    fprintf(stderr, "%s:%d: %lld sends for %lld receives\n", __FILE__, __LINE__, (long long)n_send,
            (long long)n_recv);
    abort();
  }
  rc = 0;
done:
  free(recv_at);
  return rc;
}
