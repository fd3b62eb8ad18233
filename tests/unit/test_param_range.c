/* Parameter ranges (each key's ENG_PARAMS / CC_PARAMS row; jobs/job_param_range.c
 * checks user values, eng_params_check stored ones): every numeric key has one;
 * each bound is accepted, exactly and by the engine's checks too, a millionth
 * past it is refused naming the key and the range; the engine refuses a stored
 * value one unit past a bound ("KEY: must be RANGE"); only -1 means derived,
 * and only where a derived value exists; a key of another congestion control
 * may be 0; a preset never overrides an explicit key, whatever their order.
 * (docs/parameters.md is generated from the same rows: params_doc.) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobs/job_param_int.h"
#include "mvsim.h"
#include "mvtest.h"

static int numeric(job_unit_t u) {
  return u != JOB_U_BOOL && u != JOB_U_LB && u != JOB_U_MODEL && u != JOB_U_CC &&
         u != JOB_U_ECN_TABLE;
}

/* The defaults with the congestion control whose presets set key k, and the
 * other keys a bound of k needs to be valid as a whole (mtu + header). */
static eng_params_t base_for(const job_key_t *k, double bound) {
  eng_params_t p = mvsim_params();
  char err[512], kv[64];
  if (k->cc_kind != CC_NONE) {
    snprintf(kv, sizeof kv, "cc=%s", job_cc_names[k->cc_kind]);
    CHECK(mvsim_set(&p, kv, err, sizeof err) == 0);
  }
  if (strcmp(k->name, "mtu") == 0 && bound > 64000)
    CHECK(mvsim_set(&p, "header=0", err, sizeof err) == 0);
  if (strcmp(k->name, "header") == 0 && bound > 64000)
    CHECK(mvsim_set(&p, "mtu=1", err, sizeof err) == 0);
  return p;
}

/* KEY=VALUE on the key's base: expect accepted (and valid for the engine) or
 * refused with the key and its range in the message. */
static void try_value(const job_key_t *k, const eng_range_t *r, double bound, const char *value,
                      int accept) {
  eng_params_t p = base_for(k, bound);
  char kv[128], err[512], want[512];
  snprintf(kv, sizeof kv, "%s=%s", k->name, value);
  int rc = mvsim_set(&p, kv, err, sizeof err);
  if (accept) {
    if (rc != 0 || eng_params_check(&p, err, sizeof err) != 0) {
      fprintf(stderr, "%s refused: %s\n", kv, err);
      mvtest_failures++;
    }
    return;
  }
  snprintf(want, sizeof want, "--set %s: '%s' is out of range: %s", k->name, value, r->words);
  CHECK(rc == -1);
  CHECK_STR_CONTAINS(err, want);
}

static void every_key_bounded(void) {
  for (int i = 0; i < job_n_keys; i++) {
    const job_key_t *k = &job_keys[i];
    const eng_range_t *r = job_range_find(k->name);
    if (numeric(k->unit) != (r != NULL)) {
      fprintf(stderr, "%s: %s\n", k->name,
              r ? "a range for a key that is not a number" : "a number without a range");
      mvtest_failures++;
    }
  }
  CHECK(eng_n_params == job_n_keys); /* the same rows, in the same order */
  for (int i = 0; i < eng_n_params && i < job_n_keys; i++)
    CHECK(strcmp(eng_param_info[i].key, job_keys[i].name) == 0);
}

static void bounds(void) {
  char v[64];
  for (int i = 0; i < eng_n_params; i++) {
    const eng_range_t *r = &eng_param_info[i].range;
    const job_key_t *k = job_key_find(eng_param_info[i].key);
    if (!r->numeric) continue;
    /* Every bound is a whole number; one millionth past it is out. */
    snprintf(v, sizeof v, "%.0f", r->hi);
    try_value(k, r, r->hi, v, 1);
    snprintf(v, sizeof v, "%.0f.000001", r->hi);
    try_value(k, r, r->hi, v, 0);
    snprintf(v, sizeof v, "%.0f", r->lo);
    try_value(k, r, r->lo, v, !r->lo_open);
    if (r->lo > 0)
      snprintf(v, sizeof v, "%.0f.999999", r->lo - 1);
    else
      snprintf(v, sizeof v, "-0.000001");
    try_value(k, r, r->lo, v, 0);
    /* -1 means derived only where a derived value exists. */
    try_value(k, r, r->lo, "-1", r->derived);
    try_value(k, r, r->lo, "-2", 0);
  }
}

