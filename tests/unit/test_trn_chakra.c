/* Chakra execution traces as training workloads: ASTRA-sim's own microbenchmarks
 * (tests/data/peers/astra-sim, unchanged) end at the closed form of our ring over a
 * star; its MSCCL ring all-reduce of sends, receives and compute nodes at the closed
 * form of its chain; traces written here with protobuf-c check dependencies (data and
 * control), the one-at-a-time resources, the roofline, communicator groups, and that
 * every field this simulator cannot model is refused by name. */
#define _DEFAULT_SOURCE /* mkdtemp */
#include <unistd.h>

#include "trn_et.pb-c.h"
#include "trnexp.h"

#define PS_US 1000000LL

static char dir[64];

/* ---- closed forms on the star of 400 Gb/s links of 250 ns (one switch) ---- */

static const int64_t rate = 400000000000LL, d = 250000;
static eng_params_t par;

static int64_t ser(int64_t bytes) {
  return (bytes * 8 * 1000000000000LL + rate - 1) / rate;
}

/* A flow of b bytes (whole packets) on the idle star, from its start to the reception
 * of its last packet: P packets serialised, the last forwarded once more, two links. */
static int64_t recv_time(uint64_t b) {
  int64_t P = (int64_t)(b / (uint64_t)par.mtu);
  return (P + 1) * ser(par.mtu + par.header) + 2 * d;
}

/* ... and to the sender's last ACK (one per flow): back over two links. */
static int64_t end_time(uint64_t b) {
  return recv_time(b) + 2 * (ser(par.ctrl_bytes) + d);
}

/* A ring of `steps` steps of b bytes (test_coll_closed.c derives it): each step after
 * the first waits for the ACK that goes first on the link. */
static int64_t ring(int steps, uint64_t b) {
  int64_t A = ser(par.ctrl_bytes);
  return steps * recv_time(b) + (steps - 1) * A + 2 * (A + d);
}

/* An experiment of the trace set `file` on `servers` servers of `gps` GPUs each, with
 * `wl` more workload keys and `net` network keys (JSON members, may be ""). */
static char *exp_text(const char *file, int servers, int gps, const char *wl, const char *net) {
  char *s = malloc(2048);
  snprintf(s, 2048,
           "{\"workload\": {\"file\": \"%s\"%s}, \"cluster\": {\"gpu\": \"h100-sxm\", \"servers\": "
           "%d, \"gpus_per_server\": %d, \"nics_per_server\": %d}, \"network\": {\"link_delay_ns\": "
           "250, \"ack_every\": 1073741824%s}}",
           file, wl, servers, gps, gps, net);
  return s;
}

/* Runs n experiments; their end times (ps, -1 if not run) into end[]. */
static void run(int n, char **text, trn_exp_t *x, int64_t *end, trn_result_t *res) {
  int32_t slot[32];
  eng_batch_t *b = trnexp_run(n, (const char *const *)text, x, slot, ENG_BACKEND_CPU, 1);
  for (int i = 0; i < n; i++) {
    end[i] = -1;
    if (slot[i] >= 0 && b) {
      eng_result_t er;
      eng_exp_result(b, slot[i], &er);
      CHECK_EQ_I64(er.status, ENG_OK);
      end[i] = er.end_ps;
    }
    if (res) res[i] = trnexp_result(x, slot[i] >= 0 ? b : NULL, slot, i);
  }
  eng_batch_destroy(b);
}

/* ASTRA-sim's examples/workload/microbenchmarks: 1 MiB all-reduce, all-gather,
 * reduce-scatter and all-to-all on 4, 8 and 16 NPUs, one per server: rings of 2(n-1)
 * steps of S/n, n-1 steps of S (all-gather: comm_size is each rank's part, as in
 * ASTRA-sim's ring), n-1 steps of S/n; the all-to-all's n-1 flows of S/n from each NPU
 * share its link packet by packet, each receiver's link carrying one packet from each
 * sender in turn, so the NIC sends (n-1) S/n bytes back to back and no queue forms. */
