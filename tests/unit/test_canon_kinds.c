/* Canonical forms of every experiment kind: experiments written differently that
 * are one experiment (1 or 1.0, a default left out or written, a preset or its
 * values, a GPU's alias or its name, a topology's radix or the sizes it implies)
 * print one canonical text, hence one id; one changed value prints another; and
 * every canonical text reads back to itself. Network: job_exp_parse and
 * job_exp_canonical; training: job_train_parse and job_train_canonical. */
#include "jobs/job_train.h"
#include "mvsim.h"
#include "mvtest.h"
#include "trntest.h"

/* ---- network ---- */

static char *net_canon(const char *text) {
  char err[1024];
  job_exp_t x;
  json_t *o = json_loads(text, 0, NULL);
  CHECK(o != NULL);
  if (job_exp_parse(mvsim_presets(), o, "test", &x, err, sizeof err)) {
    fprintf(stderr, "%s: %s\n", text, err);
    exit(2);
  }
  json_decref(o);
  char *c = job_exp_canonical(&x);
  job_exp_free(&x);
  CHECK(c != NULL);
  return c;
}

static void network(void) {
  static const char *const same[] = {
      "{\"kind\":\"network\",\"network\":{\"topology\":{\"kind\":\"fat_tree\",\"k\":4},"
      "\"flows\":\"f.txt\",\"mtu\":4096}}",
      "{\"network\":{\"flows\":\"f.txt\",\"mtu\":4096.0,\"cc\":\"none\",\"topology\":{"
      "\"kind\":\"fat_tree\",\"tiers\":3,\"pods\":4,\"tors_per_pod\":2,\"aggs_per_pod\":2,"
      "\"cores\":4,\"hosts_per_tor\":2,\"link_gbps\":100.0,\"link_delay_ns\":1000}},"
      "\"kind\":\"network\"}",
  };
  char *a = net_canon(same[0]), *b = net_canon(same[1]), *c = net_canon(a);
  CHECK_STR_EQ(a, b);
  CHECK_STR_EQ(a, c); /* a fixed point */
  CHECK_STR_CONTAINS(a, "\"mtu\":4096,");
  CHECK_STR_CONTAINS(a, "\"hosts_per_tor\":2,");
  char *d = net_canon("{\"kind\":\"network\",\"network\":{\"topology\":{\"kind\":\"fat_tree\","
                      "\"k\":4,\"link_gbps\":400},\"flows\":\"f.txt\"}}");
  CHECK(strcmp(a, d) != 0);
  free(a);
  free(b);
  free(c);
  free(d);
}

/* ---- training ---- */

static char *train_canon(const char *text) {
  job_train_env_t env = {.presets = &trntest_presets, .network = mvsim_presets()};
  trn_exp_spec_t s;
  trn_problems_t pr = {0};
  json_t *o = json_loads(text, 0, NULL);
  CHECK(o != NULL);
  if (job_train_parse(&env, o, "test", &s, &pr)) {
    fprintf(stderr, "%s: %s\n", text, pr.msg[0]);
    exit(2);
  }
  json_decref(o);
  char *c = job_train_canonical(&s);
  CHECK(c != NULL);
  return c;
}

/* GPT-3 1.3B on 4 servers of 8 H200 (tp 2, pp 2: dp 8). */
#define GPT "{\"kind\":\"training\",\"model\":{\"preset\":\"gpt3-1.3b\"},"

static void training(void) {
  static const char *const same[] = {
      GPT "\"training\":{\"global_batch\":64,\"micro_batch\":1,\"tp\":2,\"pp\":2},"
          "\"cluster\":{\"gpu\":\"h200\",\"servers\":4},"
          "\"network\":{\"topology\":{\"kind\":\"rail_optimized\"},\"cc\":\"dcqcn\"}}",
      /* 1.0, dp and the bucket size written out, the network's defaults written */
      GPT "\"training\":{\"global_batch\":64,\"micro_batch\":1.0,\"tp\":2,\"pp\":2,\"dp\":8,"
          "\"bucket_params\":40000000,\"zero\":0},"
          "\"cluster\":{\"gpu\":\"h200\",\"servers\":4,\"gpus_per_server\":8},"
          "\"network\":{\"cc\":\"dcqcn\",\"link_gbps\":400,\"max_time_s\":3600}}",
      /* the model's shape instead of its preset; the topology sized by hand */
      "{\"model\":{\"layers\":24,\"hidden\":2048,\"heads\":16,\"vocab\":51200,"
      "\"seq_len\":2048},\"training\":{\"global_batch\":64,\"tp\":2,\"pp\":2},"
      "\"cluster\":{\"gpu\":\"h200\",\"servers\":4},\"network\":{\"cc\":\"dcqcn\","
      "\"topology\":{\"kind\":\"rail_optimized\",\"servers\":4,\"nics_per_server\":8,"
      "\"link_gbps\":400,\"host_gbps\":400.0}}}",
  };
  char *a = train_canon(same[0]), *f = train_canon(a);
  CHECK_STR_EQ(a, f); /* a fixed point */
  for (size_t i = 1; i < sizeof same / sizeof same[0]; i++) {
    char *b = train_canon(same[i]);
    CHECK_STR_EQ(a, b);
    free(b);
  }
  CHECK_STR_CONTAINS(a, "\"micro_batch\":1,");
  CHECK_STR_CONTAINS(a, "\"dp\":8,");
  CHECK_STR_CONTAINS(a, "\"bucket_params\":40000000,");
  CHECK_STR_CONTAINS(a, "\"gpu\":\"h200\",");
  CHECK_STR_CONTAINS(a, "\"max_time_s\":3600,");
  CHECK_STR_CONTAINS(a, "\"kind\":\"rail_optimized\",");
  CHECK(strstr(a, "preset") == NULL);
  /* One value changed: another experiment. */
  char *c = train_canon(GPT "\"training\":{\"global_batch\":64,\"micro_batch\":2,\"tp\":2,"
                            "\"pp\":2},\"cluster\":{\"gpu\":\"h200\",\"servers\":4},"
                            "\"network\":{\"topology\":{\"kind\":\"rail_optimized\"},"
                            "\"cc\":\"dcqcn\"}}");
  CHECK(strcmp(a, c) != 0);
  free(a);
  free(c);
  free(f);
  /* An imported workload: the unit and the dimensions filled, the file as written. */
  char *w = train_canon("{\"workload\":{\"file\":\"wl_toy.txt\"},\"cluster\":{\"gpu\":"
                        "\"a100-sxm4-80gb\",\"servers\":1}}");
  char *w2 = train_canon(w);
  CHECK_STR_EQ(w, w2);
  CHECK_STR_CONTAINS(w, "\"workload\":{\"dims\":[8,1],\"file\":\"wl_toy.txt\",\"unit_ps\":1000}");
  CHECK(strstr(w, "\"overlap_slowdown\"") == NULL); /* the build decides: measured times */
  CHECK_STR_CONTAINS(w, "\"gpu\":\"a100-80gb\",");
  free(w);
  free(w2);
}

int main(void) {
  if (trntest_init()) return 2;
  network();
  training();
  return mvtest_end();
}
