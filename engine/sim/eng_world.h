/* The world: every experiment of a batch in one set of tables (one per
 * archetype: experiment, node, port, flow, plus packet storage and routes), a
 * column per component, or a row struct for the fields one thread steps
 * together. Columns are declared once in ENG_COLUMNS; the struct,
 * allocation, GPU copies and names are generated from that list. Internal to
 * engine/sim (and tests of its internals); callers use eng.h. */
#ifndef ENG_WORLD_H
#define ENG_WORLD_H

#include <assert.h>
#include <stddef.h>
#include <stdint.h>

#include "cc/cc_types.h"
#include "sim/eng.h"
#include "base/base_hd.h"
#include "sim/eng_params.h"
#include "tg/tg.h"
#include "topo/topo.h"

#define ENG_INF INT64_MAX

/* A packet record: in a link ring (in flight) or a node's descriptor pool
 * (queued). 32 bytes. */
typedef struct eng_pkt_t {
  int64_t t;        /* arrival time at the far end of the link, ps */
  uint32_t flow;    /* flow row in the world */
  uint32_t psn;     /* data: sequence number; ACK/NACK: the number carried */
  int32_t next;     /* pool: next descriptor in the same queue, -1 at the tail */
  uint16_t wire;    /* bytes on the wire */
  uint8_t type;     /* eng_pkt_type_t */
  uint8_t flags;    /* ENG_F_* */
  uint16_t in_port; /* local ingress port while queued */
  uint8_t cls;      /* its flow's class (priority): what a relay queues it by */
  uint8_t pad8;
  uint32_t pad32;
} eng_pkt_t;

/* A re-order tolerant receiver's record of packets received beyond rcv_nxt:
 * bit i of w[i / 64] is sequence rcv_nxt + 1 + i. */
#define ENG_RX_WORDS (ENG_RX_WINDOW / 64)
typedef struct eng_rxmap_t {
  uint64_t w[ENG_RX_WORDS];
} eng_rxmap_t;

/* One end of a flow as a hop needs it to route and hash a packet heading there
 * or coming from there: everything in one place, one cache line per flow. */
typedef struct eng_fend_t {
  int32_t node;      /* node row */
  int32_t id;        /* node id within the experiment (hashes) */
  int32_t group;     /* its destination group */
  int32_t edge_node; /* node row of its edge switch, -1 if none */
  int32_t edge_port; /* that switch's local port towards it */
  uint32_t port;     /* its L4 port: sport at the source, dport at the destination */
} eng_fend_t;

typedef struct eng_fhdr_t {
  eng_fend_t end[2]; /* 0: the source, 1: the destination */
  int32_t idx;       /* index of its task in the experiment's task graph (spraying) */
  int32_t pad;
} eng_fhdr_t;

/* A flow's way through the network in one direction: the nodes, in path
 * order, where its packets' egress is looked up in an ECMP set, and the local
 * port each takes (eng_route); node -1: none. Built with the world for
 * experiments routed by ECMP, where that port depends on the flow and the
 * node alone (eng_build.c); a way of more than ENG_WAY_HOPS such nodes,
 * spraying and flowlets leave the rest to the sets. One sector. */
#define ENG_WAY_HOPS 5
typedef struct eng_fhops_t {
  int32_t node[ENG_WAY_HOPS]; /* node rows */
  uint16_t port[ENG_WAY_HOPS];
  uint16_t pad;
} eng_fhops_t;

typedef struct eng_fway_t {
  eng_fhops_t dir[2]; /* 0: towards the source (ACK, NACK, CNP); 1: towards the destination */
} eng_fway_t;

/* A relay's flowlet entry (adaptive load balancing). */
typedef struct eng_flowlet_t {
  int64_t last; /* ps of the flow's last packet here */
  uint32_t key; /* flow index * 2 + direction */
  int32_t port; /* local port of the current flowlet; -1: empty */
} eng_flowlet_t;

typedef enum eng_pkt_type_t {
  ENG_PKT_DATA = 0,
  ENG_PKT_ACK = 1,
  ENG_PKT_NACK = 2,
  ENG_PKT_CNP = 3, /* congestion notification (DCQCN), receiver to sender */
} eng_pkt_type_t;

