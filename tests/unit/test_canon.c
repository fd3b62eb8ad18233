/* Canonical text and experiment ids: every key prints in the user's units as
 * the exact decimal of what is stored and parses back to identical stored
 * values (presets and the ECN table included); keys are sorted; a fixed
 * experiment has a fixed id; the id changes with a referenced file's content
 * and not with the folder the job lives in; nothing is truncated.
 * Values that are not binary-exact print as the exact decimal of what is stored
 * (95.2001953125); the shortest decimal of a double: integers below 2^53 give
 * their own digits, random non-integers read back and lose their value without
 * their last digit. */
#define _POSIX_C_SOURCE 200809L
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jobs/job_param_int.h"
#include "mvsim.h"
#include "mvtest.h"

/* A value of each unit that is not a default and not binary-exact (and in
 * the key's range). */
static const char *value_for(const job_key_t *k, const eng_params_t *p) {
  if (strcmp(k->name, "ring_cap") == 0) return "65536"; /* a power of two */
  if (strcmp(k->name, "overlap_slowdown") == 0) return "1.3";
  if (strcmp(k->name, "dcqcn_min_rate_mbps") == 0) return "100.1";
  if (strcmp(k->name, "hpcc_int_multi") == 0) return "123";
  switch (k->unit) {
  case JOB_U_COUNT:
    return "12345";
  case JOB_U_BOOL:
    return *(const int32_t *)((const char *)p + k->off) ? "false" : "true";
  case JOB_U_KIB:
    return "95.2";
  case JOB_U_MIB:
    return "0.3";
  case JOB_U_US:
    return "1048.576";
  case JOB_U_S:
    return "0.0001";
  case JOB_U_REAL:
  case JOB_U_MBPS:
  case JOB_U_Q16:
    return "0.1";
  case JOB_U_LB:
    return "spray";
  case JOB_U_MODEL:
    return "flow";
  case JOB_U_CC:
    return "dctcp";
  default:
    return "{\"40\":[10.5,20,0.25],\"100\":[400,1600,0.2],\"8\":[1e-3,2,1]}";
  }
}

/* Parses canonical parameter text onto `start` (anything): identical stored
 * values and identical text again. */
static void round_trip(const eng_params_t *p, eng_params_t start, const char *what) {
  char *text = job_params_canonical(p), err[512];
  json_error_t je;
  json_t *o = json_loads(text, 0, &je);
  CHECK(o != NULL);
  CHECK(job_params_apply(mvsim_presets(), &start, o, NULL, "canon", err, sizeof err) == 0);
  char *again = job_params_canonical(&start);
  if (!job_params_equal(p, &start) || strcmp(text, again) != 0) {
    fprintf(stderr, "round trip of %s:\n%s\n%s\n", what, text, again);
    mvtest_failures++;
  }
  json_decref(o);
  free(text);
  free(again);
}

