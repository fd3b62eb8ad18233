/* Network parameters: the presets file loads; `--set` converts units exactly
 * and rejects unknown keys and bad values naming them; presets set what their
 * sources say; the canonical text (hashed into experiment ids) is valid JSON
 * with sorted keys and changes with every parameter. */
#include <jansson.h>

#include "mvsim.h"
#include "mvtest.h"

static json_t *canonical(const eng_params_t *p) {
  char buf[8192];
  int n = eng_params_canonical(p, buf, sizeof buf);
  CHECK(n > 0 && n < (int)sizeof buf);
  json_error_t je;
  json_t *o = json_loads(buf, 0, &je);
  CHECK(o != NULL);
  return o;
}

int main(void) {
  eng_params_t p = mvsim_params();
  char err[512];
  /* Defaults and their units. */
  CHECK_EQ_I64(p.mtu, 4096);
  CHECK_EQ_I64(p.buffer, 32LL << 20);
  CHECK_EQ_I64(p.rto, 1048576000LL); /* 1048.576 us in ps */
  CHECK_EQ_I64(p.pfc_resume, 3 * 1024);
  CHECK_EQ_I64(p.flowlet_gap, 10000000LL); /* 10 us */
  CHECK(p.ccp.kind == CC_NONE && p.lb == ENG_LB_ECMP && p.pfc == 1 && p.reorder == 0);
  /* The SimAI table by port speed: 100G -> 400/1600 KB, 0.2; 400G -> 800/3200. */
  int64_t kmin, kmax;
  double pmax;
  eng_params_ecn_for(&p, 100000000000LL, &kmin, &kmax, &pmax);
  CHECK(kmin == 400 * 1024 && kmax == 1600 * 1024 && pmax == 0.2);
  eng_params_ecn_for(&p, 400000000000LL, &kmin, &kmax, &pmax);
  CHECK(kmin == 800 * 1024 && kmax == 3200 * 1024);
  eng_params_ecn_for(&p, 10000000000LL, &kmin, &kmax, &pmax); /* below the table: lowest row */
  CHECK(kmin == 100 * 1024);
  /* --set. */
  CHECK(eng_params_set(&p, "buffer_mb=0.5", err, sizeof err) == 0 && p.buffer == 524288);
  CHECK(eng_params_set(&p, "rto_us=2.5", err, sizeof err) == 0 && p.rto == 2500000);
  CHECK(eng_params_set(&p, "pfc=off", err, sizeof err) == 0 && p.pfc == 0);
  CHECK(eng_params_set(&p, "lb=adaptive", err, sizeof err) == 0 && p.lb == ENG_LB_ADAPTIVE);
  CHECK(eng_params_set(&p, "nope=1", err, sizeof err) == -1);
  CHECK_STR_CONTAINS(err, "unknown key 'nope'");
  CHECK(eng_params_set(&p, "mtu=12.5", err, sizeof err) == -1);
  CHECK_STR_CONTAINS(err, "mtu");
  CHECK(eng_params_set(&p, "ack_every", err, sizeof err) == -1);
  CHECK_STR_CONTAINS(err, "KEY=VALUE");
  eng_params_t q = p;
  CHECK(eng_params_set(&q, "ring_cap=3", err, sizeof err) == 0);
  CHECK(eng_params_check(&q, err, sizeof err) == -1);
  CHECK_STR_CONTAINS(err, "power of two");
  /* Presets. */
  CHECK(eng_params_set(&p, "cc=dcqcn_paper", err, sizeof err) == 0);
  CHECK(p.ccp.kind == CC_DCQCN && p.ccp.alpha_timer == 55000000LL && p.ccp.fast_steps == 5);
  CHECK(p.ecn_kmin == 5 * 1024 && p.ecn_kmax == 200 * 1024 && p.ecn_pmax == 0.01);
  CHECK(eng_params_set(&p, "dcqcn_fast_steps=3", err, sizeof err) == 0 && p.ccp.fast_steps == 3);
  CHECK(eng_params_set(&p, "cc=hpcc", err, sizeof err) == 0);
  CHECK(p.ccp.kind == CC_HPCC && p.ccp.eta == 0.95 && p.ccp.max_stage == 0 && p.ccp.fast_react);
  CHECK(eng_params_check(&p, err, sizeof err) == 0);
  CHECK(eng_params_set(&p, "cc=cubic", err, sizeof err) == -1);
  CHECK_STR_CONTAINS(err, "unknown congestion control 'cubic'");
  /* Canonical text: JSON, keys in sorted order, sensitive to each parameter. */
  json_t *a = canonical(&p);
  const char *key, *prev = "";
  json_t *v;
  int n = 0;
  json_object_foreach(a, key, v) {
    CHECK(strcmp(prev, key) < 0);
    prev = key;
    n++;
  }
  CHECK(n > 40);
  CHECK_STR_CONTAINS(json_string_value(json_object_get(a, "cc")), "hpcc");
  eng_params_t r = p;
  CHECK(eng_params_set(&r, "reorder=true", err, sizeof err) == 0);
  json_t *b = canonical(&r);
  CHECK(!json_equal(a, b));
  json_decref(a);
  json_decref(b);
  return mvtest_end();
}