static void microbenchmarks(void) {
  const char *coll[4] = {"all_reduce", "all_gather", "reduce_scatter", "all_to_all"};
  const int npus[3] = {4, 8, 16};
  char *text[12];
  trn_exp_t x[12];
  int64_t end[12];
  for (int c = 0; c < 4; c++)
    for (int k = 0; k < 3; k++) {
      char f[256];
      snprintf(f, sizeof f, "peers/astra-sim/workload/microbenchmarks/%s/%dnpus_1MB", coll[c],
               npus[k]);
      text[3 * c + k] = exp_text(f, npus[k], 1, "", "");
    }
  run(12, text, x, end, NULL);
  par = x[0].params;
  const uint64_t S = 1 << 20;
  for (int c = 0; c < 4; c++)
    for (int k = 0; k < 3; k++) {
      int n = npus[k], i = 3 * c + k;
      int64_t want = c == 0   ? ring(2 * (n - 1), S / (uint64_t)n)
                     : c == 1 ? ring(n - 1, S)
                     : c == 2 ? ring(n - 1, S / (uint64_t)n)
                              : end_time((uint64_t)(n - 1) * (S / (uint64_t)n));
      printf("%s %d NPUs: %.6f us (closed form %.6f us)\n", coll[c], n, end[i] / 1e6, want / 1e6);
      /* 16 NPUs: the ACKs of the flows' last packets may meet on their way back, one
       * ACK behind up to n - 2 others on the sender's link */
      if (c == 3 && n == 16) {
        CHECK(end[i] > want && end[i] <= want + (n - 2) * ser(par.ctrl_bytes));
        CHECK_EQ_I64((end[i] - want) % ser(par.ctrl_bytes), 0); /* 7 of them */
        printf("  %lld ps after, %lld ps an ACK\n", (long long)(end[i] - want),
               (long long)ser(par.ctrl_bytes));
      } else
        CHECK_EQ_I64(end[i], want);
      CHECK_EQ_I64(x[i].graph.n_gpus, n);
      if (c == 3) CHECK_EQ_I64(x[i].graph.n_flows, n * (n - 1));
    }
  for (int i = 0; i < 12; i++) {
    trn_exp_free(&x[i]);
    free(text[i]);
  }
}

/* examples/system/custom_collectives: MSCCL's ring all-reduce of 8 ranks as 14 sends,
 * 14 receives and 7 reduce (compute) nodes of 7 us per rank, one chain each. A send
 * ends when acknowledged (E), a receive once its data is in and it is posted (after
 * the previous send's end), so each step takes E, and 7 of them 7 us more. */
static void custom_allreduce(void) {
  char *text[1] = {exp_text(
      "peers/astra-sim/system/custom_collectives/custom_ring_allreduce_8npus_1MB/"
      "custom_allreduce.5.et",
      8, 1, "", "")};
  trn_exp_t x[1];
  int64_t end[1];
  trn_result_t r[1];
  run(1, text, x, end, r);
  par = x[0].params;
  int64_t want = 14 * end_time(131072) + 7 * 7 * PS_US;
  printf("MSCCL ring all-reduce: %.3f us (closed form %.3f us)\n", end[0] / 1e6, want / 1e6);
  CHECK_EQ_I64(end[0], want);
  CHECK_EQ_I64(x[0].graph.n_flows, 8 * 14);
  CHECK_EQ_I64(x[0].graph.flow_bytes, 8 * 14 * 131072LL);
  CHECK(r[0].v[TRN_R_compute_s] == 49e-6);
  trn_exp_free(&x[0]);
  free(text[0]);
}

/* ---- traces written here ---- */

typedef struct nd_t {
  uint64_t id;
  TrnEt__Kind kind;
  uint64_t dur_us;
  uint64_t data[4], ctrl[4];
  int n_data, n_ctrl;
  TrnEt__Attr *attr[8];
  int n_attr;
  const char *values; /* inputs.values, NULL: none */
} nd_t;

static TrnEt__Attr *a_int(const char *name, int64_t v) {
  TrnEt__Attr *a = malloc(sizeof *a);
  trn_et__attr__init(a);
  a->name = (char *)name;
  a->value_case = TRN_ET__ATTR__VALUE_I64;
  a->i64 = v;
  return a;
}