static void params_text(void) {
  const job_presets_t *ps = mvsim_presets();
  eng_params_t d = ps->defaults, other = d;
  char err[512], kv[256];
  CHECK(mvsim_set(&other, "cc=hpcc", err, sizeof err) == 0);
  CHECK(mvsim_set(&other, "mtu=1000", err, sizeof err) == 0);
  CHECK(mvsim_set(&other, "ecn_by_link_gbps={}", err, sizeof err) == 0);
  char *text = job_params_canonical(&d);
  /* Stored bytes and ps print in the key's unit. */
  CHECK_STR_CONTAINS(text, "{\"ack_every\":1,\"ack_pause\":false,\"ack_with_data\":false,");
  CHECK_STR_CONTAINS(text, "\"buffer_mb\":32,\"cc\":\"none\",");
  CHECK_STR_CONTAINS(text, "\"rto_us\":1048.576,");
  CHECK_STR_CONTAINS(text, "\"max_time_s\":10,");
  CHECK_STR_CONTAINS(text, "\"pfc_alpha\":0.125,");
  CHECK_STR_CONTAINS(text, "\"pfc\":true,");
  CHECK_STR_CONTAINS(text, "\"ecn_by_link_gbps\":{\"100\":[400,1600,0.2],\"1600\":[600,2400,0.2],"
                           "\"200\":[300,1200,0.8],\"25\":[100,400,0.2],\"400\":[800,3200,0.2],"
                           "\"50\":[200,800,0.2]},");
  /* Sorted keys, each key of the table once. */
  json_t *o = json_loads(text, 0, NULL);
  const char *key, *prev = "";
  json_t *v;
  int n = 0;
  json_object_foreach(o, key, v) {
    CHECK(strcmp(prev, key) < 0);
    CHECK(job_key_find(key) != NULL);
    prev = key;
    n++;
  }
  CHECK_EQ_I64(n, job_n_keys);
  json_decref(o);
  free(text);
  round_trip(&d, other, "the defaults");

  /* Every key, set to a value that is not binary-exact, reads back. */
  for (int i = 0; i < job_n_keys; i++) {
    eng_params_t p = d;
    snprintf(kv, sizeof kv, "%s=%s", job_keys[i].name, value_for(&job_keys[i], &p));
    if (mvsim_set(&p, kv, err, sizeof err)) {
      fprintf(stderr, "%s\n", err);
      mvtest_failures++;
    }
    round_trip(&p, other, kv);
  }
  /* Every preset, with the ECN thresholds it sets. */
  for (int i = 0; i < ps->n_cc; i++) {
    eng_params_t p = d;
    snprintf(kv, sizeof kv, "cc=%s", ps->cc[i].name);
    CHECK(mvsim_set(&p, kv, err, sizeof err) == 0);
    round_trip(&p, other, kv);
  }
  /* Exact decimals of what is stored, not of what was typed. */
  eng_params_t p = d;
  CHECK(mvsim_set(&p, "ecn_kmin_kb=95.2", err, sizeof err) == 0);
  CHECK(mvsim_set(&p, "buffer_mb=0.3", err, sizeof err) == 0);
  CHECK(mvsim_set(&p, "pfc_alpha=0.1", err, sizeof err) == 0);
  CHECK(mvsim_set(&p, "cc=dcqcn", err, sizeof err) == 0);
  CHECK(mvsim_set(&p, "dcqcn_min_rate_mbps=100.1", err, sizeof err) == 0);
  CHECK(mvsim_set(&p, "sync_us=0.000001", err, sizeof err) == 0);
  CHECK(mvsim_set(&p, "max_time_s=123456.789", err, sizeof err) == 0);
  text = job_params_canonical(&p);
  CHECK_STR_CONTAINS(text, "\"ecn_kmin_kb\":95.2001953125,");
  CHECK_STR_CONTAINS(text, "\"buffer_mb\":0.30000019073486328125,");
  CHECK_STR_CONTAINS(text, "\"pfc_alpha\":0.100006103515625,");
  CHECK_STR_CONTAINS(text, "\"dcqcn_g\":0.00390625,");
  CHECK_STR_CONTAINS(text, "\"dcqcn_min_rate_mbps\":100.1,");
  CHECK_STR_CONTAINS(text, "\"dcqcn_window_kb\":-1,");
  CHECK_STR_CONTAINS(text, "\"sync_us\":0.000001}");
  CHECK_STR_CONTAINS(text, "\"max_time_s\":123456.789,");
  CHECK_STR_CONTAINS(text, "\"cc\":\"dcqcn\",");
  free(text);
  round_trip(&p, other, "exact decimals");
}

/* A fixed experiment: every key given, an inline topology. Its canonical form
 * is this very text (the scheme of ids depends on it). */