static void specific(void) {
  eng_params_t p = mvsim_params();
  char err[512];
  /* The reproducers of the issue, and values past int64 or a double. */
  CHECK(mvsim_set(&p, "ecn_kmax_kb=1e17", err, sizeof err) == -1);
  CHECK_STR_CONTAINS(err, "--set ecn_kmax_kb: '1e17' is out of range: -1 (by port speed) or 0 to "
                          "2097152 KiB (2 GiB)");
  CHECK(mvsim_set(&p, "ecn_pmax=-0.5", err, sizeof err) == -1);
  CHECK(mvsim_set(&p, "ecn_kmin_kb=-7", err, sizeof err) == -1);
  CHECK(mvsim_set(&p, "buffer_mb=1e20", err, sizeof err) == -1);
  CHECK_STR_CONTAINS(err, "--set buffer_mb: '1e20' is out of range: more than 0 and at most 65536 "
                          "MiB (64 GiB)");
  CHECK(mvsim_set(&p, "host_slots=2e9", err, sizeof err) == -1);
  CHECK_STR_CONTAINS(err, "--set host_slots: '2e9' is out of range: 1 to 65536 packets");
  CHECK(mvsim_set(&p, "rto_us=1e300", err, sizeof err) == -1);
  CHECK_STR_CONTAINS(err, "--set rto_us: '1e300' is out of range: more than 0 and at most 1e11 us");
  CHECK(mvsim_set(&p, "ring_cap=96", err, sizeof err) == -1); /* not a power of two */
  CHECK(mvsim_set(&p, "ring_cap=65536", err, sizeof err) == 0 && p.ring_cap == 65536);
  /* Rounding to 0 in the stored unit is out of a range that excludes 0. */
  CHECK(mvsim_set(&p, "buffer_mb=0.0000001", err, sizeof err) == -1);
  CHECK_STR_CONTAINS(err, "--set buffer_mb: rounds to 0, out of range: more than 0");
  CHECK(mvsim_set(&p, "buffer_mb=0.000001", err, sizeof err) == 0 && p.buffer == 1);
  /* Keys of another congestion control: 0 is what presets leave, anything
   * else is checked like the experiment's own. */
  p = mvsim_params();
  CHECK(mvsim_set(&p, "dcqcn_g=0", err, sizeof err) == 0 && p.ccp.g == 0);
  CHECK(mvsim_set(&p, "dcqcn_g=5", err, sizeof err) == -1);
  CHECK(mvsim_set(&p, "dcqcn_g=0.5", err, sizeof err) == 0 && p.ccp.g == 0.5);
  /* The ECN table's rows at parse time. */
  CHECK(mvsim_set(&p, "ecn_by_link_gbps={\"100\":[-5,2,0.5]}", err, sizeof err) == -1);
  CHECK(mvsim_set(&p, "ecn_by_link_gbps={\"10000000\":[1,2,0.5]}", err, sizeof err) == -1);
  CHECK(mvsim_set(&p, "ecn_by_link_gbps={\"100\":[1,2,1.5]}", err, sizeof err) == -1);
  CHECK(mvsim_set(&p, "ecn_by_link_gbps={\"1000000\":[2097152,2097152,1]}", err, sizeof err) == 0);
}