enum {
  ENG_F_CE = 1,       /* congestion experienced (set by a switch) */
  ENG_F_ECE = 2,      /* ACK echoes CE */
  ENG_F_HOSTSLOT = 4, /* queued in a host control descriptor */
  ENG_F_FULL = 8,     /* data of a whole mtu: it takes its port's ser_full */
};

/* Row structs: the fields of a node, port, class queue, flow or task that one
 * thread reads and writes together as it steps an event, side by side in
 * memory, where a column each cost a 32-byte memory sector of its own a read.
 * Hot fields first; each struct fills whole sectors (pad, checked below), so
 * that a row starts on a sector and its first fields share one. The fields
 * many threads read across rows (a node's idle check, a switch's port keys)
 * stay columns of their own. */

/* A node row (hosts and switches): what one thread reads and writes as it steps the node. */
typedef struct eng_node_t {
  int64_t now;               /* ps: time of the last event processed */
  int64_t buf_used;          /* bytes of relayed data queued */
  int64_t shared;            /* bytes of the shared buffer used (above reserves and headroom) */
  int64_t mmu_fixed;         /* bytes of the buffer held as reserves and headroom */
  int32_t port_off;          /* first port row */
  int32_t n_ports;
  int32_t free_head;         /* first returned descriptor (pool row), -1 if none */
  int32_t pool_next;         /* next never-used pool row (descriptors are touched lazily) */
  int32_t sw_free;           /* free relay descriptors */
  int32_t host_free;         /* free descriptors for the host's own control packets */
  int32_t task_off;          /* first task row it owns (also its heap) */
  int32_t n_tasks;
  int32_t heap_n;            /* pending task and flow-timer events in its heap */
  int32_t id;                /* node id within its experiment */
  int32_t flow_off;          /* first flow row this host sends (also its rank map) */
  int32_t n_flows;
  int32_t rr;                /* rank of the flow served last */
  int32_t n_ranks;           /* flows started so far (ranks given) */
  int32_t rbit_off;          /* ready-flow bitsets: n_ports x rbit_words words */
  int32_t rbit_words;
  int32_t poke_off;          /* poke bits of its tasks: 2 banks x poke_words words */
  int32_t poke_words;
  int32_t route_row;         /* route row (of n_groups entries), -1: single port */
  int32_t set_base;          /* first set row of this node */
  int32_t flet_off;          /* first flowlet entry (relays) */
  int32_t pool_end;          /* past its last pool row: a take beyond it fails (ENG_FAIL_POOL) */
  uint8_t is_switch;
  uint8_t keys_ok;           /* its ports' cached event keys are current */
  uint8_t tier;              /* 0 hosts, 1 switches next to hosts, 2 the next tier, ... */
  int64_t c_hops;
  int64_t c_events;          /* events stepped (a node's work: MULTIVERSE_STATS) */
  int64_t c_drops;
  int64_t c_ecn;
  int64_t c_pauses;
  int64_t c_retx;
  int64_t c_timeouts;
  int64_t c_cnps;            /* CNPs sent */
  int64_t c_retx_bytes;      /* payload bytes sent again */
  int64_t c_phased;          /* steps in port phases (eng_phase.h) */
  int64_t c_offpath;         /* their events off their critical paths */
  int64_t c_inpath;          /* their critical paths' busiest ingresses' events */
} eng_node_t;

/* An egress port row (port p's peer reads p's rings), a sector each: what a
 * port's key reads of its own row (eng_tx_time; eng_link_key's peer), where
 * its rings lie, their cursors. So a port's key reads three sectors (its own
 * first, its peer's second and third) and a window's commit (eng_port_commit)
 * one. */