static const char *fixed =
    "{\"kind\":\"network\",\"network\":{\"ack_every\":2,\"ack_pause\":false,"
    "\"ack_with_data\":false,\"base_rtt_ns3\":false,\"buffer_mb\":0.5,\"cc\":\"dcqcn\","
    "\"classes\":false,\"ctrl_bytes\":66,\"dcqcn_alpha_timer_us\":55,"
    "\"dcqcn_byte_counter_kb\":10240,\"dcqcn_clamp_target\":true,\"dcqcn_cnp_interval_us\":50,"
    "\"dcqcn_dec_interval_us\":50,\"dcqcn_fast_steps\":5,\"dcqcn_g\":0.00390625,"
    "\"dcqcn_min_rate_mbps\":1000,\"dcqcn_ns3\":false,\"dcqcn_rate_ai_mbps\":40,"
    "\"dcqcn_rate_hai_mbps\":80,\"dcqcn_rate_inc_timer_us\":55,\"dcqcn_var_window\":false,"
    "\"dcqcn_window_kb\":0,\"dctcp_g\":0,\"dctcp_init_cwnd_kb\":0,\"ecmp_ns3\":false,"
    "\"ecn\":true,\"ecn_by_link_gbps\":{\"100\":[400,1600,0.2]},\"ecn_kmax_kb\":200,"
    "\"ecn_kmin_kb\":5,\"ecn_pmax\":0.01,\"flowlet_gap_us\":10,\"flows\":\"f.txt\","
    "\"header\":62,\"host_slots\":64,\"hpcc_ai_mbps\":0,\"hpcc_eta\":0,"
    "\"hpcc_fast_react\":false,\"hpcc_global_t\":false,\"hpcc_int_multi\":0,"
    "\"hpcc_max_stage\":0,\"hpcc_min_rate_mbps\":0,\"hpcc_ns3\":false,\"lb\":\"ecmp\","
    "\"max_time_s\":10,\"model\":\"packet\",\"mtu\":4096,\"overlap_slowdown\":1,\"pfc\":true,"
    "\"pfc_alpha\":0.125,"
    "\"pfc_alpha_by_rate\":false,\"pfc_frame_bytes\":0,\"pfc_headroom_bdp\":-1,"
    "\"pfc_reserve_kb\":0,\"pfc_resume_kb\":3,\"pfc_xoff_kb\":0,\"pool_pkts\":0,"
    "\"reorder\":false,\"ring_cap\":0,\"rto_us\":1048.576,\"ser_floor_ns\":false,"
    "\"standalone_header\":-1,\"sync_us\":1,\"topology\":{\"host_delay_ns\":1000,"
    "\"host_gbps\":100,\"hosts_per_leaf\":2,\"kind\":\"fat_tree\",\"leaves\":4,"
    "\"link_delay_ns\":0.5,\"link_gbps\":12.5,\"spines\":2,\"tiers\":2}}}";
/* job_id_hash(fixed, {digest of "1\n0 1 3 100 4096 0\n"}): computed once, by
 * this code and independently from the scheme in docs/engine.md. */
#define FIXED_ID 0x4b5098995fae2c0eULL

static void write_file(const char *dir, const char *name, const char *text) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "w");
  if (!f) exit(2);
  fputs(text, f);
  fclose(f);
}

static job_exp_t parse_exp(const char *text) {
  job_exp_t x;
  char err[512];
  json_t *o = json_loads(text, 0, NULL);
  if (job_exp_parse(mvsim_presets(), o, "test", &x, err, sizeof err)) {
    fprintf(stderr, "%s\n", err);
    exit(2);
  }
  json_decref(o);
  return x;
}