static TrnEt__Attr *a_i32(const char *name, int32_t v) {
  TrnEt__Attr *a = a_int(name, 0);
  a->value_case = TRN_ET__ATTR__VALUE_I32;
  a->i32 = v;
  return a;
}

static TrnEt__Attr *a_flag(const char *name, int v) {
  TrnEt__Attr *a = a_int(name, 0);
  a->value_case = TRN_ET__ATTR__VALUE_FLAG;
  a->flag = v;
  return a;
}

static TrnEt__Attr *a_text(const char *name, const char *v) {
  TrnEt__Attr *a = a_int(name, 0);
  a->value_case = TRN_ET__ATTR__VALUE_TEXT;
  a->text = (char *)v;
  return a;
}

static TrnEt__Attr *a_flags(const char *name, int n, const protobuf_c_boolean *v) {
  TrnEt__Attr *a = a_int(name, 0);
  TrnEt__Flags *f = malloc(sizeof *f);
  trn_et__flags__init(f);
  f->n_v = (size_t)n;
  f->v = (protobuf_c_boolean *)v;
  a->value_case = TRN_ET__ATTR__VALUE_FLAGS;
  a->flags = f;
  return a;
}

static void put(FILE *fp, const ProtobufCMessage *m) {
  size_t n = protobuf_c_message_get_packed_size(m), k = 0;
  uint8_t hdr[10], *buf = malloc(n + 1);
  for (size_t v = n;; v >>= 7) {
    hdr[k++] = (uint8_t)((v & 0x7f) | (v >= 0x80 ? 0x80 : 0));
    if (v < 0x80) break;
  }
  protobuf_c_message_pack(m, buf);
  CHECK(fwrite(hdr, 1, k, fp) == k && fwrite(buf, 1, n, fp) == n);
  free(buf);
}

/* Writes dir/name.rank.et: the metadata, then the nodes; frees their attributes. */
static void write_rank(const char *name, int rank, nd_t *nodes, int n) {
  char path[256];
  snprintf(path, sizeof path, "%s/%s.%d.et", dir, name, rank);
  FILE *fp = fopen(path, "wb");
  CHECK(fp != NULL);
  TrnEt__Meta meta = TRN_ET__META__INIT;
  meta.version = "0.0.4";
  put(fp, &meta.base);
  for (int i = 0; i < n; i++) {
    TrnEt__Node x = TRN_ET__NODE__INIT;
    TrnEt__Io io = TRN_ET__IO__INIT;
    char nm[32];
    snprintf(nm, sizeof nm, "node%llu", (unsigned long long)nodes[i].id);
    x.id = nodes[i].id;
    x.name = nm;
    x.kind = nodes[i].kind;
    x.duration_us = nodes[i].dur_us;
    x.n_data_deps = (size_t)nodes[i].n_data;
    x.data_deps = nodes[i].data;
    x.n_ctrl_deps = (size_t)nodes[i].n_ctrl;
    x.ctrl_deps = nodes[i].ctrl;
    x.n_attr = (size_t)nodes[i].n_attr;
    x.attr = nodes[i].attr;
    if (nodes[i].values) {
      io.values = (char *)nodes[i].values;
      x.inputs = &io;
    }
    put(fp, &x.base);
    for (int k = 0; k < nodes[i].n_attr; k++) {
      if (nodes[i].attr[k]->value_case == TRN_ET__ATTR__VALUE_FLAGS) free(nodes[i].attr[k]->flags);
      free(nodes[i].attr[k]);
    }
  }
  CHECK(fclose(fp) == 0);
}

static nd_t comp(uint64_t id, uint64_t us) {
  return (nd_t){.id = id, .kind = TRN_ET__KIND__KIND_COMP, .dur_us = us};
}

static nd_t coll(uint64_t id, int type, int64_t bytes) {
  nd_t x = {.id = id, .kind = TRN_ET__KIND__KIND_COLL};
  x.attr[x.n_attr++] = a_int("comm_type", type);
  x.attr[x.n_attr++] = a_int("comm_size", bytes);
  return x;
}

