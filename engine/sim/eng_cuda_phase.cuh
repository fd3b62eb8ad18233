/* The CUDA backend's port phases (engine/sim/eng_phase.h, docs/engine.md):
 * a switch's certified window by its group of warps, a thread per port, and
 * the warps' scratch. Included once, by eng_cuda.cu, after its column pointers
 * (cu_c). */
#ifndef ENG_CUDA_PHASE_CUH
#define ENG_CUDA_PHASE_CUH

/* Port phases on the GPU (eng_phase.h): a switch alone in a warp (or a
 * block), with at most CU_PH_PORTS ports and CU_PH_MAX arrivals in its window, steps a
 * certified window a thread per port. Each warp has CU_PH_HEAD words of
 * dynamic shared memory (cu_ph_head: per egress its arrivals' count and the
 * end of its stretch, then the pool's lock) and CU_PH_WORDS of scratch in
 * cu_ph (NULL when no experiment asks for phases): the arrivals (ring slot,
 * ingress, place in the ingress's window). The counts and the lock were in
 * cu_ph: each of their atomics went to L2, and on a rail switch of GPT-3 the
 * lock's spinning was 22 % of the warps' samples outside the barriers. */
#define CU_PH_PORTS 256
#define CU_PH_MAX 1024
#define CU_PH_HEAD (2 * CU_PH_PORTS + 8)
#define CU_PH_WORDS (2 * CU_PH_MAX)
#define CU_PH_HEAD_BYTES(threads) (sizeof(int32_t) * CU_PH_HEAD * (size_t)((threads) / 32))
#define CU_PH_TMP (2 * CU_PH_PORTS + 2) /* a warp's int64 for the group's reductions */
static __device__ int32_t *cu_ph;
/* Each scratch entry's next in its egress's queue while it waits there (S3
 * transmitting only, eng_ph_pend_t): CU_PH_MAX a warp, after cu_ph's words. */
static __device__ int16_t *cu_ph_next;
extern __shared__ int32_t cu_ph_head[];

/* A switch is stepped by a group of G warps of one block: a warp (G = 1), or
 * in the persistent mode, for a switch of more than CU_BLOCK_PORTS ports
 * (MULTIVERSE_CUDA_SWITCH_BLOCK), the whole block of 32 * CU_GROUP threads.
 * The helpers below are the group's rank, barrier, vote, reductions and
 * scan; across warps they meet in each warp's CU_PH_TMP word of cu_ph_head. */
#define CU_GROUP 4
enum { CU_SUM, CU_MIN, CU_MAX };

template <int G> static __device__ __forceinline__ int32_t cu_grank() {
  return (int32_t)(threadIdx.x & (32 * G - 1));
}

template <int G> static __device__ __forceinline__ void cu_gsync() {
  if constexpr (G == 1)
    __syncwarp(0xffffffffu);
  else
    __syncthreads();
}

template <int G> static __device__ __forceinline__ int cu_gall(int ok) {
  if constexpr (G == 1)
    return __all_sync(0xffffffffu, ok);
  else
    return __syncthreads_and(ok);
}

static __device__ __forceinline__ int64_t *cu_gtmp(int32_t warp) {
  return (int64_t *)(cu_ph_head + CU_PH_HEAD * warp + CU_PH_TMP);
}

template <int OP> static __device__ __forceinline__ int64_t cu_op(int64_t a, int64_t b) {
  return OP == CU_SUM ? a + b : OP == CU_MIN ? (b < a ? b : a) : (b > a ? b : a);
}

/* v, already reduced over each warp, reduced over the group's warps. */
template <int G, int OP> static __device__ __forceinline__ int64_t cu_gwarps(int64_t v) {
  if constexpr (G > 1) {
    const int32_t w = (int32_t)(threadIdx.x >> 5), w0 = w & ~(G - 1);
    if ((threadIdx.x & 31) == 0) *cu_gtmp(w) = v;
    __syncthreads();
    v = *cu_gtmp(w0);
    for (int32_t u = w0 + 1; u < w0 + G; u++)
      v = cu_op<OP>(v, *cu_gtmp(u));
    __syncthreads(); /* read by all before the next reduction writes */
  }
  return v;
}

/* v summed (or its least, or its most) over the group, in every thread. */
template <int G, int OP> static __device__ __forceinline__ int64_t cu_greduce(int64_t v) {
  for (int d = 16; d > 0; d >>= 1)
    v = cu_op<OP>(v, __shfl_xor_sync(0xffffffffu, v, d));
  return cu_gwarps<G, OP>(v);
}