static void presets_first(void) {
  const job_presets_t *ps = mvsim_presets();
  char err[512];
  int bad = -7;
  /* An explicit key wins over the preset whatever the order. */
  const char *a[] = {"hpcc_eta=0.5", "cc=hpcc"}, *b[] = {"cc=hpcc", "hpcc_eta=0.5"};
  eng_params_t p = ps->defaults, q = ps->defaults;
  CHECK(job_params_set_list(ps, &p, a, 2, &bad, err, sizeof err) == 0);
  CHECK(job_params_set_list(ps, &q, b, 2, &bad, err, sizeof err) == 0);
  CHECK(p.ccp.kind == CC_HPCC && p.ccp.eta == 0.5 && job_params_equal(&p, &q));
  CHECK(p.ccp.max_stage == 0 && p.ccp.fast_react == 1); /* the rest from the preset */
  /* dcqcn_paper sets Kmin 5 KiB; an explicit ecn_kmin_kb before it wins. */
  const char *c[] = {"ecn_kmin_kb=7", "dcqcn_g=0.5", "cc=dcqcn_paper"};
  p = ps->defaults;
  CHECK(job_params_set_list(ps, &p, c, 3, &bad, err, sizeof err) == 0);
  CHECK(p.ecn_kmin == 7 * 1024 && p.ecn_kmax == 200 * 1024 && p.ccp.g == 0.5);
  CHECK(p.ccp.alpha_timer == 55000000LL);
  /* A network preset follows cc and precedes every other key: ns3_hpcc's
   * 43-byte PFC frames and its HPCC header do not override explicit keys. */
  const char *e[] = {"pfc_frame_bytes=10", "header=70", "preset=ns3_hpcc", "cc=hpcc"};
  p = ps->defaults;
  CHECK(job_params_set_list(ps, &p, e, 4, &bad, err, sizeof err) == 0);
  CHECK(p.pfc_frame_bytes == 10 && p.header == 70 && p.mtu == 1000 && p.ccp.int_multi == 1);
  /* The first refused one is named, with its index; range checks see the kind
   * of the preset applied first. */
  const char *d[] = {"mtu=1000", "dcqcn_g=5", "cc=dcqcn"};
  p = ps->defaults;
  CHECK(job_params_set_list(ps, &p, d, 3, &bad, err, sizeof err) == -1 && bad == 1);
  CHECK_STR_CONTAINS(err, "--set dcqcn_g: '5' is out of range: more than 0 and at most 1");
}

/* The engine's own check, on stored values: each bound passes, one stored
 * unit past it (the next double for a real) fails naming the key and its
 * range, and -1 passes exactly where the key has a derived value. */
static void engine_bounds(void) {
  for (int i = 0; i < eng_n_params; i++) {
    const eng_param_info_t *k = &eng_param_info[i];
    const eng_range_t *r = &k->range;
    if (!r->numeric) continue;
    char want[512], err[512];
    snprintf(want, sizeof want, "%s: must be %s", k->key, r->words);
    for (int end = 0; end < 2; end++) {
      double bound = (end ? r->hi : r->lo) * k->scale;
      for (int past = 0; past < 3; past++) { /* the bound, one past it, -1 */
        eng_params_t p = base_for(job_key_find(k->key), end ? r->hi : r->lo);
        char *at = (char *)&p + k->off;
        double dv = past == 2 ? -1 : !past ? bound : nextafter(bound, end ? INFINITY : -INFINITY);
        int64_t iv = past == 2 ? -1 : (int64_t)bound + (past ? (end ? 1 : -1) : 0);
        if (past == 1 && iv == -1 && r->derived) iv = -2; /* -1 is the derived value */
        if (k->real) {
          memcpy(at, &dv, sizeof dv);
        } else if (k->size == 4) {
          if (iv > INT32_MAX) continue; /* past int32: not storable */
          int32_t v = (int32_t)iv;
          memcpy(at, &v, sizeof v);
        } else {
          memcpy(at, &iv, sizeof iv);
        }
        if (!k->real) dv = (double)iv;
        int ok = past == 0 ? (end || !r->lo_open) : past == 2 ? r->derived : 0;
        int rc = eng_params_check(&p, err, sizeof err);
        if ((rc == 0) != ok) {
          fprintf(stderr, "%s = %.17g (stored): %s, expected %s\n", k->key, dv,
                  rc ? err : "accepted", ok ? "accepted" : "refused");
          mvtest_failures++;
        } else if (rc && past != 2 && !strstr(err, want)) {
          fprintf(stderr, "%s = %.17g: \"%s\", expected \"%s\"\n", k->key, dv, err, want);
          mvtest_failures++;
        }
      }
    }
  }
}

int main(void) {
  every_key_bounded();
  bounds();
  specific();
  presets_first();
  engine_bounds();
  return mvtest_end();
}
