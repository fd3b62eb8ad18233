/* trf: a flow set as a task graph (one flow task per line, no dependencies). */
#include "traffic/trf.h"

int trf_to_tg(const trf_flows_t *fl, tg_t *g) {
  for (int32_t i = 0; i < fl->n; i++) {
    const trf_flow_t *f = &fl->f[i];
    tg_task_t t = tg_task_default(TG_FLOW);
    t.host = f->src;
    t.dst = f->dst;
    t.bytes = f->bytes;
    t.sport = f->sport;
    t.dport = f->dport;
    t.prio = f->prio;
    t.start = f->start_ps;
    t.line = f->line;
    if (tg_add(g, &t) < 0) return -1;
  }
  return 0;
}