/* The same for a count (0 or more, 32 bits): one warp instruction each. */
template <int G, int OP> static __device__ __forceinline__ int32_t cu_greduce32(int32_t v) {
  static_assert(OP == CU_SUM || OP == CU_MAX, "a count's sum or most");
  const unsigned u = OP == CU_SUM ? __reduce_add_sync(0xffffffffu, (unsigned)v)
                                  : __reduce_max_sync(0xffffffffu, (unsigned)v);
  return (int32_t)cu_gwarps<G, OP>((int64_t)u);
}

/* The sum of s over the group's threads of lower rank. */
template <int G> static __device__ __forceinline__ int32_t cu_gscan(int32_t s) {
  const int32_t lane = (int32_t)(threadIdx.x & 31);
  int32_t in = s;
  for (int d = 1; d < 32; d <<= 1) {
    const int32_t v = __shfl_up_sync(0xffffffffu, in, d);
    if (lane >= d) in += v;
  }
  if constexpr (G > 1) {
    const int32_t w = (int32_t)(threadIdx.x >> 5), w0 = w & ~(G - 1);
    if (lane == 31) *cu_gtmp(w) = in;
    __syncthreads();
    for (int32_t u = w0; u < w; u++)
      in += (int32_t)*cu_gtmp(u);
    __syncthreads();
  }
  return in - s;
}

/* eng_phase_ok by the group of switch k->x (G warps), each thread over every
 * (32 G)th port (eng_phase_port_in, then eng_phase_port_room where PFC or
 * headroom is in play), the arrivals' counts and bytes summed by shuffles: the
 * same verdict, in every thread, for at most CU_PH_PORTS ports and CU_PH_MAX
 * arrivals. One thread alone read every port of a rail switch at every
 * window. */
template <int G> static __device__ int cu_phase_ok(const eng_ctx_t *k) {
  const int32_t r0 = cu_grank<G>(), np = k->c->node[k->x].n_ports;
  const int64_t t_end = k->c->exp_t_end[k->e];
  if (np > CU_PH_PORTS || !eng_phase_node_ok(k)) return 0;
  int64_t n = 0, bytes = 0;
  int ok = 1;
  for (int32_t lp = r0; ok && lp < np; lp += 32 * G)
    ok = eng_phase_port_in(k, lp, t_end, &n, &bytes);
  if (!cu_gall<G>(ok)) return 0;
  n = cu_greduce<G, CU_SUM>(n);
  bytes = cu_greduce<G, CU_SUM>(bytes);
  const int r = eng_phase_room(k, n, bytes, CU_PH_MAX);
  if (r != 2) return r;
  for (int32_t lp = r0; ok && lp < np; lp += 32 * G)
    ok = eng_phase_port_room(k, lp, t_end, bytes);
  return cu_gall<G>(ok);
}

/* An arrival's order at its egress: time, then ingress, then place. Entry a's
 * time ta is the caller's: the sort below reads it once for all its compares
 * (the stores into ent could alias ring_pkt's times for the compiler, which
 * then loaded it again at each). */
static __device__ __forceinline__ int cu_ph_before(const eng_cols_t *c, int64_t a, int64_t ta,
                                                   int64_t b) {
  const int64_t tb = c->ring_pkt[(int32_t)(b >> 32)].t;
  return ta != tb ? ta < tb : (uint32_t)a < (uint32_t)b;
}

/* Ingress lp's part of S1 (its window's arrivals, on the link `in`, ending at
 * t_end): each routed, its egress written into the slot's `next` and counted
 * in cnt[egress] (N: int32_t in shared memory, or uint32_t in port_ph_cur);
 * a packet with no route fails the experiment as eng_relay would, its time
 * raising *last. Returns the arrivals. */
template <class N>
static __device__ int32_t cu_ph_route(eng_ctx_t *k, int32_t in, int64_t t_end, N *cnt,
                                      int64_t *last) {
  eng_cols_t *c = k->c;
  int32_t n = 0;
  for (uint32_t j = c->port[in].ring_head; eng_phase_due(c, in, j, t_end); j++, n++) {
    eng_pkt_t *pk = &c->ring_pkt[eng_phase_slot(c, in, j)];
    pk->next = eng_route_relay(c, k->x, (int32_t)pk->flow, pk->type, pk->psn, pk->t);
    if (pk->next >= 0) {
      atomicAdd(&cnt[pk->next], 1);
    } else {
      eng_fail(k, ENG_FAIL_ROUTE);
      if (pk->t > *last) *last = pk->t;
    }
  }
  return n;
}