typedef struct eng_port_t {
  int64_t busy_until;        /* ps */
  int64_t q_bytes;           /* bytes queued in its class queues */
  int32_t peer;              /* port row at the other end of the link */
  int32_t cq_head;           /* control queue (pool rows), -1 empty */
  int32_t n_ready;           /* host: own flows eligible to send on this port now */
  uint8_t paused;            /* classes paused by PAUSEs from the peer */
  uint8_t cls_live;          /* bit cl: class cl's queue holds packets (ENG_CLASSES <= 8) */
  uint8_t cls_psent;         /* as an ingress, bit cl: a PAUSE of class cl outstanding */
  uint8_t cls_hdrm;          /* as an ingress, bit cl: class cl holds headroom bytes */
  int32_t ring_off;          /* first ring row */
  uint32_t ring_mask;        /* capacity - 1 (power of two) */
  int32_t pfc_off;           /* first PFC-ring row */
  uint32_t pfc_mask;         /* capacity - 1 (power of two) */
  int32_t node;
  int32_t cls_off;           /* first row of its classes (exp_n_cls of them) */
  int32_t rr_cls;            /* class served last (round robin among classes) */
  int32_t cq_tail;
  uint32_t ring_tail;        /* written by the owner */
  uint32_t ring_pub;         /* tail as of the last commit: what the peer may read */
  uint32_t ring_head;        /* written by the peer as it consumes */
  uint32_t ring_hsnap;       /* head as of the last commit: what the owner may reuse */
  uint32_t pfc_tail;
  uint32_t pfc_pub;
  uint32_t pfc_head;
  uint32_t pfc_hsnap;
  int64_t rate;              /* bit/s */
  int64_t delay;             /* ps */
  int64_t ser_full;          /* serialisation of a full data packet (mtu + header), ps */
  int64_t ser_ctrl;          /* serialisation of a control packet (ctrl_bytes), ps */
  int64_t kmin;              /* bytes */
  int64_t kmax;              /* bytes */
  uint64_t pmax_q32;         /* floor(pmax * 2^32) */
  uint64_t err_q32;          /* floor(loss rate * 2^32) */
  uint64_t deq_count;        /* data packets dequeued (RED draw counter) */
  uint64_t tx_count;         /* transmissions (loss draw counter) */
  uint64_t tx_bytes;         /* bytes sent (HPCC telemetry) */
  int64_t busy_ps;           /* time spent transmitting, ps */
  int64_t q_max;             /* largest data queue seen, bytes */
  int64_t paused_since;      /* ps the current pause began; -1: not paused */
  int64_t paused_ps;         /* time spent paused, ps */
  int64_t hdrm_cap;          /* as an ingress: its PFC headroom, bytes */
  int64_t pfc_a16;           /* as an ingress: its PFC threshold factor x 2^16 */
  uint8_t pad[24]; /* to whole sectors */
} eng_port_t;

/* A class queue row: exp_n_cls per port, as its egress and as an ingress. */
typedef struct eng_cls_t {
  int64_t q_bytes;           /* bytes queued */
  int64_t in_bytes;          /* as an ingress: bytes it brought that are queued, not headroom */
  int64_t hdrm;              /* as an ingress: bytes it brought held in headroom */
  int32_t dq_head;           /* queue (pool rows), -1 empty */
  int32_t dq_tail;
  int32_t n_ready;           /* host: own flows of the class eligible to send here now */
  uint8_t paused;            /* by a PAUSE of this class from the peer */
  uint8_t pad[27];           /* to whole sectors (a PAUSE it sent: its port's cls_psent) */
} eng_cls_t;

/* A flow row: its header first (what every hop of its packets reads), then
 * sender fields written by src, receiver fields by dst. */
typedef struct eng_flow_t {
  eng_fhdr_t hdr;            /* its two ends and task index, as hops read them */
  int32_t cls;               /* its class queue: its priority with `classes`, else 0 */
  int32_t task;              /* task row */
  uint32_t snd_nxt;
  uint32_t snd_una;
  uint32_t max_sent;
  uint32_t npkts;
  int32_t ccx;               /* its row in the table of its experiment's algorithm */
  int32_t rank;              /* rank at its source once started, -1 before */
  int32_t rport;             /* local port whose ready bitset holds it, -1: not eligible */
  int64_t rto_at;            /* ps; ENG_INF: disarmed */
  uint64_t bytes;
  int64_t start;             /* ps: its start event; -1 before */
  cc_state_t cc;             /* sender: congestion-control state of every flow */
  uint32_t rcv_nxt;
  uint32_t nack_for;         /* rcv_nxt a NACK was sent for; UINT32_MAX: none */
  int64_t recv;              /* ps: the receiver held every byte; -1 until then */
  int64_t cnp_last;          /* receiver: ps of its last CNP, -1: none */
  eng_rxmap_t rx_map;        /* receiver: out-of-order packets held (reorder on) */
  uint8_t pad[24]; /* to whole sectors */
} eng_flow_t;

