/* The CUDA backend's port pool (docs/engine.md, Port phases): in the
 * experiment mode, where one thread would step a switch's whole window in key
 * order, the switches that may step in phases are certified and stepped
 * after the block's other rows, a thread per port, by every thread of the
 * block (MULTIVERSE_CUDA_POOL). Included once, by eng_cuda.cu, after
 * eng_cuda_phase.cuh (the scratch cu_ph, cu_ph_before). */
#ifndef ENG_CUDA_POOL_CUH
#define ENG_CUDA_POOL_CUH

/* Whether a certified window settles its switch's shared-buffer count at its
 * end (eng_shared_port), so that no arrival or transmission of S3 waits for an
 * atomic's answer (MULTIVERSE_CUDA_SETTLE, set before each experiment-mode
 * launch). */
static __constant__ int32_t cu_settle;

/* Switches, and their ports, that a block steps in its pool in one window at
 * most: a switch past either steps in key order on its thread. */
#define CU_POOL_SW 128
#define CU_POOL_TASKS 4096
/* port_ph_cur's bits, from certificate to S1's end, above an egress's count
 * of arrivals (at most CU_PH_MAX): its transmissions' weight (cu_pool_tx_weight). */
#define CU_POOL_TXW 20

/* A list of the pool's tasks that have work in one of its phases (S1: an
 * ingress with arrivals; S3: an egress with arrivals or a transmission due),
 * heavy ones (a weight of at least `th`: the last window's most, halved) from
 * the front, light ones from the back. A heavy task gets a thread of its own,
 * the light ones share the other threads (cu_pool_walk): taken in order, a
 * thread's second task could be as heavy as its first, and the phase waited
 * for their sum. */
typedef struct cu_pool_list_t {
  int32_t h, l;     /* heavy tasks, light tasks */
  int32_t most, th; /* the most weight this window; the heavy threshold */
  uint16_t t[CU_POOL_TASKS];
} cu_pool_list_t;

/* A block's pool, in its dynamic shared memory: the switches claimed in this
 * window (cu_pool_node), their certificate's sums, what their ports' threads
 * sum, least or most, and the lists of the ports with work in S1 and S3. */
typedef struct cu_pool_t {
  int32_t n, tasks, used, room; /* switches claimed (may pass CU_POOL_SW), ports, scratch taken;
                                   whether a port's room is to be read (cu_pool_certify) */
  int32_t x[CU_POOL_SW];     /* switch row; -1: claimed, then stepped in key order */
  int32_t first[CU_POOL_SW]; /* its first port's task */
  int32_t base[CU_POOL_SW];  /* its arrivals' first entry in the block's scratch */
  int32_t lock[CU_POOL_SW];  /* its descriptor pool's lock */
  int32_t arr[CU_POOL_SW];   /* its window's arrivals (the certificate's count) */
  int32_t cert[CU_POOL_SW];  /* 0: not certified (in key order); 1: certified (so far); 2: if
                                each port's room holds (eng_phase_room's verdicts) */
  int32_t events[CU_POOL_SW], most_in[CU_POOL_SW], most_out[CU_POOL_SW];
  long long bytes[CU_POOL_SW]; /* its arrivals' in-class bytes */
  long long now0[CU_POOL_SW], last[CU_POOL_SW], emit[CU_POOL_SW], best[CU_POOL_SW];
  long long settle[CU_POOL_SW]; /* cu_settle: its shared bytes, end less start */
  uint8_t of[CU_POOL_TASKS]; /* a task's switch (0xff: none) */
  cu_pool_list_t in, out;    /* S1's and S3's tasks */
} cu_pool_t;

/* Whether switch x joins the pool P this window (phase 0 of the experiment
 * mode with a pool): one that may step in phases (eng_phase_node_ok; not
 * idle, not poked) and finds room, whose threads read its certificate a port
 * each and step it once every row has stepped (cu_pool_run). The
 * certificate on one thread (eng_phase_ok) walked every port of the switch
 * here, the longest row of the phase where the rows were hosts. */