/* Ingress lp's deal: each routed arrival of its window (link `in`) to the end
 * of its egress's stretch, end[egress] (moved on by atomics), as a scratch
 * entry (ring slot, ingress, place in the ingress's window); then the window
 * is consumed (ring_head): S3 reads the arrivals by their slots, and the
 * link's producer reuses a slot only after the commit (ring_hsnap). */
template <class N>
static __device__ void cu_ph_deal(eng_cols_t *c, int32_t in, int32_t lp, int64_t t_end, N *end,
                                  int64_t *ent) {
  const uint32_t h = c->port[in].ring_head;
  uint32_t j = h;
  for (; eng_phase_due(c, in, j, t_end); j++) {
    const int32_t slot = eng_phase_slot(c, in, j), o = c->ring_pkt[slot].next;
    if (o >= 0) ent[atomicAdd(&end[o], 1)] = (int64_t)slot << 32 | (int64_t)lp << 16 | (j - h);
  }
  c->port[in].ring_head = j;
}

/* Egress o's part of S3, from k->now (the window's start): its arrivals, the
 * scratch entries ent[lo, hi), sorted in the serial step's order (time, then
 * ingress, then place), then merged with its transmissions, transmitting
 * only, as eng_phase_step's S3 does: an arrival waits as its entry (its next
 * in its queue in cu_ph_next) and becomes a descriptor only if still queued
 * at the end. Returns its events (*tx_n: its transmissions); k->now ends at
 * the last one's time. */
static __device__ int32_t cu_ph_serve(eng_ctx_t *k, int32_t o, int64_t *ent, int32_t lo, int32_t hi,
                                      int32_t *tx_n) {
  eng_cols_t *c = k->c;
  const int64_t t_end = c->exp_t_end[k->e];
  for (int32_t i = lo + 1; i < hi; i++) {
    const int64_t v = ent[i], tv = c->ring_pkt[(int32_t)(v >> 32)].t;
    int32_t m = i;
    for (; m > lo && cu_ph_before(c, v, tv, ent[m - 1]); m--)
      ent[m] = ent[m - 1];
    ent[m] = v;
  }
  eng_ph_pend_t pd = eng_ph_pend(cu_ph_next + (ent - (int64_t *)cu_ph), NULL, NULL, ent);
  int32_t n = 0;
  for (int32_t i = lo;;) {
    const int32_t slot = i < hi ? (int32_t)(ent[i] >> 32) : 0;
    const int64_t bt = i < hi ? c->ring_pkt[slot].t : ENG_INF, tx = eng_ph_tx_time(k, o, &pd);
    if (i < hi && bt <= tx) { /* an arrival goes before a transmission of its instant */
      k->now = bt;
      eng_ph_arrive(k, (int32_t)((ent[i] >> 16) & 0xffff), slot, o, i, &pd); /* S1 routed it to o */
      i++;
    } else if (tx < t_end) {
      k->now = tx;
      eng_ph_tx(k, o, &pd);
      (*tx_n)++;
    } else {
      break;
    }
    n++;
  }
  if (pd.live) eng_ph_settle_queues(k, o, &pd);
  return n;
}

/* The window of switch k.x, certified by cu_phase_ok, by its group of G
 * warps, a thread per port (head: the group's shared words, sc: its
 * scratch). S1: each thread routes its ingresses' arrivals and counts them
 * per egress (cu_ph_route); the arrivals are dealt to their egresses'
 * stretches of the scratch, which consumes each ingress's window
 * (cu_ph_deal), each stretch sorted in the serial step's order (time, then
 * ingress). S3: each thread merges its egresses' arrivals with their
 * transmissions, as eng_phase_step does, the pool under the group's lock and
 * the buffer's sums and the node's counts by atomics (k.lock). Then the
 * node's end as eng_node_step's phased branch. */