static void experiments(void) {
  char err[512], dir[] = "/tmp/mv_canon_XXXXXX", dir2[] = "/tmp/mv_canon_XXXXXX";
  if (!mkdtemp(dir) || !mkdtemp(dir2)) exit(2);
  const char *flows = "1\n0 1 3 100 4096 0\n";
  write_file(dir, "f.txt", flows);
  write_file(dir, "g.txt", flows);
  write_file(dir2, "f.txt", flows);
  /* The digest is 64-bit FNV-1a (its published test vector for "foobar"). */
  write_file(dir, "foobar", "foobar");
  char path[512];
  uint64_t dg, df;
  snprintf(path, sizeof path, "%s/foobar", dir);
  CHECK(job_file_digest(path, &dg, err, sizeof err) == 0 && dg == 0x85944171f73967e8ULL);
  snprintf(path, sizeof path, "%s/f.txt", dir);
  CHECK(job_file_digest(path, &df, err, sizeof err) == 0);

  /* The fixed experiment: canonical text and id. */
  job_exp_t x = parse_exp(fixed);
  char *canon = job_exp_canonical(&x);
  CHECK(strcmp(canon, fixed) == 0);
  if (strcmp(canon, fixed)) fprintf(stderr, "canonical:\n%s\n", canon);
  uint64_t id, id2;
  job_digests_t *cache = job_digests_new();
  CHECK(job_exp_id(&x, dir, cache, &id, err, sizeof err) == 0);
  CHECK(id == job_id_hash(fixed, &df, 1));
  if (id != FIXED_ID) {
    fprintf(stderr, "id %016llx, expected %016llx\n", (unsigned long long)id,
            (unsigned long long)FIXED_ID);
    mvtest_failures++;
  }
  /* The same job in another folder: the same id. */
  CHECK(job_exp_id(&x, dir2, NULL, &id2, err, sizeof err) == 0 && id2 == id);
  /* The same content under another name: another experiment text, another id. */
  free(x.flows_file);
  x.flows_file = strdup("g.txt");
  CHECK(job_exp_id(&x, dir, cache, &id2, err, sizeof err) == 0 && id2 != id);
  /* An edited flow file: another id (read again, not remembered). */
  write_file(dir2, "f.txt", "1\n0 1 3 100 4097 0\n");
  free(x.flows_file);
  x.flows_file = strdup("f.txt");
  CHECK(job_exp_id(&x, dir2, NULL, &id2, err, sizeof err) == 0 && id2 != id);
  /* A missing file is an error naming it. */
  CHECK(job_exp_id(&x, "/nonexistent", NULL, &id2, err, sizeof err) == -1);
  CHECK_STR_CONTAINS(err, "/nonexistent/f.txt");
  /* A parameter changes the id; the experiment round-trips. */
  x.params.ack_every = 3;
  char *c3 = job_exp_canonical(&x);
  CHECK(job_id_hash(c3, &df, 1) != id);
  job_exp_t y = parse_exp(c3);
  char *c4 = job_exp_canonical(&y);
  CHECK(strcmp(c3, c4) == 0 && job_params_equal(&x.params, &y.params));
  free(c3);
  free(c4);
  job_exp_free(&y);

  /* No truncation: a path of 20000 characters is all there, and its last one
   * matters. */
  char *longp = malloc(20001);
  memset(longp, 'a', 20000);
  longp[20000] = 0;
  free(x.flows_file);
  x.flows_file = longp;
  char *ca = job_exp_canonical(&x);
  longp[19999] = 'b';
  char *cb = job_exp_canonical(&x);
  CHECK(strlen(ca) > 20000 && strstr(ca, x.flows_file) == NULL && strcmp(ca, cb) != 0);
  CHECK(job_id_hash(ca, &df, 1) != job_id_hash(cb, &df, 1));
  free(ca);
  free(cb);

  /* A topology file that is JSON naming an ns-3 file: both are hashed. */
  write_file(dir, "t.json", "{\"kind\":\"file\",\"path\":\"t.txt\"}");
  write_file(dir, "t.txt", "3 1 2\n2\n0 2 100Gbps 0.001ms 0\n1 2 100Gbps 0.001ms 0\n");
  job_exp_t z = parse_exp("{\"kind\":\"network\",\"network\":{\"topology\":\"t.json\","
                          "\"flows\":\"f.txt\"}}");
  uint64_t d3[3];
  snprintf(path, sizeof path, "%s/t.json", dir);
  CHECK(job_file_digest(path, &d3[0], err, sizeof err) == 0);
  snprintf(path, sizeof path, "%s/t.txt", dir);
  CHECK(job_file_digest(path, &d3[1], err, sizeof err) == 0);
  d3[2] = df;
  char *cz = job_exp_canonical(&z);
  CHECK(job_exp_id(&z, dir, cache, &id2, err, sizeof err) == 0 && id2 == job_id_hash(cz, d3, 3));
  CHECK_STR_CONTAINS(cz, "\"topology\":\"t.json\"}}");
  free(cz);
  job_exp_free(&z);

  /* Errors name the JSON path. */
  struct {
    const char *text, *msg;
  } bad[] = {
      {"{\"kind\":\"train\",\"network\":{}}", "test.kind: expected \"network\""},
      {"{\"kind\":\"network\",\"network\":{\"topology\":\"t\"}}", "test.network.flows: expected"},
      {"{\"kind\":\"network\",\"network\":{\"topology\":\"t\",\"flows\":\"f\",\"mtu\":\"x\"}}",
       "test.network.mtu: expected an integer"},
      {"{\"kind\":\"network\",\"network\":{\"topology\":\"t\",\"flows\":\"f\",\"nope\":1}}",
       "test.network.nope: unknown key"},
      {"{\"kind\":\"network\",\"extra\":1}", "test.extra: unknown member"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    json_t *o = json_loads(bad[i].text, 0, NULL);
    CHECK(job_exp_parse(mvsim_presets(), o, "test", &y, err, sizeof err) == -1);
    CHECK_STR_CONTAINS(err, bad[i].msg);
    json_decref(o);
  }
  free(canon);
  job_exp_free(&x);
  job_digests_free(cache);
  const char *files[] = {"f.txt", "g.txt", "foobar", "t.json", "t.txt"};
  for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
    snprintf(path, sizeof path, "%s/%s", dir, files[i]);
    unlink(path);
  }
  snprintf(path, sizeof path, "%s/f.txt", dir2);
  unlink(path);
  rmdir(dir);
  rmdir(dir2);
}

