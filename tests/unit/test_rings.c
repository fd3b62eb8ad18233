/* Compact link rings: 200 one-byte flows into one host put 200 minimum-size
 * packets on one link within a window, more than a ring sized for MTU packets
 * holds. The overflow is detected, the experiment runs again with worst-case
 * rings, and the result equals the reference simulator and a run with large
 * rings given up front, to the picosecond. MULTIVERSE_RINGS=compact forces
 * that path; worst (and auto, the default, where worst-case rings add at most
 * half to the experiment's bytes: here with a 2 GB switch buffer) builds
 * worst-case rings at once: no second run, the same picoseconds. Every
 * column of a world holds at least one whole row, an empty table's too (the
 * CUDA backend moves max(rows, 1) rows of each). A batch that worst-case rings
 * would cut into more worlds takes compact ones, and those run again with
 * worst-case rings in as many worlds as their rows need. */
#define _GNU_SOURCE /* malloc_usable_size */
#include <malloc.h>
#include <stdlib.h>

#include "mvsim.h"
#include "mvtest.h"
#include "ref/ref.h"
#include "sim/eng_world.h"

#define N 200

/* The bytes of a world of x alone (the plan's estimate), its ring rows in *ring. */
static int64_t rows_bytes(const eng_exp_desc_t *x, int64_t *ring) {
  int64_t rows[ENG_T_COUNT];
  if (eng_world_rows(x, 0, rows)) return -1;
  *ring = rows[ENG_T_ring];
  eng_world_desc_t d = {.n_exps = 1, .exps = x};
  return eng_world_estimate(&d);
}

/* Runs experiment x alone under MULTIVERSE_RINGS=mode (NULL: unset); its
 * second runs in *parts; 0 when its tasks end as the reference's. */
static int run_mode(const char *mode, const eng_exp_desc_t *x, const ref_result_t *rr,
                    int32_t *parts) {
  if (mode)
    setenv("MULTIVERSE_RINGS", mode, 1);
  else
    unsetenv("MULTIVERSE_RINGS");
  eng_world_desc_t d = {.n_exps = 1, .exps = x};
  eng_world_t *w = NULL;
  char err[256];
  if (eng_world_create(&d, &w, err, sizeof err) || eng_world_run(w, ENG_BACKEND_CPU, err, sizeof err))
    return -1;
  eng_result_t r;
  eng_world_result(w, 0, &r);
  int bad = r.status != ENG_OK || r.packet_hops != rr->packet_hops;
  for (int i = 0; i < N; i++)
    bad |= eng_task_end(w, 0, i) != rr->end_ps[i];
  *parts = w->n_parts;
  eng_world_destroy(w);
  return bad;
}

/* Experiment e of w ended as the reference's run rr: status, packet-hops and
 * every task's end, each checked. */
static void check_ref(const eng_world_t *w, int32_t e, const ref_result_t *rr) {
  eng_result_t r;
  eng_world_result(w, e, &r);
  CHECK_EQ_I64(r.status, ENG_OK);
  CHECK_EQ_I64(r.packet_hops, rr->packet_hops);
  for (int i = 0; i < N; i++)
    CHECK_EQ_I64(eng_task_end(w, e, i), rr->end_ps[i]);
}