template <int G> static __device__ void cu_phase_step(eng_ctx_t k, int32_t *head, int32_t *sc) {
  const int32_t r0 = cu_grank<G>(), P = 32 * G;
  eng_cols_t *c = k.c;
  const int32_t x = k.x, e = k.e, p0 = k.p0, np = c->node[x].n_ports;
  const int64_t t_end = c->exp_t_end[e], now0 = k.now;
  int32_t *cnt = head, *end = head + CU_PH_PORTS;
  int64_t *ent = (int64_t *)sc;
  int64_t last = now0;
  int32_t events = 0, most_in = 0, most_out = 0;
  for (int32_t lp = r0; lp < np; lp += P)
    cnt[lp] = 0;
  if (r0 == 0) head[2 * CU_PH_PORTS] = 0; /* the lock */
  cu_gsync<G>();
  for (int32_t lp = r0; lp < np; lp += P) { /* S1 */
    const int32_t n = cu_ph_route(&k, c->port[p0 + lp].peer, t_end, cnt, &last);
    events += n;
    if (n > most_in) most_in = n;
  }
  cu_gsync<G>();
  { /* where each egress's stretch begins (its end once dealt): each thread
     * sums a run of CU_PH_PORTS / P egresses, a scan adds the runs before it */
    const int32_t run = CU_PH_PORTS / P, o0 = r0 * run;
    int32_t s = 0;
    for (int32_t o = o0; o < o0 + run && o < np; o++)
      s += cnt[o];
    int32_t before = cu_gscan<G>(s);
    for (int32_t o = o0; o < o0 + run && o < np; o++) {
      end[o] = before;
      before += cnt[o];
    }
  }
  cu_gsync<G>();
  for (int32_t lp = r0; lp < np; lp += P)
    cu_ph_deal(c, c->port[p0 + lp].peer, lp, t_end, end, ent);
  cu_gsync<G>();
  k.lock = head + 2 * CU_PH_PORTS;
  for (int32_t o = r0; o < np; o += P) { /* S3 */
    int32_t tx_n = 0;
    k.now = now0;
    const int32_t n = cu_ph_serve(&k, o, ent, end[o] - cnt[o], end[o], &tx_n);
    events += tx_n;
    if (k.now > last) last = k.now;
    if (n > most_out) most_out = n;
  }
  k.lock = NULL;
  events = cu_greduce32<G, CU_SUM>(events);
  const int32_t in_path = cu_greduce32<G, CU_MAX>(most_in);
  const int32_t span = in_path + cu_greduce32<G, CU_MAX>(most_out);
  k.now = cu_greduce<G, CU_MAX>(last);
  k.emit_min = cu_greduce<G, CU_MIN>(k.emit_min);
  cu_gsync<G>(); /* the ring heads and the ports' state every thread wrote are seen */
  int64_t best = ENG_INF;
  for (int32_t lp = r0; lp < np; lp += P) { /* what the serial step would have cached */
    c->port_key[p0 + lp] = eng_port_key(&k, lp);
    if (c->port_key[p0 + lp] < best) best = c->port_key[p0 + lp];
  }
  best = cu_greduce<G, CU_MIN>(best);
  if (r0 == 0) {
    c->node[x].c_phased++;
    c->node[x].c_offpath += events - span;
    c->node[x].c_inpath += in_path;
    k.events = events;
    eng_node_end(&k, best);
  }
}

/* The port phases' scratch (cu_ph, then cu_ph_next) for a launch of `warps` warps, when an
 * experiment of w asks for phases (exp_phases); *buf receives it, NULL when
 * none does. */
static int cu_ph_begin(const eng_world_t *w, int64_t warps, int32_t **buf, char *err,
                       size_t errlen) {
  int any = 0;
  *buf = NULL;
  for (int32_t e = 0; e < w->n_exps; e++)
    any |= w->c.exp_phases[e] != ENG_PHASES_OFF;
  int16_t *next = NULL;
  if (any) {
    const size_t words = sizeof(int32_t) * CU_PH_WORDS * (size_t)warps;
    const size_t bytes = words + sizeof(int16_t) * CU_PH_MAX * (size_t)warps;
    cudaError_t ae = cudaMalloc((void **)buf, bytes);
    if (ae != cudaSuccess) {
      snprintf(err, errlen, "cannot allocate the port phases' %zu bytes on the GPU: %s", bytes,
               cudaGetErrorString(ae));
      cudaGetLastError();
      *buf = NULL;
      return -1;
    }
    next = (int16_t *)((char *)*buf + words);
  }
  BASE_CUDA_TRY(cudaMemcpyToSymbol(cu_ph, buf, sizeof *buf));
  BASE_CUDA_TRY(cudaMemcpyToSymbol(cu_ph_next, &next, sizeof next));
  return 0;
fail:
  cudaFree(*buf);
  *buf = NULL;
  return -1;
}

#endif
