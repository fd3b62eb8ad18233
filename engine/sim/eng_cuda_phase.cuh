/* The CUDA backend's port phases (engine/sim/eng_phase.h, docs/engine.md):
 * a switch's certified window by one warp, a thread per port, and the
 * warps' scratch. Included once, by eng_cuda.cu, after its column pointers
 * (cu_c). */
#ifndef ENG_CUDA_PHASE_CUH
#define ENG_CUDA_PHASE_CUH

/* Port phases on the GPU (eng_phase.h): a switch alone in a warp, with at
 * most CU_PH_PORTS ports and CU_PH_MAX arrivals in its window, steps a
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
static __device__ int32_t *cu_ph;

static __device__ __forceinline__ int64_t cu_warp_max64(int64_t v) {
  for (int d = 16; d > 0; d >>= 1) {
    int64_t o = __shfl_xor_sync(0xffffffffu, v, d);
    if (o > v) v = o;
  }
  return v;
}

static __device__ __forceinline__ int64_t cu_warp_min64(int64_t v) {
  for (int d = 16; d > 0; d >>= 1) {
    int64_t o = __shfl_xor_sync(0xffffffffu, v, d);
    if (o < v) v = o;
  }
  return v;
}

static __device__ __forceinline__ int64_t cu_warp_sum64(int64_t v) {
  for (int d = 16; d > 0; d >>= 1)
    v += __shfl_xor_sync(0xffffffffu, v, d);
  return v;
}

/* eng_phase_ok by the 32 threads of switch k->x's warp, each over every 32nd
 * port (eng_phase_port_in, then eng_phase_port_room where PFC or headroom is
 * in play), the arrivals' counts and bytes summed by shuffles: the same
 * verdict, in every thread, for at most CU_PH_PORTS ports and CU_PH_MAX
 * arrivals. One thread alone read every port of a rail switch at every
 * window. */
static __device__ int cu_phase_ok(const eng_ctx_t *k) {
  const unsigned all = 0xffffffffu;
  const int32_t lane = (int32_t)(threadIdx.x & 31), np = k->c->node_n_ports[k->x];
  const int64_t t_end = k->c->exp_t_end[k->e];
  if (np > CU_PH_PORTS || !eng_phase_node_ok(k)) return 0;
  int64_t n = 0, bytes = 0;
  int ok = 1;
  for (int32_t lp = lane; ok && lp < np; lp += 32)
    ok = eng_phase_port_in(k, lp, t_end, &n, &bytes);
  if (!__all_sync(all, ok)) return 0;
  n = cu_warp_sum64(n);
  bytes = cu_warp_sum64(bytes);
  const int r = eng_phase_room(k, n, bytes, CU_PH_MAX);
  if (r != 2) return r;
  for (int32_t lp = lane; ok && lp < np; lp += 32)
    ok = eng_phase_port_room(k, lp, t_end, bytes);
  return __all_sync(all, ok);
}

/* An arrival's order at its egress: time, then ingress, then place. */
static __device__ __forceinline__ int cu_ph_before(const eng_cols_t *c, int64_t a, int64_t b) {
  const int64_t ta = c->ring_pkt[(int32_t)(a >> 32)].t, tb = c->ring_pkt[(int32_t)(b >> 32)].t;
  return ta != tb ? ta < tb : (uint32_t)a < (uint32_t)b;
}

/* The window of switch k.x, certified by cu_phase_ok, by one warp, a thread
 * per port (head: the warp's shared words, sc: its scratch). S1: each thread routes its ingresses'
 * arrivals and counts them per egress; the arrivals are dealt to their
 * egresses' stretches of the scratch, each stretch sorted in the serial
 * step's order (time, then ingress). S3: each thread merges its egresses'
 * arrivals with their transmissions, as eng_phase_step does, the pool under
 * the warp's lock and the buffer's sums and the node's counts by atomics
 * (k.lock). Then the node's end as eng_node_step's phased branch. */