static __device__ int cu_pool_claim(eng_cols_t *c, int32_t x, cu_pool_t *P) {
  const int32_t e = c->node_exp[x], np = c->node[x].n_ports;
  if (c->exp_phases[e] == ENG_PHASES_OFF || !cu_ph || c->exp_status[e] != ENG_RUNNING ||
      np > CU_PH_PORTS || eng_node_idle(c, x, e) || eng_node_poked(c, x, e))
    return 0;
  const eng_ctx_t k = eng_node_ctx(c, x, c->node[x].now);
  if (!eng_phase_node_ok(&k)) return 0;
  const int32_t s = atomicAdd(&P->n, 1);
  if (s >= CU_POOL_SW) return 0;
  const int32_t t0 = atomicAdd(&P->tasks, np);
  const int ok = t0 + np <= CU_POOL_TASKS;
  for (int32_t t = t0; t < t0 + np && t < CU_POOL_TASKS; t++)
    P->of[t] = ok ? (uint8_t)s : 0xff;
  P->x[s] = ok ? x : -1;
  if (!ok) return 0;
  P->first[s] = t0;
  P->now0[s] = k.now;
  P->arr[s] = 0;
  P->cert[s] = 1;
  P->bytes[s] = 0;
  P->settle[s] = 0;
  return 1;
}

/* Row x's step in phase 0 with a pool: a switch the pool takes (cu_pool_claim)
 * steps with it after every row; every other row, and a switch for which the
 * pool has no room, steps as in eng_node_step, through one call: with a
 * call on each of its four ways out, each inlining a copy of the node step,
 * the pool kernels held 742 KB of SASS against the other kernels' 210 KB. */
static __device__ void cu_pool_node(eng_cols_t *c, int32_t x, cu_pool_t *P) {
  if (c->node[x].is_switch && cu_pool_claim(c, x, P)) return;
  eng_node_step(c, x);
}

/* The first task of this thread (then every blockDim.x-th): task t goes to
 * warp t mod W of the block's W, so that a switch's ports, which are
 * consecutive tasks, fall in different warps. Taken in order, a busy switch's
 * ports shared one warp, whose threads run their different events' branches
 * in turn. Any deal gives the same results: the pool's sums are order-free
 * and each egress's arrivals are sorted before S3. */
static __device__ __forceinline__ int32_t cu_pool_t0(void) {
  return (int32_t)((threadIdx.x & 31) * (blockDim.x >> 5) + (threadIdx.x >> 5));
}

/* Task t, of weight w (its arrivals, or S3's estimate), joins list L. */
static __device__ __forceinline__ void cu_pool_add(cu_pool_list_t *L, int32_t t, int32_t w) {
  if (w >= L->th)
    L->t[atomicAdd(&L->h, 1)] = (uint16_t)t;
  else
    L->t[CU_POOL_TASKS - 1 - atomicAdd(&L->l, 1)] = (uint16_t)t;
  atomicMax(&L->most, w);
}

/* A thread's walk over list L: its slot q (cu_pool_t0) takes heavy task q
 * alone while the heavy ones are fewer than the threads; the other slots
 * take the rest in turn. Every task of L is taken once. */
typedef struct cu_pool_walk_t {
  int32_t i, step, n; /* the position, the stride (0: one task), the tasks */
} cu_pool_walk_t;

static __device__ __forceinline__ cu_pool_walk_t cu_pool_walk(const cu_pool_list_t *L) {
  const int32_t q = cu_pool_t0(), T = (int32_t)blockDim.x;
  const int32_t solo = L->h < T ? L->h : 0;
  return cu_pool_walk_t{q, q < solo ? 0 : T - solo, L->h + L->l};
}