/* The shortest decimal of a double (job_dec_from_double): an integer below
 * 2^53 is its own digits less trailing zeros (exp counts them), whatever its
 * size; other values read back to the same double and lose it without their
 * last digit. */
static void shortest_decimals(void) {
  uint64_t s = 7;
  for (int i = 0; i < 20000; i++) {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    int64_t k = (int64_t)(s >> (11 + (s >> 3) % 50)); /* 2^0 .. 2^53 */
    if (i % 3 == 0) k *= 1000;                        /* trailing zeros */
    if (k >= (1LL << 53)) k /= 1024;
    if (i % 2) k = -k;
    job_dec_t d;
    CHECK(job_dec_from_double((double)k, &d) == 0);
    char want[32];
    int64_t m = k < 0 ? -k : k;
    int zeros = 0;
    while (m && m % 10 == 0) {
      m /= 10;
      zeros++;
    }
    snprintf(want, sizeof want, "%lld", (long long)m);
    int ok = k == 0 ? d.n == 0 : strcmp(d.digits, want) == 0 && d.exp == zeros && d.neg == (k < 0);
    if (!ok) printf("%lld: %s e%d\n", (long long)k, d.digits, d.exp);
    CHECK(ok);
  }
  const double x[] = {0.1, 1.5e-7, 3.0517578125e-05, 2.5e30, 0x1p53 + 2, 1e300, -0.0078125};
  for (size_t i = 0; i < sizeof x / sizeof *x; i++) {
    job_dec_t d;
    CHECK(job_dec_from_double(x[i], &d) == 0);
    CHECK(job_dec_to_double(&d, 0) == x[i]);
    if (d.n > 1) { /* one digit fewer (truncated) reads as another double */
      job_dec_t e = d;
      e.digits[--e.n] = 0;
      e.exp++;
      CHECK(job_dec_to_double(&e, 0) != x[i]);
    }
  }
  /* Random non-integers, each twice: the same digits, read back to the same
   * double, the shortest. */
  for (int i = 0; i < 4000; i++) {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    double v = ldexp((double)(s >> 11), -(int)(s % 90)) + 0.5;
    job_dec_t a, b, c;
    CHECK(job_dec_from_double(v, &a) == 0 && job_dec_from_double(v, &b) == 0);
    CHECK(a.n == b.n && a.exp == b.exp && a.neg == b.neg && strcmp(a.digits, b.digits) == 0);
    CHECK(job_dec_to_double(&a, 0) == v);
    c = a;
    if (c.n > 1) {
      c.digits[--c.n] = 0;
      c.exp++;
      CHECK(job_dec_to_double(&c, 0) != v);
    }
  }
  job_dec_t z;
  CHECK(job_dec_from_double(-0.0, &z) == 0 && z.n == 0 && z.neg == 0);
  CHECK(job_dec_from_double(NAN, &z) == -1);
}

int main(void) {
  shortest_decimals();
  params_text();
  experiments();
  return mvtest_end();
}