static __device__ void cu_phase_step(eng_ctx_t k, int32_t *head, int32_t *sc) {
  const unsigned all = 0xffffffffu;
  const int32_t lane = (int32_t)(threadIdx.x & 31);
  eng_cols_t *c = k.c;
  const int32_t x = k.x, e = k.e, p0 = k.p0, np = c->node_n_ports[x];
  const int64_t t_end = c->exp_t_end[e], now0 = k.now;
  int32_t *cnt = head, *end = head + CU_PH_PORTS;
  int64_t *ent = (int64_t *)sc;
  int64_t last = now0;
  int32_t events = 0, most_in = 0, most_out = 0;
  for (int32_t lp = lane; lp < np; lp += 32)
    cnt[lp] = 0;
  if (lane == 0) head[2 * CU_PH_PORTS] = 0; /* the lock */
  __syncwarp(all);
  for (int32_t lp = lane; lp < np; lp += 32) { /* S1 */
    const int32_t in = c->port_peer[p0 + lp];
    int32_t n = 0;
    for (uint32_t j = c->port_ring_head[in]; eng_phase_due(c, in, j, t_end); j++, n++) {
      eng_pkt_t *pk = &c->ring_pkt[eng_phase_slot(c, in, j)];
      pk->next = eng_route_relay(c, x, (int32_t)pk->flow, pk->type, pk->psn, pk->t);
      if (pk->next >= 0) {
        atomicAdd(&cnt[pk->next], 1);
      } else {
        eng_fail(&k, ENG_FAIL_ROUTE);
        if (pk->t > last) last = pk->t;
      }
    }
    events += n;
    if (n > most_in) most_in = n;
  }
  __syncwarp(all);
  { /* where each egress's stretch begins (its end once dealt): each thread
     * sums a run of CU_PH_PORTS / 32 egresses, a scan of shuffles adds the
     * runs before it */
    const int32_t run = CU_PH_PORTS / 32, o0 = lane * run;
    int32_t s = 0;
    for (int32_t o = o0; o < o0 + run && o < np; o++)
      s += cnt[o];
    int32_t before = s;
    for (int d = 1; d < 32; d <<= 1) {
      const int32_t v = __shfl_up_sync(all, before, d);
      if (lane >= d) before += v;
    }
    before -= s;
    for (int32_t o = o0; o < o0 + run && o < np; o++) {
      end[o] = before;
      before += cnt[o];
    }
  }
  __syncwarp(all);
  for (int32_t lp = lane; lp < np; lp += 32) {
    const int32_t in = c->port_peer[p0 + lp];
    const uint32_t h = c->port_ring_head[in];
    for (uint32_t j = h; eng_phase_due(c, in, j, t_end); j++) {
      const int32_t slot = eng_phase_slot(c, in, j), o = c->ring_pkt[slot].next;
      if (o >= 0) ent[atomicAdd(&end[o], 1)] = (int64_t)slot << 32 | (int64_t)lp << 16 | (j - h);
    }
  }
  __syncwarp(all);
  k.lock = head + 2 * CU_PH_PORTS;
  for (int32_t o = lane; o < np; o += 32) { /* S3 */
    const int32_t lo = end[o] - cnt[o], hi = end[o];
    for (int32_t i = lo + 1; i < hi; i++) {
      const int64_t v = ent[i];
      int32_t m = i;
      for (; m > lo && cu_ph_before(c, v, ent[m - 1]); m--)
        ent[m] = ent[m - 1];
      ent[m] = v;
    }
    int32_t n = 0;
    k.now = now0;
    for (int32_t i = lo;;) {
      const int32_t slot = i < hi ? (int32_t)(ent[i] >> 32) : 0;
      const int64_t bt = i < hi ? c->ring_pkt[slot].t : ENG_INF, tx = eng_tx_time(&k, o);
      if (i < hi && bt <= tx) { /* an arrival goes before a transmission of its instant */
        k.now = bt;
        eng_relay(&k, (int32_t)((ent[i] >> 16) & 0xffff), c->ring_pkt[slot],
                  eng_int(c, e, c->rint_v, slot));
        i++;
      } else if (tx < t_end) {
        k.now = tx;
        eng_tx(&k, o);
        events++;
      } else {
        break;
      }
      n++;
      if (k.now > last) last = k.now;
    }
    if (n > most_out) most_out = n;
  }
  k.lock = NULL;
  __syncwarp(all);
  for (int32_t lp = lane; lp < np; lp += 32) { /* every arrival of the window is consumed */
    const int32_t in = c->port_peer[p0 + lp];
    uint32_t j = c->port_ring_head[in];
    while (eng_phase_due(c, in, j, t_end))
      j++;
    c->port_ring_head[in] = j;
  }
  events = __reduce_add_sync(all, events);
  const int32_t span = __reduce_max_sync(all, (unsigned)most_in) + __reduce_max_sync(all, (unsigned)most_out);
  k.now = cu_warp_max64(last);
  k.emit_min = cu_warp_min64(k.emit_min);
  __syncwarp(all); /* the ring heads and the ports' state every thread wrote are seen */
  int64_t best = ENG_INF;
  for (int32_t lp = lane; lp < np; lp += 32) { /* what the serial step would have cached */
    c->port_key[p0 + lp] = eng_port_key(&k, lp);
    if (c->port_key[p0 + lp] < best) best = c->port_key[p0 + lp];
  }
  best = cu_warp_min64(best);
  if (lane == 0) {
    c->node_c_phased[x]++;
    c->node_c_offpath[x] += events - span;
    k.events = events;
    eng_node_end(&k, best);
  }
}

/* The port phases' scratch (cu_ph) for a launch of `warps` warps, when an
 * experiment of w asks for phases (exp_phases); *buf receives it, NULL when
 * none does. */
static int cu_ph_begin(const eng_world_t *w, int64_t warps, int32_t **buf, char *err, size_t errlen) {
  int any = 0;
  *buf = NULL;
  for (int32_t e = 0; e < w->n_exps; e++)
    any |= w->c.exp_phases[e] != ENG_PHASES_OFF;
  if (any) {
    const size_t bytes = sizeof(int32_t) * CU_PH_WORDS * (size_t)warps;
    cudaError_t ae = cudaMalloc((void **)buf, bytes);
    if (ae != cudaSuccess) {
      snprintf(err, errlen, "cannot allocate the port phases' %zu bytes on the GPU: %s", bytes,
               cudaGetErrorString(ae));
      cudaGetLastError();
      *buf = NULL;
      return -1;
    }
  }
  BASE_CUDA_TRY(cudaMemcpyToSymbol(cu_ph, buf, sizeof *buf));
  return 0;
fail:
  cudaFree(*buf);
  *buf = NULL;
  return -1;
}

#endif