static __device__ __forceinline__ void cu_pool_next(cu_pool_walk_t *w) {
  w->i = w->step ? w->i + w->step : w->n;
}

/* The task at position i of list L. */
static __device__ __forceinline__ int32_t cu_pool_at(const cu_pool_list_t *L, int32_t i) {
  return i < L->h ? L->t[i] : L->t[CU_POOL_TASKS - 1 - (i - L->h)];
}

/* The list's threshold for the next window, and the list emptied (one thread). */
static __device__ __forceinline__ void cu_pool_list_end(cu_pool_list_t *L) {
  L->th = L->most / 2 > 2 ? L->most / 2 : 2;
  L->h = L->l = L->most = 0;
}

/* S3's weight of egress lp of switch k->x, at its window's start: its
 * transmissions that the window could hold, at most 31, where one is due
 * (eng_tx_time); its arrivals are added once S1 has counted them. */
static __device__ __forceinline__ int32_t cu_pool_tx_weight(const eng_ctx_t *k, int32_t lp,
                                                            int64_t t_end) {
  const int64_t tx = eng_tx_time(k, lp), ser = k->c->port[k->p0 + lp].ser_full;
  if (tx >= t_end) return 0;
  const int64_t n = ser > 0 ? (t_end - tx) / ser + 1 : 31;
  return n < 31 ? (int32_t)n : 31;
}

/* The pool emptied for the next window (one thread); its lists keep their thresholds. */
static __device__ __forceinline__ void cu_pool_empty(cu_pool_t *P) {
  P->n = P->tasks = P->used = P->room = 0;
  cu_pool_list_end(&P->in);
  cu_pool_list_end(&P->out);
}

/* The context of pooled switch s, at the time its window began. */
static __device__ __forceinline__ eng_ctx_t cu_pool_ctx(eng_cols_t *c, const cu_pool_t *P,
                                                        int32_t s) {
  return eng_node_ctx(c, P->x[s], P->now0[s]);
}

/* The certificate of the pool's switches (eng_phase_ok's verdict), read
 * by the block's threads, a port each: each port's part (eng_phase_port_in),
 * its arrivals and their bytes summed per switch by atomics (the same sums
 * in any order); each switch's room for the sum (eng_phase_room) and its
 * stretch of the scratch; where PFC or headroom is in play, each port's room
 * (eng_phase_port_room). A switch not certified leaves the pool and steps in
 * key order on one thread (after the last barrier here: the block's next
 * step skips it by `cert`); the others' sums begin. */