/* A task row (grouped by owner host, in task order within a host): its heap key first. */
typedef struct eng_task_t {
  int64_t hkey;              /* key of its pending event in its owner's heap; ENG_INF: none */
  int64_t end;               /* ps; -1 until it ended (read by other hosts' tasks) */
  int64_t start;             /* ps of its start event (planned until started); -1: none */
  int32_t hidx;              /* tie-break of that event: its number at the owner, or its rank */
  int32_t hpos;              /* position in the owner's heap, -1: not there */
  uint8_t kind;              /* tg_kind_t */
  uint8_t spred;             /* 1: its first predecessor is its stream's previous member */
  uint8_t started;
  int32_t flow;              /* flow row, -1 */
  int32_t node;              /* owner node row */
  int32_t need;              /* predecessors needed; 0: all */
  int32_t pcur;              /* all-of: predecessors [0, pcur) are known */
  int32_t npred;
  int32_t pred_off;          /* its predecessors: pred rows [pred_off, pred_off + npred) */
  int32_t nsucc;
  int32_t succ_off;          /* its successors: succ rows [succ_off, succ_off + nsucc) */
  int32_t gpu;               /* its GPU's row, -1: none */
  int32_t rate;              /* work done per ps: overlap_q16 (full speed) or 65536 (slowed) */
  int32_t gnext;             /* next running compute task of its GPU, -1 */
  int32_t idx;               /* index in the experiment's task graph */
  int32_t exp;
  int64_t tmin;              /* ps: earliest start */
  int64_t delay;             /* ps after the predecessors are known */
  int64_t dur;               /* ps: compute and coll */
  int64_t kmax;              /* ps: the latest known time among them */
  int64_t rem;               /* compute, slowed or not: work left, ps x overlap_q16 */
  int64_t tupd;              /* ps: when rem was last brought up to date */
  uint8_t pad[24]; /* to whole sectors */
} eng_task_t;

static_assert(sizeof(eng_node_t) % 32 == 0 && sizeof(eng_port_t) % 32 == 0 &&
                  sizeof(eng_cls_t) % 32 == 0 && sizeof(eng_flow_t) % 32 == 0 &&
                  sizeof(eng_task_t) % 32 == 0,
              "row structs fill whole 32-byte sectors");
static_assert(offsetof(eng_port_t, ring_off) == 32 && offsetof(eng_port_t, ring_tail) == 64 &&
                  offsetof(eng_port_t, rate) == 96,
              "a port's key fields, ring places and ring cursors fill a sector each");

/* X(table, type, member): the world's columns, each of its table's row count
 * (eng_world_t.n); a row struct is one column of its table. */
