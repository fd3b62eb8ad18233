/* Network parameters as the engine consumes them: range and combination checks
 * (messages name the user's keys) and per-port ECN resolution. Parsing, units
 * and canonical text are jobs/ (job_param*.c). */
#include <stdio.h>

#include "sim/eng_params.h"

/* Timers and intervals past ENG_MAX_TIMER_PS would schedule beyond the clock's
 * headroom; NULL if none is. */
static const char *params_timers(const eng_params_t *p) {
  const cc_params_t *c = &p->ccp;
  if (p->rto > ENG_MAX_TIMER_PS) return "rto_us: must be at most 1e11 us (1e5 s)";
  if (p->flowlet_gap > ENG_MAX_TIMER_PS) return "flowlet_gap_us: must be at most 1e11 us (1e5 s)";
  if (c->kind == CC_DCQCN &&
      (c->alpha_timer > ENG_MAX_TIMER_PS || c->inc_timer > ENG_MAX_TIMER_PS ||
       c->cnp_interval > ENG_MAX_TIMER_PS || c->dec_interval > ENG_MAX_TIMER_PS))
    return "dcqcn timers and intervals: must be at most 1e11 us (1e5 s)";
  return NULL;
}

int eng_params_check(const eng_params_t *p, char *err, size_t errlen) {
  const char *why = NULL;
  if (p->mtu < 1 || p->mtu + p->header > 65000)
    why = "mtu: must be 1..65000-header bytes";
  else if (p->header < 0)
    why = "header: must be >= 0";
  else if (p->ctrl_bytes < 1 || p->ctrl_bytes > 65000)
    why = "ctrl_bytes: must be 1..65000";
  else if (p->buffer < p->mtu + p->header)
    why = "buffer_mb: must hold at least one packet";
  else if (p->pool_pkts < 0 || p->host_slots < 1)
    why = "pool_pkts/host_slots: must be positive";
  else if (p->pfc_xoff < 0 || p->pfc_resume < 0)
    why = "pfc_xoff_kb/pfc_resume_kb: must be >= 0";
  else if (p->pfc_a16 < 1 || p->pfc_a16 > 64 * 65536)
    why = "pfc_alpha: must be in (0, 64]";
  else if (p->ecn_pmax > 1)
    why = "ecn_pmax: must be <= 1";
  else if (p->ecn_kmin >= 0 && p->ecn_kmax >= 0 && p->ecn_kmax < p->ecn_kmin)
    why = "ecn_kmax_kb: must not be below ecn_kmin_kb";
  else if (p->ecn_kmax > ((int64_t)1 << 31))
    why = "ecn_kmax_kb: must be below 2 GiB";
  else if (p->ack_every < 1)
    why = "ack_every: must be >= 1";
  else if (p->rto < 1)
    why = "rto_us: must be > 0";
  else if (p->sync < 1 || p->sync > 1000000000000LL)
    why = "sync_us: must be in (0, 1e6] us";
  else if (p->overlap_q16 < 65536 || p->overlap_q16 > 10 * 65536)
    why = "overlap_slowdown: must be in [1, 10]";
  else if (p->flowlet_gap < 0)
    why = "flowlet_gap_us: must be >= 0";
  else if (p->max_time < 1 || p->max_time > 1000000000000000000LL)
    why = "max_time_s: must be in (0, 1e6] s";
  else if (p->lb < ENG_LB_ECMP || p->lb > ENG_LB_ADAPTIVE)
    why = "lb: must be ecmp, spray or adaptive";
  else if (p->ccp.kind < CC_NONE || p->ccp.kind > CC_HPCC)
    why = "cc: unknown kind";
  else if (p->ring_cap < 0 || (p->ring_cap & (p->ring_cap - 1)))
    why = "ring_cap: must be 0 (derived) or a power of two";
  else if (p->ecn_table.n < 0 || p->ecn_table.n > ENG_ECN_ROWS_MAX)
    why = "ecn_by_link_gbps: at most 16 rows";
  else if (p->ecn_table.n == 0 && (p->ecn_kmin < 0 || p->ecn_kmax < 0 || p->ecn_pmax < 0))
    why = "ecn: no ECN table and no explicit ecn_kmin_kb/ecn_kmax_kb/ecn_pmax";
  else if (p->pfc_reserve < 0)
    why = "pfc_reserve_kb: must be >= 0";
  else if (!(p->pfc_headroom < 1e6))
    why = "pfc_headroom_bdp: must be below 10^6 (negative: none)";
  else if (p->pfc_frame_bytes < 0 || p->pfc_frame_bytes > 65000)
    why = "pfc_frame_bytes: must be 0..65000";
  else if (p->standalone_header < -1 || p->standalone_header > 65000)
    why = "standalone_header: must be -1 (exact) or 0..65000 bytes";
  for (int i = 0; !why && i < p->ecn_table.n; i++) {
    const eng_ecn_row_t *r = &p->ecn_table.row[i];
    if (r->gbps < 1 || (i && r->gbps <= r[-1].gbps))
      why = "ecn_by_link_gbps: rows by ascending speed >= 1 Gb/s";
    else if (r->kmin < 0 || r->kmax < r->kmin || r->kmax > ((int64_t)1 << 31) ||
             !(r->pmax >= 0 && r->pmax <= 1))
      why = "ecn_by_link_gbps: each row needs 0 <= kmin <= kmax <= 2 GiB and pmax in [0, 1]";
  }
  const cc_params_t *c = &p->ccp;
  if (!why && c->kind == CC_DCQCN) {
    if (!(c->g > 0 && c->g <= 1))
      why = "dcqcn_g: must be in (0, 1]";
    else if (c->alpha_timer < 1 || c->inc_timer < 1)
      why = "dcqcn timers: must be > 0";
    else if (c->byte_counter < 1)
      why = "dcqcn_byte_counter_kb: must be > 0";
    else if (c->fast_steps < 0)
      why = "dcqcn_fast_steps: must be >= 0";
    else if (!(c->rate_ai >= 0 && c->rate_hai >= 0 && c->min_rate >= 1e6))
      why = "dcqcn rates: increases >= 0, dcqcn_min_rate_mbps >= 1";
    else if (c->cnp_interval < 0 || c->dec_interval < 0)
      why = "dcqcn intervals: must be >= 0";
    else if (c->dcqcn_ns3 && c->dec_interval < 1)
      why = "dcqcn_dec_interval_us: must be > 0 with dcqcn_ns3 (a periodic check)";
  }
  if (!why && c->kind == CC_HPCC) {
    if (!(c->eta > 0 && c->eta <= 1))
      why = "hpcc_eta: must be in (0, 1]";
    else if (c->max_stage < 0)
      why = "hpcc_max_stage: must be >= 0";
    else if (c->int_multi < 0 || c->int_multi > 1024)
      why = "hpcc_int_multi: must be 0 (exact) to 1024";
    else if (!(c->hpcc_min_rate >= 0))
      why = "hpcc_min_rate_mbps: must be >= 0";
  }
  if (!why && c->kind == CC_DCTCP) {
    if (!(c->dctcp_g > 0 && c->dctcp_g <= 1))
      why = "dctcp_g: must be in (0, 1]";
    else if (c->init_cwnd < 1)
      why = "dctcp_init_cwnd_kb: must be > 0";
  }
  if (!why) why = params_timers(p);
  if (why) {
    snprintf(err, errlen, "%s", why);
    return -1;
  }
  return 0;
}

void eng_params_ecn_for(const eng_params_t *p, int64_t rate_bps, int64_t *kmin, int64_t *kmax,
                        double *pmax) {
  const eng_ecn_table_t *tab = &p->ecn_table;
  const eng_ecn_row_t *row = tab->n ? &tab->row[0] : NULL;
  for (int i = 0; i < tab->n; i++)
    if (tab->row[i].gbps * 1000000000LL <= rate_bps) row = &tab->row[i];
  *kmin = p->ecn_kmin >= 0 ? p->ecn_kmin : row ? row->kmin : 0;
  *kmax = p->ecn_kmax >= 0 ? p->ecn_kmax : row ? row->kmax : 1;
  *pmax = p->ecn_pmax >= 0 ? p->ecn_pmax : row ? row->pmax : 0;
}