static nd_t p2p(uint64_t id, int send, int peer, int64_t bytes) {
  nd_t x = {.id = id, .kind = send ? TRN_ET__KIND__KIND_SEND : TRN_ET__KIND__KIND_RECV};
  x.attr[x.n_attr++] = a_i32(send ? "comm_dst" : "comm_src", peer);
  x.attr[x.n_attr++] = a_int("comm_size", bytes);
  x.attr[x.n_attr++] = a_i32("comm_tag", 7);
  return x;
}

/* Two ranks, one per server, each: A 10 us; B 20 us after A (data); C 5 us after A
 * (control), which waits for B too (one GPU compute node at a time, in id order); an
 * all-reduce of 16 KiB after B (data) and C (control); D 1 us after it: 35 us +
 * ring(2, 8 KiB) + 1 us. A dropped control dependency or resource would start the
 * all-reduce at 30 us. */
static void deps_and_resources(char **text, int *n) {
  for (int r = 0; r < 2; r++) {
    nd_t v[5] = {comp(1, 10), comp(2, 20), comp(3, 5), coll(4, 0, 16384), comp(5, 1)};
    v[1].data[v[1].n_data++] = 1;
    v[2].ctrl[v[2].n_ctrl++] = 1;
    v[3].data[v[3].n_data++] = 2;
    v[3].ctrl[v[3].n_ctrl++] = 3;
    v[4].data[v[4].n_data++] = 4;
    write_rank("deps", r, v, 5);
  }
  char f[128];
  snprintf(f, sizeof f, "%s/deps", dir);
  text[(*n)++] = exp_text(f, 2, 1, "", "");
}

/* One rank: a GPU node of 2^34 FLOPs over 1 MB and no duration (the roofline), a CPU
 * node of 3 us beside it, then a GPU node with neither (ASTRA-sim's 1 ns). */
static void roofline(char **text, int *n) {
  nd_t v[3] = {comp(1, 0), comp(2, 3), comp(3, 0)};
  v[0].attr[v[0].n_attr++] = a_int("num_ops", (int64_t)1 << 34);
  v[0].attr[v[0].n_attr++] = a_int("tensor_size", 1000000);
  v[1].attr[v[1].n_attr++] = a_flag("is_cpu_op", 1);
  v[2].attr[v[2].n_attr++] = a_flag("is_cpu_op", 0);
  write_rank("roof", 0, v, 3);
  char f[128];
  snprintf(f, sizeof f, "%s/roof.0.et", dir);
  text[(*n)++] = exp_text(f, 1, 1, "", "");
}

/* Four ranks on two servers of two: all-reduces in groups {0, 2} and {1, 3} (a groups
 * file), one from process-group metadata ("8": ranks 0 and 1, inside server 0), and
 * a send from rank 1 to rank 3 (a flow between servers). */
static void groups(char **text, int *n) {
  char gpath[160];
  snprintf(gpath, sizeof gpath, "%s/groups.json", dir);
  FILE *fp = fopen(gpath, "w");
  CHECK(fp && fputs("{\"1\": [0, 2], \"2\": [1, 3]}\n", fp) >= 0 && fclose(fp) == 0);
  for (int r = 0; r < 4; r++) {
    nd_t v[4] = {{.id = 1, .kind = TRN_ET__KIND__KIND_METADATA,
                  .values = "['[{\"pg_name\": \"8\", \"ranks\": [0, 1]}]']"},
                 coll(2, 0, 65536)};
    int k = 2;
    v[1].attr[v[1].n_attr++] = a_text("pg_name", r % 2 ? "2" : "1");
    if (r < 2) {
      v[k] = coll(3, 2, 4096);
      v[k++].attr[2] = a_text("pg_name", "8");
      v[k - 1].n_attr = 3;
    }
    if (r == 1) v[k++] = p2p(4, 1, 3, 32768);
    if (r == 3) v[k++] = p2p(4, 0, 1, 32768);
    write_rank("grp", r, v, k);
  }
  char f[128];
  snprintf(f, sizeof f, "%s/grp", dir);
  char wl[200];
  snprintf(wl, sizeof wl, ", \"comm_groups\": \"%s\"", gpath);
  text[(*n)++] = exp_text(f, 2, 2, wl, "");
}