#define ENG_COLUMNS(X)                                                                             \
  /* experiment table */                                                                           \
  X(exp, uint64_t, exp_seed)        /* counter-based RNG key */                                    \
  X(exp, int64_t, exp_window)       /* ps: smallest link delay */                                  \
  X(exp, int64_t, exp_t)            /* ps: start of the current window */                          \
  X(exp, int64_t, exp_t_end)        /* ps: end of the current window */                            \
  X(exp, int64_t, exp_next_t)       /* ps: earliest pending event (reduced with atomic min) */     \
  X(exp, int32_t, exp_status)       /* eng_status_t */                                             \
  X(exp, int64_t, exp_fail)         /* eng_fail_t, reduced with atomic min; INF: none */           \
  X(exp, int64_t, exp_tasks_done)   /* reduced with atomic add */                                  \
  X(exp, int32_t, exp_n_tasks)                                                                     \
  X(exp, int32_t, exp_task_off)     /* first task row */                                           \
  X(exp, int32_t, exp_n_flows)                                                                     \
  X(exp, int32_t, exp_flow_off)                                                                    \
  X(exp, int32_t, exp_node_off)                                                                    \
  X(exp, int32_t, exp_n_nodes)                                                                     \
  X(exp, int32_t, exp_port_off)                                                                    \
  X(exp, int32_t, exp_n_ports)                                                                     \
  X(exp, int64_t, exp_windows)      /* windows stepped */                                          \
  X(exp, int32_t, exp_n_cls)        /* class queues per port: 8 with `classes`, else 1 */          \
  X(exp, uint8_t, exp_phases) /* ENG_PHASES_*: switches in port phases (MULTIVERSE_PHASES) */      \
  /* parameters: exp_<field> of every COL line of ENG_PARAMS (eng_params.h) */                     \
  ENG_PARAMS(ENG_PARAM_COLUMN, X)                                                                  \
  /* node table (hosts and switches) */                                                            \
  X(node, eng_node_t, node)         /* the row: eng_node_t */                                      \
  X(node, int32_t, node_exp)                                                                       \
  X(node, int64_t, node_next)       /* ps: its next own event when its step ended */               \
  X(node, uint8_t, node_woken)      /* a link into it published something since its step */        \
  X(node, uint8_t, node_poked0)     /* a task of its was poked in a window of even / odd parity */ \
  X(node, uint8_t, node_poked1)                                                                    \
  /* port table (egress ports; port p's peer reads p's rings) */                                   \
  X(port, eng_port_t, port)         /* the row: eng_port_t */                                      \
  X(port, int64_t, port_key) /* key of the port's next event (eng_key), cached by its node */      \
  X(port, int32_t, port_twin) /* switch: node (row - first port) of its port tree (eng_step) */    \
  X(port, uint32_t, port_ph_cur) /* port phases: an egress's read position in this ring */ \
  /* flow table: sender columns written by src, receiver columns by dst */                         \
  X(flow, eng_flow_t, flow)         /* the row: eng_flow_t */                                      \
  X(flow, eng_fway_t, flow_way)     /* its ways, as its relays route it: eng_fway_t */             \
  /* task table: rows grouped by owner host, in task order within a host */                        \
  X(task, eng_task_t, task)         /* the row: eng_task_t */                                      \
  X(gpu, int32_t, gpu_comm)         /* per GPU: its communication tasks running now */             \
  X(gpu, int32_t, gpu_run)          /* its first running compute task (task row), -1 */            \
  X(dcqcn, cc_dcqcn_t, dcqcn_s)     /* per-flow state of each CC algorithm: one table each */      \
  X(dctcp, cc_dctcp_t, dctcp_s)                                                                    \
  X(hpcc, cc_hpcc_t, hpcc_s)                                                                       \
  X(pred, int32_t, pred_e)          /* predecessor task row * 2 + tg_on_t */                       \
  X(succ, int32_t, succ_e)          /* successor task row * 2 + the tg_on_t it waits for */        \
  X(heap, int32_t, heap_task)       /* per host: binary heap of task rows by (hkey, hidx) */       \
  X(rank, int32_t, rank_flow)       /* per host: flow row of each rank */                          \
  X(rbit, uint64_t, rbit_w) /* per host port: bit r set when the flow of rank r is eligible */     \
  X(poke, uint32_t, poke_w)         /* per host: bit i set when its task i must be re-evaluated */ \
  /* storage */                                                                                    \
  X(pool, eng_pkt_t, pool_pkt)      /* descriptors, per node */                                    \
  X(ring, eng_pkt_t, ring_pkt)      /* in-flight packets, per port */                              \
  X(pfc, int64_t, pfc_t)            /* PFC frame arrival, ps; per port */                          \
  X(pfc, uint8_t, pfc_pause)        /* class * 2 + 1: PAUSE, class * 2: RESUME */                  \
  X(route, uint32_t, route_set)     /* set id local to the node (TOPO_NO_ROUTE: none) */           \
  X(set, uint32_t, set_off)         /* CSR into setport */                                         \
  X(setport, uint16_t, setport_port) /* local port */                                              \
  X(flet, eng_flowlet_t, flet_entry) /* ENG_FLOWLETS per relaying node */                          \
  /* class queues: exp_n_cls rows per port, as its egress and as an ingress */                     \
  X(cls, eng_cls_t, cls)            /* the row: eng_cls_t */                                       \
  /* time series of a traced experiment (eng_trace_desc_t) */                                      \
  X(exp, int64_t, exp_tr_every)     /* ps between samples; 0: not traced */                        \
  X(exp, int64_t, exp_tr_next)      /* ps: the next window end at or after this is sampled */      \
  X(exp, int32_t, exp_tr_count)     /* samples taken */                                            \
  X(exp, int32_t, exp_tr_cap)       /* samples it has room for */                                  \
  X(exp, int32_t, exp_tr_ser)       /* first series row */                                         \
  X(exp, int32_t, exp_tr_nser)      /* series, the sample time included */                         \
  X(exp, int32_t, exp_tr_off)       /* first value row */                                          \
  X(tser, int32_t, tser_exp)                                                                       \
  X(tser, int32_t, tser_kind)       /* eng_trace_kind_t */                                         \
  X(tser, int32_t, tser_row)        /* flow or port row */                                         \
  X(tval, double, tval_v)           /* (tr_cap, tr_nser) per traced experiment */                  \
  X(pint, cc_int_t, pint_v) /* telemetry of pool descriptors (if some experiment runs HPCC) */ \
  X(rint, cc_int_t, rint_v) /* telemetry of link-ring slots (likewise) */