static __device__ void cu_pool_certify(cu_pool_t *P, int32_t ns, int32_t nt, int32_t cap) {
  eng_cols_t *c = CU_C;
  const int32_t tid = (int32_t)threadIdx.x, T = (int32_t)blockDim.x, t0 = cu_pool_t0();
  for (int32_t t = t0; t < nt; t += T) {
    const int32_t s = P->of[t];
    if (s == 0xff) continue;
    const eng_ctx_t k = cu_pool_ctx(c, P, s);
    const int32_t lp = t - P->first[s];
    const int64_t t_end = c->exp_t_end[k.e];
    int64_t n = 0, bytes = 0;
    c->port_ph_cur[k.p0 + lp] = (uint32_t)cu_pool_tx_weight(&k, lp, t_end) << CU_POOL_TXW;
    if (cu_settle) /* two's complement: the sum wraps back at the end */
      atomicAdd((unsigned long long *)&P->settle[s],
                (unsigned long long)-eng_shared_port(c, k.e, k.p0 + lp));
    if (!eng_phase_port_in(&k, lp, t_end, &n, &bytes)) {
      P->cert[s] = 0;
    } else if (n) {
      atomicAdd(&P->arr[s], (int32_t)n);
      atomicAdd((unsigned long long *)&P->bytes[s], (unsigned long long)bytes);
      cu_pool_add(&P->in, t, (int32_t)n);
    }
  }
  __syncthreads();
  for (int32_t s = tid; s < ns; s += T) {
    if (P->x[s] < 0 || !P->cert[s]) continue;
    const eng_ctx_t k = cu_pool_ctx(c, P, s);
    const int32_t n = P->arr[s];
    const int r = eng_phase_room(&k, n, P->bytes[s], CU_PH_MAX);
    const int32_t b0 = r ? atomicAdd(&P->used, n) : 0;
    P->cert[s] = b0 + n <= cap ? r : 0;
    if (P->cert[s] == 2) P->room = 1;
    P->base[s] = b0;
    P->lock[s] = 0;
    P->events[s] = P->most_in[s] = P->most_out[s] = 0;
    P->last[s] = k.now;
    P->emit[s] = P->best[s] = ENG_INF;
  }
  __syncthreads();
  if (P->room) { /* uniform: read by every thread after the barrier */
    for (int32_t t = t0; t < nt; t += T) {
      const int32_t s = P->of[t];
      if (s == 0xff || P->x[s] < 0 || P->cert[s] != 2) continue;
      const eng_ctx_t k = cu_pool_ctx(c, P, s);
      if (!eng_phase_port_room(&k, t - P->first[s], c->exp_t_end[k.e], P->bytes[s])) P->cert[s] = 0;
    }
    __syncthreads();
  }
  for (int32_t s = tid; s < ns; s += T) { /* no barrier: the next step reads cert, not x */
    const int32_t x = P->x[s];
    if (x < 0) continue;
    if (!P->cert[s]) {
      P->x[s] = -1;
      eng_node_step(c, x);
    } else {
      c->node_woken[x] = 0;
    }
  }
}

/* Every thread of the block: the pool's switches in port phases, as
 * cu_phase_step does for a switch alone in a warp, their ports (tasks) taken
 * by the block's threads in turn: S1, each ingress routes its window's
 * arrivals and counts them per egress (port_ph_cur); each switch's egresses
 * get their stretches of the block's scratch `ent`; the arrivals are dealt to
 * them, each stretch sorted in the serial step's order (time, then ingress,
 * then place); S3, each egress merges them with its transmissions, the
 * switch's descriptor pool under its lock and its sums by atomics (k.lock);
 * then each port caches its key; last, each switch's end as eng_node_step's
 * phased branch. First the certificate (cu_pool_certify); the deal consumes
 * each ingress's window. A block barrier between steps; the pool is empty
 * again at the end. */