/* Columns of w whose memory holds fewer than max(rows, 1) rows of their type. */
static int short_columns(const eng_world_t *w) {
  int bad = 0;
#define SHORT_COL(tab, type, name)                                                                 \
  bad += malloc_usable_size(w->c.name) <                                                           \
         (size_t)(w->n[ENG_T_##tab] ? w->n[ENG_T_##tab] : 1) * sizeof(type);
  ENG_COLUMNS(SHORT_COL)
#undef SHORT_COL
  return bad;
}

int main(void) {
  setenv("MULTIVERSE_RINGS", "compact", 1);
  topo_t t = mvsim_star(N + 1, 100000000000LL, 1000000); /* host N receives */
  trf_flow_t f[N];
  for (int i = 0; i < N; i++)
    f[i] = mvsim_flow(i, N, 1, 0);
  trf_flows_t fl = {.n = N, .f = f};
  tg_t g = mvsim_tg(&fl);
  eng_params_t p = mvsim_params(), big = p;
  big.ring_cap = 1 << 12;
  eng_exp_desc_t ex[2] = {{.topo = &t, .tasks = &g, .params = &p, .seed = 5},
                          {.topo = &t, .tasks = &g, .params = &big, .seed = 5}};
  eng_world_desc_t d = {.n_exps = 2, .exps = ex};
  eng_world_t *w = NULL;
  char err[256];
  CHECK(eng_world_create(&d, &w, err, sizeof err) == 0);
  CHECK(w->n[ENG_T_pint] == 0 && w->n[ENG_T_tser] == 0); /* empty tables: no HPCC, no trace */
  CHECK_EQ_I64(short_columns(w), 0);
  CHECK(eng_world_run(w, ENG_BACKEND_CPU, err, sizeof err) == 0);
  /* The compact experiment overflowed and ran again; the large one did not. */
  CHECK(w->n_parts == 1 && w->part_of[0] == 0 && w->part_of[1] == -1);
  CHECK(w->c.exp_fail[0] == ENG_FAIL_RING);
  ref_result_t rr;
  if (ref_run(&t, &g, &p, 5, &rr)) return 2;
  CHECK(rr.status == REF_OK);
  for (int e = 0; e < 2; e++)
    check_ref(w, e, &rr);
  eng_world_destroy(w);

  /* The ring kind by MULTIVERSE_RINGS: on this star the rings are most of
   * the bytes (worst-case 3.2 times the compact world's, counted with
   * worst-case descriptor pools as auto counts them), so auto keeps compact
   * rings; with a switch buffer (its descriptor pool) of 512 MB 2.04 times,
   * still compact; of 640 MB 1.91 times, 1 GB 1.67, 2 GB 1.39: auto takes
   * worst-case rings (at most double; the two middle buffers hold the bound
   * to within 1.91-2.04). The world itself has compact pools, a quarter of
   * the worst-case ones, where MULTIVERSE_POOLS asks for them (auto gives
   * this experiment without congestion control worst-case ones). */
  static const int64_t buffers[5] = {0, 512LL << 20, 640LL << 20, 1LL << 30, 2LL << 30};
  for (int b = 0; b < 5; b++) {
    const int roomy = b >= 2;
    eng_params_t q = p;
    if (buffers[b]) q.buffer = buffers[b];
    eng_exp_desc_t x = ex[0];
    x.params = &q;
    int64_t ring_c = 0, ring_w = 0, ring_a = 0;
    setenv("MULTIVERSE_POOLS", "compact", 1);
    setenv("MULTIVERSE_RINGS", "compact", 1);
    int64_t bc = rows_bytes(&x, &ring_c);
    setenv("MULTIVERSE_RINGS", "worst", 1);
    int64_t bw = rows_bytes(&x, &ring_w);
    unsetenv("MULTIVERSE_RINGS");
    int64_t ba = rows_bytes(&x, &ring_a);
    setenv("MULTIVERSE_POOLS", "worst", 1); /* the bytes auto compares */
    setenv("MULTIVERSE_RINGS", "compact", 1);
    int64_t pc = rows_bytes(&x, &ring_c);
    setenv("MULTIVERSE_RINGS", "worst", 1);
    int64_t pw = rows_bytes(&x, &ring_w);
    unsetenv("MULTIVERSE_RINGS");
    unsetenv("MULTIVERSE_POOLS");
    printf("buffer %lld: ring rows compact %lld (world %lld bytes), worst %lld (%lld bytes), auto %lld\n",
           (long long)q.buffer, (long long)ring_c, (long long)bc, (long long)ring_w, (long long)bw,
           (long long)ring_a);
    CHECK_EQ_I64(ring_c, 402 * 128); /* 201 links, both directions */
    CHECK(ring_w > ring_c && bw > bc);
    CHECK_EQ_I64(ring_a, roomy ? ring_w : ring_c);
    CHECK_EQ_I64(ba, roomy ? bw : bc);
    CHECK(roomy ? pw <= 2 * pc : pw > 2 * pc);
    CHECK(pc > bc && pw > bw);
    int32_t parts = -1;
    CHECK(run_mode("compact", &x, &rr, &parts) == 0 && parts == 1);
    CHECK(run_mode("worst", &x, &rr, &parts) == 0 && parts == 0);
    CHECK(run_mode(NULL, &x, &rr, &parts) == 0 && parts == (roomy ? 0 : 1));
  }

  /* A batch whose worst-case rings (auto's choice, 640 MB buffers) would pass
   * a world's rows while compact ones fit (MULTIVERSE_WORLD_ROWS between the
   * two) is built in one world of compact rings, not cut into two; both
   * experiments overflow and run again with worst-case rings, two to a world
   * being too large, one per world: the reference's picoseconds. */
  {
    eng_params_t q = p;
    q.buffer = 640LL << 20;
    eng_exp_desc_t two[2] = {ex[0], ex[0]};
    two[0].params = two[1].params = &q;
    int64_t rc_[ENG_T_COUNT], rw_[ENG_T_COUNT], r1[ENG_T_COUNT], most_c = 0, most_w = 0, most_1 = 0;
    setenv("MULTIVERSE_RINGS", "compact", 1);
    CHECK(eng_world_batch_rows(2, two, 0, rc_, NULL) == 0);
    unsetenv("MULTIVERSE_RINGS");
    CHECK(eng_world_batch_rows(2, two, 1, rw_, NULL) == 0);
    CHECK(eng_world_batch_rows(1, two, 1, r1, NULL) == 0);
    for (int tab = 0; tab < ENG_T_COUNT; tab++) {
      if (rc_[tab] > most_c) most_c = rc_[tab];
      if (rw_[tab] > most_w) most_w = rw_[tab];
      if (r1[tab] > most_1) most_1 = r1[tab];
    }
    /* the limit: two compact and one worst-case fit, two worst-case do not */
    const int64_t limit = most_c > most_1 ? most_c : most_1;
    printf("most rows of a table: two experiments compact %lld, worst-case %lld; one worst-case "
           "%lld\n",
           (long long)most_c, (long long)most_w, (long long)most_1);
    CHECK(most_w > limit);
    char lim[32];
    snprintf(lim, sizeof lim, "%lld", (long long)limit);
    setenv("MULTIVERSE_WORLD_ROWS", lim, 1);
    int64_t ra[ENG_T_COUNT];
    uint8_t kind[2] = {9, 9};
    CHECK(eng_world_batch_rows(2, two, 0, ra, kind) == 0);
    CHECK(kind[0] == 0 && kind[1] == 0 && ra[ENG_T_ring] == rc_[ENG_T_ring]);
    snprintf(lim, sizeof lim, "%lld", (long long)most_c - 1); /* too large either way: auto's */
    setenv("MULTIVERSE_WORLD_ROWS", lim, 1);
    CHECK(eng_world_batch_rows(2, two, 0, ra, kind) == 0);
    CHECK(kind[0] == 1 && kind[1] == 1 && ra[ENG_T_ring] == rw_[ENG_T_ring]);
    snprintf(lim, sizeof lim, "%lld", (long long)limit);
    setenv("MULTIVERSE_WORLD_ROWS", lim, 1);
    setenv("MULTIVERSE_RINGS", "worst", 1); /* asked for: worst-case, too large */
    CHECK(eng_world_batch_rows(2, two, 0, ra, kind) == 0);
    CHECK(kind[0] == 1 && kind[1] == 1 && ra[ENG_T_ring] == rw_[ENG_T_ring]);
    unsetenv("MULTIVERSE_RINGS");
    eng_world_desc_t d2 = {.n_exps = 2, .exps = two};
    CHECK(eng_world_create(&d2, &w, err, sizeof err) == 0);
    CHECK(eng_world_run(w, ENG_BACKEND_CPU, err, sizeof err) == 0);
    CHECK(w->n_parts == 2 && w->part_of[0] == 0 && w->part_of[1] == 1);
    CHECK(w->c.exp_fail[0] == ENG_FAIL_RING && w->c.exp_fail[1] == ENG_FAIL_RING);
    for (int e = 0; e < 2; e++)
      check_ref(w, e, &rr);
    eng_world_destroy(w);
    unsetenv("MULTIVERSE_WORLD_ROWS");
  }
  ref_result_free(&rr);
  tg_free(&g);
  topo_free(&t);
  return mvtest_end();
}