typedef enum eng_table_t {
  ENG_T_exp,
  ENG_T_node,
  ENG_T_port,
  ENG_T_flow,
  ENG_T_task,
  ENG_T_dcqcn,
  ENG_T_dctcp,
  ENG_T_hpcc,
  ENG_T_pred,
  ENG_T_succ,
  ENG_T_heap,
  ENG_T_gpu,
  ENG_T_rank,
  ENG_T_rbit,
  ENG_T_poke,
  ENG_T_pool,
  ENG_T_ring,
  ENG_T_pfc,
  ENG_T_route,
  ENG_T_set,
  ENG_T_setport,
  ENG_T_flet,
  ENG_T_cls,
  ENG_T_tser,
  ENG_T_tval,
  ENG_T_pint,
  ENG_T_rint,
  ENG_T_COUNT
} eng_table_t;

/* Packet storage tables: read only where a run wrote them first. */
static inline int eng_table_is_storage(int t) {
  return t == ENG_T_pool || t == ENG_T_ring || t == ENG_T_pfc || t == ENG_T_pint || t == ENG_T_rint;
}

/* Column pointers (host or device memory, same layout): w.<member>[row], a
 * row struct's field w.<table>[row].<field>. */
typedef struct eng_cols_t {
#define ENG_DECL(tab, type, name) type *name;
  ENG_COLUMNS(ENG_DECL)
#undef ENG_DECL
} eng_cols_t;

typedef struct eng_world_desc_t {
  int32_t n_exps;
  const eng_exp_desc_t *exps; /* valid (eng_exp_validate); what they point to
                               * must outlive the world */
  /* 1: size every link's ring for back-to-back minimum-size packets and every
   * node's descriptor pool for its whole budget, so neither can overflow.
   * 0 (default): rings as MULTIVERSE_RINGS says for each experiment (auto:
   * worst-case where they at most double its bytes, else for MTU packets with
   * room to spare, and for MTU packets throughout where worst-case ones would
   * pass a table's row limit and these would not: docs/engine.md), pools as
   * MULTIVERSE_POOLS says (compact, the default: a quarter of the budget); an
   * experiment whose compact ring or pool overflows is run again with
   * worst-case storage by eng_world_run (same results: storage's size changes
   * nothing but whether it overflows). */
  int32_t worst_storage;
  int32_t threads; /* host threads that fill its rows; 0: one (the rows are the same) */
} eng_world_desc_t;

typedef struct eng_world_t {
  int64_t n[ENG_T_COUNT]; /* rows per table */
  eng_cols_t c;           /* host copies */
  int32_t n_exps;
  int32_t threads;         /* CPU backend: OpenMP threads; 0 = as many as the work merits */
  int32_t max_threads;     /* CPU backend, threads 0: at most this many (0: OpenMP's limit) */
  int32_t threads_used;    /* what the CPU backend ran with (0: it did not run) */
  int32_t *exp_task_row;   /* (n_tasks) task row of each experiment's task i (task order) */
  uint8_t *worst_rings_of; /* (n_exps) 1: experiment e's rings are worst-case (as counted) */
  eng_world_desc_t desc;   /* what it was built from (exps copied) */
  /* Experiments whose results are in other worlds: run again with worst-case
   * storage after their compact rings or pools overflowed (in halves where one world
   * would have too many rows), or a batch split because it did not fit in
   * device memory. Experiment e is experiment part_idx[e] of
   * parts[part_of[e]] (part_of[e] = -1: here). */
  int32_t n_parts, cap_parts;
  struct eng_world_t **parts;
  int32_t *part_of, *part_idx;
} eng_world_t;

