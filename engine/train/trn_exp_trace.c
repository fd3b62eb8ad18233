/* trn: a training experiment's schedule as Chrome trace events (JSON object format,
 * opened by ui.perfetto.dev and chrome://tracing): a process per GPU, a thread per
 * stream, one complete event ("X") per compute task and per communication span. */
#include <stdio.h>

#include "train/trn_exp_int.h"

enum {
  TID_COMPUTE,
  TID_TP,
  TID_ACT_OUT,
  TID_ACT_IN,
  TID_GRAD_OUT,
  TID_GRAD_IN,
  TID_DP,
  TID_EP,
  TIDS
};
static const char *const tid_names[TIDS] = {"compute",     "tp",         "pp act out", "pp act in",
                                            "pp grad out", "pp grad in", "dp",         "ep"};

static int tid_of(const trn_span_t *s, const trn_meta_t *m) {
  switch (s->cat) {
  case TRN_CAT_TP:
    return TID_TP;
  case TRN_CAT_PP: {
    int grad = m->what == TRN_W_GRAD;
    int in = s->recv_side;
    return grad ? (in ? TID_GRAD_IN : TID_GRAD_OUT) : (in ? TID_ACT_IN : TID_ACT_OUT);
  }
  case TRN_CAT_EP:
    return TID_EP;
  default:
    return TID_DP;
  }
}

static void name_of(const trn_exp_t *x, const trn_meta_t *m, int cat, const trn_span_t *s,
                    char *buf, size_t len) {
  static const char *const what[] = {"F",          "B",          "optimizer", "act",
                                     "grad",       "reduce",     "gather",    "embedding grad",
                                     "norm grads", "all-to-all", "layer"};
  const char *w = m->what < sizeof what / sizeof what[0] ? what[m->what] : "?";
  if (cat == TRN_CAT_COMPUTE && m->what <= TRN_W_BWD)
    snprintf(buf, len, "%s mb%d c%d L%d", w, m->mb, m->chunk, m->aux);
  else if (cat == TRN_CAT_COMPUTE && m->what == TRN_W_LAYER)
    snprintf(buf, len, "%s",
             m->aux >= 0 && m->aux < x->graph.g.n_labels ? x->graph.g.labels[m->aux] : "layer");
  else if (cat == TRN_CAT_PP)
    snprintf(buf, len, "%s mb%d vs%d (%.3g MB)", w, m->mb, m->aux, s ? (double)s->bytes / 1e6 : 0);
  else if (cat == TRN_CAT_DP && s)
    snprintf(buf, len, "%s %s c%d b%d (%.3g MB)", w, coll_name((coll_kind_t)s->kind), m->chunk,
             m->aux, (double)s->bytes / 1e6);
  else if (cat == TRN_CAT_TP)
    snprintf(buf, len, "TP %s mb%d", m->what == TRN_W_NORM ? "norm grads" : w, m->mb);
  else
    snprintf(buf, len, "%s", w);
}

static void event(FILE *f, int *first, const char *name, const char *cat, int64_t start,
                  int64_t end, int32_t pid, int tid) {
  fprintf(f,
          "%s\n{\"name\":\"%s\",\"cat\":\"%s\",\"ph\":\"X\",\"ts\":%.6f,\"dur\":%.6f,"
          "\"pid\":%d,\"tid\":%d}",
          *first ? "" : ",", name, cat, (double)start * 1e-6, (double)(end - start) * 1e-6, pid,
          tid);
  *first = 0;
}

int trn_exp_trace(const trn_exp_t *x, const eng_batch_t *b, int32_t e, FILE *f) {
  const trn_graph_t *o = &x->graph;
  int first = 1;
  char name[160];
  fputs("{\"displayTimeUnit\":\"ms\",\"traceEvents\":[", f);
  for (int32_t g = 0; g < o->n_gpus; g++) {
    int st = o->gpu_stage ? o->gpu_stage[g] : -1;
    fprintf(f,
            "%s\n{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%d,\"args\":{\"name\":\"GPU %d%s",
            first ? "" : ",", g, g, st >= 0 ? " stage " : "");
    if (st >= 0) fprintf(f, "%d", st);
    fputs("\"}}", f);
    first = 0;
    fprintf(
        f,
        ",\n{\"name\":\"process_sort_index\",\"ph\":\"M\",\"pid\":%d,\"args\":{\"sort_index\":%d}}",
        g, g);
    for (int t = 0; t < TIDS; t++)
      fprintf(f,
              ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":%d,\"args\":{\"name\":"
              "\"%s\"}}",
              g, t, tid_names[t]);
  }
  for (int32_t i = 0; i < o->g.n; i++) {
    eng_task_times_t tt;
    if (o->meta[i].cat != TRN_CAT_COMPUTE || o->g.t[i].gpu < 0) continue;
    if (eng_task_times(b, e, i, &tt) || tt.start < 0 || tt.end < tt.start) continue;
    name_of(x, &o->meta[i], TRN_CAT_COMPUTE, NULL, name, sizeof name);
    event(f, &first, name, "compute", tt.start, tt.end, o->g.t[i].gpu, TID_COMPUTE);
  }
  for (int32_t k = 0; k < o->n_spans; k++) {
    const trn_span_t *s = &o->spans[k];
    int64_t t0, t1;
    if (trn_exp_span_times(x, b, e, s, &t0, &t1) || t1 < t0) continue;
    const trn_meta_t *m = &o->meta[s->task];
    name_of(x, m, s->cat, s, name, sizeof name);
    event(f, &first, name, trn_cat_name(s->cat), t0, t1, s->gpu, tid_of(s, m));
  }
  fputs("\n]}\n", f);
  return ferror(f) ? -1 : 0;
}
