/* Network parameters as the engine consumes them: every row of ENG_PARAMS and
 * CC_PARAMS as data (eng_param_info), the range and combination checks
 * (messages name the user's keys) and per-port ECN resolution. Parsing, units
 * and canonical text are jobs/ (job_param*.c). */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "base/base_units.h"
#include "sim/eng_params.h"

/* Stored value = user's value x scale, per unit (ENG_PARAMS' unit column). */
#define ENG_SCALE_COUNT 1.0
#define ENG_SCALE_BOOL 1.0
#define ENG_SCALE_KIB BASE_BYTES_PER_KIB
#define ENG_SCALE_MIB BASE_BYTES_PER_MIB
#define ENG_SCALE_US BASE_PS_PER_US
#define ENG_SCALE_S BASE_PS_PER_S
#define ENG_SCALE_REAL 1.0
#define ENG_SCALE_MBPS BASE_BPS_PER_MBPS
#define ENG_SCALE_Q16 65536.0
#define ENG_SCALE_LB 1.0
#define ENG_SCALE_MODEL 1.0
#define ENG_SCALE_CC 1.0
#define ENG_SCALE_ECN_TABLE 1.0

#define ENG_INFO_NET(A, key, unit, type, field, col, range, doc)                                   \
  {#key,                                                                                           \
   CC_NONE,                                                                                        \
   offsetof(eng_params_t, field),                                                                  \
   _Generic(((eng_params_t *)0)->field, double : 1, default : 0),                                  \
   sizeof(((eng_params_t *)0)->field),                                                             \
   ENG_SCALE_##unit,                                                                               \
   range,                                                                                          \
   doc},
#define ENG_INFO_CC(A, key, unit, type, field, kind, range, doc)                                   \
  {#key,                                                                                           \
   CC_##kind,                                                                                      \
   offsetof(eng_params_t, ccp) + offsetof(cc_params_t, field),                                     \
   _Generic(((cc_params_t *)0)->field, double : 1, default : 0),                                   \
   sizeof(((cc_params_t *)0)->field),                                                              \
   ENG_SCALE_##unit,                                                                               \
   range,                                                                                          \
   doc},
const eng_param_info_t eng_param_info[] = {ENG_PARAMS(ENG_INFO_NET, _) CC_PARAMS(ENG_INFO_CC, _)};
#undef ENG_INFO_NET
#undef ENG_INFO_CC
const int eng_n_params = (int)(sizeof eng_param_info / sizeof eng_param_info[0]);

/* p's value of key k is outside k's range (compared in the stored unit). */
static int params_out_of_range(const eng_params_t *p, const eng_param_info_t *k) {
  const eng_range_t *r = &k->range;
  const char *at = (const char *)p + k->off;
  if (k->real) {
    double v, lo = r->lo * k->scale, hi = r->hi * k->scale;
    memcpy(&v, at, sizeof v);
    if (r->derived && v == -1) return 0;
    return !(r->lo_open ? v > lo : v >= lo) || !(v <= hi);
  }
  int64_t v;
  if (k->size == 4) {
    int32_t v32;
    memcpy(&v32, at, sizeof v32);
    v = v32;
  } else {
    memcpy(&v, at, sizeof v);
  }
  if (r->derived && v == -1) return 0;
  /* The bounds are whole in the stored unit (at most 1e17 ps: exact doubles). */
  int64_t lo = (int64_t)(r->lo * k->scale), hi = (int64_t)(r->hi * k->scale);
  return (r->lo_open ? v <= lo : v < lo) || v > hi;
}

int eng_params_check(const eng_params_t *p, char *err, size_t errlen) {
  const cc_params_t *c = &p->ccp;
  for (int i = 0; i < eng_n_params; i++) {
    const eng_param_info_t *k = &eng_param_info[i];
    if (!k->range.numeric || (k->cc_kind != CC_NONE && k->cc_kind != c->kind)) continue;
    if (params_out_of_range(p, k)) {
      snprintf(err, errlen, "%s: must be %s", k->key, k->range.words);
      return -1;
    }
  }
  /* What ties keys together, and what is not a number. */
  const char *why = NULL;
  if (p->mtu + p->header > 65000)
    why = "mtu: must be 1..65000-header bytes";
  else if (p->buffer < p->mtu + p->header)
    why = "buffer_mb: must hold at least one packet";
  else if (p->ecn_kmin >= 0 && p->ecn_kmax >= 0 && p->ecn_kmax < p->ecn_kmin)
    why = "ecn_kmax_kb: must not be below ecn_kmin_kb";
  else if (p->lb < ENG_LB_ECMP || p->lb > ENG_LB_ADAPTIVE)
    why = "lb: must be ecmp, spray or adaptive";
  else if (c->kind < CC_NONE || c->kind > CC_HPCC)
    why = "cc: unknown kind";
  else if (p->ring_cap & (p->ring_cap - 1))
    why = "ring_cap: must be 0 (derived) or a power of two";
  else if (p->ecn_table.n < 0 || p->ecn_table.n > ENG_ECN_ROWS_MAX)
    why = "ecn_by_link_gbps: at most 16 rows";
  else if (p->ecn_table.n == 0 && (p->ecn_kmin < 0 || p->ecn_kmax < 0 || p->ecn_pmax < 0))
    why = "ecn: no ECN table and no explicit ecn_kmin_kb/ecn_kmax_kb/ecn_pmax";
  else if (c->kind == CC_DCQCN && c->dcqcn_ns3 && c->dec_interval < 1)
    why = "dcqcn_dec_interval_us: must be > 0 with dcqcn_ns3 (a periodic check)";
  else if (p->model != ENG_MODEL_PACKET && p->model != ENG_MODEL_FLOW)
    why = "model: must be packet or flow";
  for (int i = 0; !why && i < p->ecn_table.n; i++) {
    const eng_ecn_row_t *r = &p->ecn_table.row[i];
    if (r->gbps < 1 || (i && r->gbps <= r[-1].gbps))
      why = "ecn_by_link_gbps: rows by ascending speed >= 1 Gb/s";
    else if (r->kmin < 0 || r->kmax < r->kmin || r->kmax > ((int64_t)1 << 31) ||
             !(r->pmax >= 0 && r->pmax <= 1))
      why = "ecn_by_link_gbps: each row needs 0 <= kmin <= kmax <= 2 GiB and pmax in [0, 1]";
  }
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