/* A trace set `name` of two ranks, rank 0's nodes v0, rank 1's v1. */
static void two(const char *name, nd_t *v0, int n0, nd_t *v1, int n1, char **text, int *n) {
  write_rank(name, 0, v0, n0);
  write_rank(name, 1, v1, n1);
  char f[128];
  snprintf(f, sizeof f, "%s/%s", dir, name);
  text[(*n)++] = exp_text(f, 2, 1, "", "");
}

/* Traces that must be refused, each with the words of its message. */
static const char *const refusals[] = {
    "communicator group '7' (pg_name) is not defined",
    "0 collectives of communicator group (every rank)",
    "is collective 0 of its group, which rank 0 runs as ALL_REDUCE of 4096 bytes",
    "a send to rank 1 with tag 7 has no matching receive there",
    "MEM_LOAD_NODE: remote memory (ASTRA-sim's remote-memory backend) is not modelled",
    "involved_dim: leaves a network dimension out",
    "a message length runs past the end of the file",
    "depends on no node of this file, id 9",
    "is_cpu_op: a communication node on the CPU",
    "comm_type REDUCE: not a collective ASTRA-sim runs",
    "the cluster has 4 GPUs, the Chakra trace set",
    "attribute comm_size: 1152921504606846976 is outside",
};

static void bad_traces(char **text, int *n) {
  nd_t a[1] = {coll(1, 0, 4096)}, b[1] = {coll(1, 0, 4096)};
  a[0].attr[a[0].n_attr++] = a_text("pg_name", "7");
  b[0].attr[b[0].n_attr++] = a_text("pg_name", "7");
  two("b0", a, 1, b, 1, text, n);
  nd_t c[1] = {coll(1, 0, 4096)}, e[1] = {comp(1, 1)};
  two("b1", c, 1, e, 1, text, n);
  nd_t f[1] = {coll(1, 0, 4096)}, g[1] = {coll(1, 0, 8192)};
  two("b2", f, 1, g, 1, text, n);
  nd_t h[1] = {p2p(1, 1, 1, 4096)}, i[1] = {comp(1, 1)};
  two("b3", h, 1, i, 1, text, n);
  nd_t j[1] = {{.id = 1, .kind = TRN_ET__KIND__KIND_MEM_LOAD}}, k[1] = {comp(1, 1)};
  two("b4", j, 1, k, 1, text, n);
  static const protobuf_c_boolean dims[3] = {1, 0, 1};
  nd_t l[1] = {coll(1, 0, 4096)}, m[1] = {coll(1, 0, 4096)};
  l[0].attr[l[0].n_attr++] = a_flags("involved_dim", 3, dims);
  two("b5", l, 1, m, 1, text, n);
  nd_t o[1] = {comp(1, 1)}, p[1] = {comp(1, 1)};
  two("b6", o, 1, p, 1, text, n);
  char path[160];
  snprintf(path, sizeof path, "%s/b6.1.et", dir);
  CHECK(truncate(path, 12) == 0); /* cut inside the first node */
  nd_t q[1] = {comp(1, 1)}, s[1] = {comp(1, 1)};
  q[0].data[q[0].n_data++] = 9;
  two("b7", q, 1, s, 1, text, n);
  nd_t t[1] = {coll(1, 0, 4096)}, u[1] = {coll(1, 0, 4096)};
  t[0].attr[t[0].n_attr++] = a_flag("is_cpu_op", 1);
  two("b8", t, 1, u, 1, text, n);
  nd_t w[1] = {coll(1, 1, 4096)}, y[1] = {coll(1, 1, 4096)};
  two("b9", w, 1, y, 1, text, n);
  nd_t z[1] = {comp(1, 1)}, z1[1] = {comp(1, 1)};
  write_rank("b10", 0, z, 1);
  write_rank("b10", 1, z1, 1);
  char f10[128];
  snprintf(f10, sizeof f10, "%s/b10", dir);
  text[(*n)++] = exp_text(f10, 4, 1, "", "");
  nd_t w1[1] = {coll(1, 0, 4096)}, w2[1] = {coll(1, 0, 4096)};
  w1[0].attr[1]->value_case = TRN_ET__ATTR__VALUE_U64;
  w1[0].attr[1]->u64 = (uint64_t)1 << 60;
  two("b11", w1, 1, w2, 1, text, n);
}