/* Rows experiment x needs in each table alone (its own routing tables; HPCC
 * telemetry if it runs HPCC). 0, or -1 when out of memory. */
int eng_world_rows(const eng_exp_desc_t *x, int worst_storage, int64_t rows[ENG_T_COUNT]);
/* The same from its task graph's size on its topology (eng_graph_size: what
 * experiments sharing both count once); x->tasks is not read. */
void eng_world_rows_sized(const eng_exp_desc_t *x, const eng_graph_size_t *s, int worst_storage,
                          int64_t rows[ENG_T_COUNT]);
/* Most rows one table of a world may have: 2^30 (int32 offsets with room to
 * add two), or MULTIVERSE_WORLD_ROWS if set and smaller (to test batches of
 * several worlds). */
int64_t eng_world_row_limit(void);
/* 0 if every link of x holds its worst-case ring (at most 2^27 packets per
 * direction); else -1 with a message naming the link (or ring_cap). */
int eng_world_rings_check(const eng_exp_desc_t *x, char *err, size_t errlen);
/* Bytes of one row of each table. */
int64_t eng_world_row_bytes(int table);
/* Rows of the batch of n experiments as a world of them counts them (rings
 * as eng_world_desc_t's worst_storage says): experiments on one topology share
 * its routing tables, and HPCC telemetry is held for all once one runs HPCC;
 * worst_of (NULL: not wanted) receives each experiment's ring kind (1:
 * worst-case). 0 or -1 when out of memory. */
int eng_world_batch_rows(int32_t n, const eng_exp_desc_t *x, int worst_storage,
                         int64_t rows[ENG_T_COUNT], uint8_t *worst_of);

/* Builds the tables for a batch. 0, or ENG_E_NOMEM / ENG_E_TOO_BIG with a
 * message (*out NULL). */
int eng_world_create(const eng_world_desc_t *d, eng_world_t **out, char *err, size_t errlen);
/* Bytes of the tables eng_world_create would build for d (-1 when out of
 * memory counting): what a GPU must hold, known before anything is built. */
int64_t eng_world_estimate(const eng_world_desc_t *d);
void eng_world_destroy(eng_world_t *w);
/* Bytes of all its tables (what the CUDA backend allocates on the device). */
int64_t eng_world_bytes(const eng_world_t *w);

/* Runs every experiment to its end on the chosen backend. A batch larger than
 * the GPU's free memory is split in halves (recursively) and each half run in
 * turn. 0 or an eng_err_t with a message (ENG_E_NOMEM: one experiment alone
 * does not fit). */
int eng_world_run(eng_world_t *w, eng_backend_t backend, char *err, size_t errlen);
int eng_run_cpu(eng_world_t *w);
/* As eng_world_run, one world as it is; ENG_NO_DEVICE_MEMORY when it did not fit,
 * -1 on other failures (with a message). */
int eng_run_cuda(eng_world_t *w, char *err, size_t errlen);
/* ENG_NO_DEVICE_MEMORY from eng_run_cuda: the world did not fit. */
#define ENG_NO_DEVICE_MEMORY ENG_E_NOMEM
/* Bytes of device memory free now (0 without CUDA). */
size_t eng_cuda_free_bytes(void);

void eng_world_result(const eng_world_t *w, int32_t e, eng_result_t *r);
/* Time series of experiment e: samples taken, and value `series` of sample k
 * (series 0 is the time, then 2 per traced flow, then 1 per traced port). */
int32_t eng_world_trace_samples(const eng_world_t *w, int32_t e);
double eng_world_trace_value(const eng_world_t *w, int32_t e, int32_t k, int32_t series);

/* Times (ps, -1 if it never happened) of task `i` (task order) of experiment e:
 * its start, its end (a flow's finish), and a flow's reception (else -1). */
int64_t eng_task_start(const eng_world_t *w, int32_t e, int32_t i);
int64_t eng_task_end(const eng_world_t *w, int32_t e, int32_t i);
int64_t eng_task_recv(const eng_world_t *w, int32_t e, int32_t i);
/* Bytes the receiver of flow task `i` holds in order; -1 if it is not a flow. */
int64_t eng_task_delivered_w(const eng_world_t *w, int32_t e, int32_t i);

#endif
