/* The range of every numeric parameter key, in its user's unit, checked when a
 * value is applied (--set, --sweep, job files, presets): a value outside it is
 * an error naming the key and the range, before anything runs. Only -1, and
 * only where a derived value exists, means "derived". */
#include <stdio.h>
#include <string.h>

#include "jobs/job_param_int.h"

/* Times: at most 1e5 s (ENG_MAX_TIMER_PS), the headroom the engine's clock
 * keeps past the latest max_time_s (docs/formats.md: Limits). */
const job_range_t job_ranges[] = {
    {"mtu", 1, 65000, 0, 0, "1 to 65000 bytes (and mtu + header at most 65000)"},
    {"header", 0, 64999, 0, 0, "0 to 64999 bytes (and mtu + header at most 65000)"},
    {"ctrl_bytes", 1, 65000, 0, 0, "1 to 65000 bytes"},
    {"buffer_mb", 0, 65536, 1, 0, "more than 0 and at most 65536 MiB (64 GiB)"},
    {"pool_pkts", 0, 16777216, 0, 0, "0 (derived from buffer_mb) or 1 to 16777216 (2^24) packets"},
    {"host_slots", 1, 65536, 0, 0, "1 to 65536 packets"},
    {"pfc_xoff_kb", 0, 67108864, 0, 0, "0 (dynamic) to 67108864 KiB (64 GiB)"},
    {"pfc_alpha", 0, 64, 1, 0, "more than 0 and at most 64"},
    {"pfc_resume_kb", 0, 67108864, 0, 0, "0 to 67108864 KiB (64 GiB)"},
    {"ecn_kmin_kb", 0, 2097152, 0, 1, "-1 (by port speed) or 0 to 2097152 KiB (2 GiB)"},
    {"ecn_kmax_kb", 0, 2097152, 0, 1, "-1 (by port speed) or 0 to 2097152 KiB (2 GiB)"},
    {"ecn_pmax", 0, 1, 0, 1, "-1 (by port speed) or 0 to 1"},
    {"ack_every", 1, 2147483647, 0, 0, "1 to 2147483647 packets"},
    {"flowlet_gap_us", 0, 1e11, 0, 0, "0 to 1e11 us (1e5 s)"},
    {"rto_us", 0, 1e11, 1, 0, "more than 0 and at most 1e11 us (1e5 s)"},
    {"max_time_s", 0, 1e6, 1, 0, "more than 0 and at most 1e6 s"},
    {"ring_cap", 0, 134217728, 0, 0,
     "0 (derived) or a power of two up to 134217728 (2^27) packets"},
    {"sync_us", 0, 1e6, 1, 0, "more than 0 and at most 1e6 us (1 s)"},
    {"overlap_slowdown", 1, 10, 0, 0, "1 to 10"},
    {"pfc_reserve_kb", 0, 67108864, 0, 0, "0 to 67108864 KiB (64 GiB)"},
    {"pfc_headroom_bdp", 0, 100000, 0, 1,
     "-1 (none) or 0 to 100000 one-way bandwidth-delay products"},
    {"pfc_frame_bytes", 0, 65000, 0, 0, "0 (no transmission time) to 65000 bytes"},
    {"standalone_header", 0, 65000, 0, 1, "-1 (exact) or 0 to 65000 bytes"},
    {"dcqcn_g", 0, 1, 1, 0, "more than 0 and at most 1"},
    {"dcqcn_alpha_timer_us", 0, 1e11, 1, 0, "more than 0 and at most 1e11 us (1e5 s)"},
    {"dcqcn_rate_inc_timer_us", 0, 1e11, 1, 0, "more than 0 and at most 1e11 us (1e5 s)"},
    {"dcqcn_byte_counter_kb", 0, 1073741824, 1, 0,
     "more than 0 and at most 1073741824 KiB (1 TiB)"},
    {"dcqcn_fast_steps", 0, 2147483647, 0, 0, "0 to 2147483647"},
    {"dcqcn_rate_ai_mbps", 0, 1e9, 0, 0, "0 to 1e9 Mb/s (1 Pb/s)"},
    {"dcqcn_rate_hai_mbps", 0, 1e9, 0, 0, "0 to 1e9 Mb/s (1 Pb/s)"},
    {"dcqcn_min_rate_mbps", 1, 1e9, 0, 0, "1 to 1e9 Mb/s (1 Pb/s)"},
    {"dcqcn_cnp_interval_us", 0, 1e11, 0, 0, "0 to 1e11 us (1e5 s)"},
    {"dcqcn_dec_interval_us", 0, 1e11, 0, 0, "0 to 1e11 us (1e5 s)"},
    {"dcqcn_window_kb", 0, 1073741824, 0, 1,
     "-1 (the flow's bandwidth-delay product), 0 (none) or up to 1073741824 KiB (1 TiB)"},
    {"dctcp_g", 0, 1, 1, 0, "more than 0 and at most 1"},
    {"dctcp_init_cwnd_kb", 0, 1073741824, 1, 0, "more than 0 and at most 1073741824 KiB (1 TiB)"},
    {"hpcc_eta", 0, 1, 1, 0, "more than 0 and at most 1"},
    {"hpcc_max_stage", 0, 2147483647, 0, 0, "0 to 2147483647"},
    {"hpcc_ai_mbps", 0, 1e9, 0, 1, "-1 (10 Mb/s per 25 Gb/s of NIC) or 0 to 1e9 Mb/s (1 Pb/s)"},
    {"hpcc_min_rate_mbps", 0, 1e9, 0, 0, "0 (the window's floor is one MTU) to 1e9 Mb/s (1 Pb/s)"},
    {"hpcc_int_multi", 0, 1024, 0, 0, "0 (exact telemetry) to 1024"},
};
const int job_n_ranges = (int)(sizeof job_ranges / sizeof job_ranges[0]);