static void written(void) {
  char *text[32];
  int n = 0;
  deps_and_resources(text, &n);
  roofline(text, &n);
  groups(text, &n);
  int first_bad = n;
  bad_traces(text, &n);
  trn_exp_t x[32];
  int64_t end[32];
  trn_result_t r[32];
  run(n, text, x, end, r);
  par = x[0].params;
  /* dependencies and resources */
  CHECK_EQ_I64(end[0], 35 * PS_US + ring(2, 8192) + PS_US);
  /* the roofline, the CPU node beside it, ASTRA-sim's 1 ns; a roofline-timed trace keeps
   * its GPU's overlap slowdown */
  const trn_gpu_t *h100 = trn_preset_gpu(&trntest_presets, "h100-sxm");
  int64_t roof = trn_op_time_ps(h100, 17179869184.0, 1e6, 1);
  CHECK(roof > 3 * PS_US);
  CHECK_EQ_I64(end[1], roof + 1000);
  CHECK_EQ_I64(x[1].graph.roofline_tasks, 1);
  CHECK_EQ_I64(x[1].params.overlap_q16, llround(h100->overlap_slowdown * 65536));
  CHECK_EQ_I64(x[0].params.overlap_q16, 65536); /* durations given: not slowed */
  /* groups: two rings of 2 members across servers (4 flows each), the metadata group's
   * all-gather inside server 0 (the intra-server model: no flow), one send */
  CHECK_EQ_I64(x[2].status, BASE_OK);
  CHECK_EQ_I64(x[2].graph.n_flows, 4 + 4 + 1);
  CHECK_EQ_I64(x[2].graph.flow_bytes, 4 * 65536 + 32768);
  CHECK(end[2] > 0);
  for (int i = first_bad; i < n; i++) {
    CHECK_EQ_I64(x[i].status, BASE_INVALID);
    CHECK_STR_CONTAINS(x[i].message, refusals[i - first_bad]);
    CHECK(strchr(x[i].message, '\n') == NULL);
  }
  for (int i = 0; i < n; i++) {
    trn_exp_free(&x[i]);
    free(text[i]);
  }
}

/* The same collectives as ASTRA-sim 1.0 text workloads (MICRO: the first layer's
 * weight-gradient collective, then its 5-cycle update delay): 5 ns later. */
static void as_text(void) {
  char *text[4] = {
      exp_text("peers/astra-sim/workload/microbenchmarks/all_reduce/8npus_1MB", 8, 1, "", ""),
      exp_text("peers/astra-sim-1.0/microAllReduce.txt", 8, 1, "", ""),
      exp_text("peers/astra-sim/workload/microbenchmarks/all_to_all/8npus_1MB", 8, 1, "", ""),
      exp_text("peers/astra-sim-1.0/microAllToAll.txt", 8, 1, "", "")};
  trn_exp_t x[4];
  int64_t end[4];
  run(4, text, x, end, NULL);
  CHECK_EQ_I64(end[1], end[0] + 5000);
  CHECK_EQ_I64(end[3], end[2] + 5000);
  CHECK(end[2] > 0 && end[2] != end[0]);
  for (int i = 0; i < 4; i++) {
    trn_exp_free(&x[i]);
    free(text[i]);
  }
}

int main(void) {
  if (trnexp_init(NULL)) return 1;
  snprintf(dir, sizeof dir, "/tmp/mv-chakra-XXXXXX");
  CHECK(mkdtemp(dir) != NULL);
  microbenchmarks();
  custom_allreduce();
  as_text();
  written();
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  CHECK(system(cmd) == 0);
  trn_presets_free(&trntest_presets);
  coll_model_free(&trnexp.cm);
  return mvtest_end();
}