static __device__ __noinline__ void cu_pool_run(cu_pool_t *P, int64_t *ent, int32_t cap) {
  eng_cols_t *c = CU_C;
  const int32_t tid = (int32_t)threadIdx.x, T = (int32_t)blockDim.x, t0 = cu_pool_t0();
  const int32_t ns = P->n < CU_POOL_SW ? P->n : CU_POOL_SW;
  const int32_t nt = P->tasks < CU_POOL_TASKS ? P->tasks : CU_POOL_TASKS;
  cu_pool_certify(P, ns, nt, cap);
  for (cu_pool_walk_t w = cu_pool_walk(&P->in); w.i < w.n; cu_pool_next(&w)) { /* S1 */
    const int32_t t = cu_pool_at(&P->in, w.i), s = P->of[t]; /* a listed task has a switch */
    if (P->x[s] < 0 || !P->cert[s]) continue;
    eng_ctx_t k = cu_pool_ctx(c, P, s);
    int64_t last = k.now;
    const int32_t n = cu_ph_route(&k, c->port[k.p0 + t - P->first[s]].peer, c->exp_t_end[k.e],
                                  &c->port_ph_cur[k.p0], &last);
    if (n) {
      atomicAdd(&P->events[s], n);
      atomicMax(&P->most_in[s], n);
    }
    if (last > k.now) atomicMax(&P->last[s], (long long)last);
  }
  __syncthreads();
  for (int32_t s = tid; s < ns; s += T) { /* where each egress's stretch begins */
    const int32_t x = P->x[s];
    if (x < 0) continue;
    const int32_t p0 = c->node[x].port_off, np = c->node[x].n_ports;
    int32_t sum = P->base[s];
    for (int32_t o = 0; o < np; o++) { /* S1's count, below the weight of its transmissions */
      const uint32_t v = c->port_ph_cur[p0 + o];
      const int32_t m = (int32_t)(v & ((1u << CU_POOL_TXW) - 1)), tw = (int32_t)(v >> CU_POOL_TXW);
      c->port_ph_cur[p0 + o] = sum;
      sum += m;
      if (m || tw) cu_pool_add(&P->out, P->first[s] + o, m + tw);
    }
  }
  __syncthreads();
  for (cu_pool_walk_t w = cu_pool_walk(&P->in); w.i < w.n; cu_pool_next(&w)) { /* deal */
    const int32_t t = cu_pool_at(&P->in, w.i), s = P->of[t];
    const int32_t x = P->x[s];
    if (x < 0) continue;
    const int32_t p0 = c->node[x].port_off, lp = t - P->first[s];
    cu_ph_deal(c, c->port[p0 + lp].peer, lp, c->exp_t_end[c->node_exp[x]], &c->port_ph_cur[p0],
               ent);
  }
  __syncthreads();
  for (cu_pool_walk_t w = cu_pool_walk(&P->out); w.i < w.n; cu_pool_next(&w)) { /* S3 */
    const int32_t t = cu_pool_at(&P->out, w.i), s = P->of[t];
    eng_ctx_t k = cu_pool_ctx(c, P, s);
    const int32_t o = t - P->first[s];
    const int32_t lo = o ? c->port_ph_cur[k.p0 + o - 1] : P->base[s], hi = c->port_ph_cur[k.p0 + o];
    const int64_t now0 = k.now;
    k.lock = &P->lock[s];
    k.settle = cu_settle;
    int32_t tx_n = 0;
    const int32_t n = cu_ph_serve(&k, o, ent, lo, hi, &tx_n);
    if (tx_n) atomicAdd(&P->events[s], tx_n);
    if (n) atomicMax(&P->most_out[s], n);
    if (k.now > now0) atomicMax(&P->last[s], (long long)k.now);
    if (k.emit_min < ENG_INF) atomicMin(&P->emit[s], (long long)k.emit_min);
  }
  __syncthreads();
  for (int32_t t = t0; t < nt; t += T) { /* each port's key */
    const int32_t s = P->of[t];
    if (s == 0xff || P->x[s] < 0) continue;
    eng_ctx_t k = cu_pool_ctx(c, P, s);
    const int32_t lp = t - P->first[s];
    k.now = P->last[s];
    const int64_t key = eng_port_key(&k, lp);
    c->port_key[k.p0 + lp] = key;
    if (key < ENG_INF) atomicMin(&P->best[s], (long long)key);
    if (cu_settle)
      atomicAdd((unsigned long long *)&P->settle[s],
                (unsigned long long)eng_shared_port(c, k.e, k.p0 + lp));
  }
  __syncthreads();
  for (int32_t s = tid; s < ns; s += T) { /* each switch's end */
    if (P->x[s] < 0) continue;
    eng_ctx_t k = cu_pool_ctx(c, P, s);
    k.now = P->last[s];
    k.emit_min = P->emit[s];
    k.events = P->events[s];
    c->node[k.x].c_phased++;
    c->node[k.x].c_offpath += k.events - (P->most_in[s] + P->most_out[s]);
    c->node[k.x].c_inpath += P->most_in[s];
    if (cu_settle) c->node[k.x].shared += P->settle[s];
    c->node[k.x].keys_ok = 1;
    eng_node_end(&k, P->best[s]);
  }
  __syncthreads();
  if (tid == 0) cu_pool_empty(P);
}

#endif