const job_range_t *job_range_find(const char *key) {
  for (int i = 0; i < job_n_ranges; i++)
    if (strcmp(job_ranges[i].key, key) == 0) return &job_ranges[i];
  return NULL;
}

/* Compares decimals exactly: -1, 0 or 1 as a < b, a = b, a > b. */
static int range_cmp(const job_dec_t *a, const job_dec_t *b) {
  if (a->n == 0 || b->n == 0 || a->neg != b->neg) {
    int sa = a->n == 0 ? 0 : a->neg ? -1 : 1, sb = b->n == 0 ? 0 : b->neg ? -1 : 1;
    return (sa > sb) - (sa < sb);
  }
  int sign = a->neg ? -1 : 1;
  int ma = a->n + a->exp, mb = b->n + b->exp; /* value = 0.digits x 10^m */
  if (ma != mb) return ma > mb ? sign : -sign;
  int c = strcmp(a->digits, b->digits); /* same magnitude: digit by digit */
  return c > 0 ? sign : c < 0 ? -sign : 0;
}

/* The decimal is exactly -1. */
static int range_minus_one(const job_dec_t *d) {
  return d->neg && d->n == 1 && d->digits[0] == '1' && d->exp == 0;
}

int job_range_check(const job_key_t *k, const eng_params_t *p, const job_dec_t *d, const char *text,
                    char *why, size_t len) {
  const job_range_t *r = job_range_find(k->name);
  if (!r) return 0;
  if (r->derived && range_minus_one(d)) return 1;
  /* A key of another congestion control than the experiment's has no effect;
   * a preset leaves those 0, and the canonical text writes them so. */
  if (k->cc_kind != CC_NONE && k->cc_kind != p->ccp.kind && d->n == 0) return 0;
  job_dec_t lo, hi;
  job_dec_from_double(r->lo, &lo);
  job_dec_from_double(r->hi, &hi);
  int ok = range_cmp(d, &lo) >= r->lo_open && range_cmp(d, &hi) <= 0;
  if (ok && strcmp(r->key, "ring_cap") == 0) { /* a power of two */
    int64_t v = -1;
    ok = job_dec_to_int(d, 0, 0, 1, &v) == 0 && (v & (v - 1)) == 0;
  }
  if (ok) return 0;
  char num[80];
  job_dec_format(d, num, sizeof num);
  snprintf(why, len, "%s%.200s%s is out of range: %s", text ? "'" : "", text ? text : num,
           text ? "'" : "", r->text);
  return -1;
}

int job_range_zero(const job_key_t *k, const eng_params_t *p, char *why, size_t len) {
  const job_range_t *r = job_range_find(k->name);
  if (!r || !r->lo_open || (k->cc_kind != CC_NONE && k->cc_kind != p->ccp.kind)) return 0;
  snprintf(why, len, "rounds to 0, out of range: %s", r->text);
  return -1;
}
