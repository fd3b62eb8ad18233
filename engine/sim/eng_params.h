/* Network parameters of one experiment, declared once in ENG_PARAMS (and
 * CC_PARAMS, cc/cc_types.h): the struct below, the experiment columns
 * (eng_world.h), build's copies, the ranges (eng_params_check and jobs/), the
 * keys users write with their units (jobs/: --set, job files, presets,
 * canonical text) and docs/parameters.md are generated from those rows.
 * Defaults live in jobs/presets/network.json; docs/model.md defines what each
 * one does. */
#ifndef ENG_PARAMS_H
#define ENG_PARAMS_H

#include <stddef.h>
#include <stdint.h>

#include "cc/cc_types.h"

typedef enum eng_lb_t { ENG_LB_ECMP = 0, ENG_LB_SPRAY = 1, ENG_LB_ADAPTIVE = 2 } eng_lb_t;

/* Which network model runs an experiment (docs/model.md): the exact packet
 * level, or the flow level (max-min fair rates, engine/flow). */
typedef enum eng_model_t { ENG_MODEL_PACKET = 0, ENG_MODEL_FLOW = 1 } eng_model_t;

/* Packets beyond rcv_nxt a re-order tolerant receiver can hold. */
#define ENG_RX_WINDOW 256
/* Flowlet entries per relay (lb = adaptive), indexed by flow hash. */
#define ENG_FLOWLETS 64
/* Class queues per port with `classes` (the ns-3 HPCC simulator's 8 queues;
 * flows use classes 1..7). */
#define ENG_CLASSES 8

/* ECN thresholds for ports of one link speed. */
typedef struct eng_ecn_row_t {
  int64_t gbps; /* port rate this row applies to (nearest not above, else lowest) */
  int64_t kmin; /* bytes */
  int64_t kmax; /* bytes */
  double pmax;  /* [0, 1] */
} eng_ecn_row_t;

#define ENG_ECN_ROWS_MAX 16

/* RED thresholds by port speed, rows by ascending gbps. */
typedef struct eng_ecn_table_t {
  int32_t n;
  eng_ecn_row_t row[ENG_ECN_ROWS_MAX];
} eng_ecn_table_t;

/* A numeric key's values in its user's unit: [lo, hi], or (lo, hi] with
 * lo_open; with `derived` -1 is accepted too and means "derived" (the words
 * say from what). `words` states the range in messages and docs. */
typedef struct eng_range_t {
  int32_t numeric; /* 0: not a number (BOOL, LB, CC, ECN_TABLE): no range */
  double lo, hi;
  int32_t lo_open, derived;
  const char *words;
} eng_range_t;
#define ENG_RANGE(lo, hi, lo_open, derived, words)                                                 \
  { 1, lo, hi, lo_open, derived, words }
#define ENG_NORANGE                                                                                \
  { 0, 0, 0, 0, 0, NULL }

/* X(A, key, unit, type, field, col, range, doc), one row per parameter (A
 * passes through to X):
 *   key    what users write: --set KEY=VALUE, network.KEY of a job file, the
 *          defaults of jobs/presets/network.json
 *   unit   how the user's value becomes the stored one (jobs/job_param.c):
 *          COUNT integer; BOOL true/false; KIB KiB -> bytes; MIB MiB -> bytes;
 *          US us -> ps; S s -> ps; REAL as is; MBPS Mb/s -> bit/s; Q16 number x
 *          2^16; LB, CC, MODEL a name; ECN_TABLE {"GBPS": [kmin_KB, kmax_KB, pmax]};
 *          KIB and MBPS store any negative value as -1 ("derived")
 *   type field   its storage in eng_params_t
 *   col    COL: copied into the experiment column exp_<field> (eng_world.h);
 *          NOCOL: read while building the world only
 *   range  ENG_RANGE(...) in the user's unit, or ENG_NORANGE: checked where a
 *          value is read (jobs/) and by eng_params_check
 *   doc    one line: what it does (docs/parameters.md and `multiverse params`
 *          are generated from these rows)
 * Adding a parameter is one row here (or in CC_PARAMS) and its default and
 * source in jobs/presets/network.json; a rule that ties it to other keys goes
 * into eng_params_check. */
#define ENG_PARAMS(X, A)                                                                           \
  X(A, mtu, COUNT, int32_t, mtu, COL,                                                              \
    ENG_RANGE(1, 65000, 0, 0, "1 to 65000 bytes (and mtu + header at most 65000)"),                \
    "payload bytes per data packet")                                                               \
  X(A, header, COUNT, int32_t, header, COL,                                                        \
    ENG_RANGE(0, 64999, 0, 0, "0 to 64999 bytes (and mtu + header at most 65000)"),                \
    "wire bytes added to each data packet (RoCEv2 framing)")                                       \
  X(A, ctrl_bytes, COUNT, int32_t, ctrl_bytes, COL, ENG_RANGE(1, 65000, 0, 0, "1 to 65000 bytes"), \
    "wire bytes of an ACK, NACK or CNP")                                                           \
  X(A, buffer_mb, MIB, int64_t, buffer, COL,                                                       \
    ENG_RANGE(0, 65536, 1, 0, "more than 0 and at most 65536 MiB (64 GiB)"),                       \
    "shared data buffer per switch")                                                               \
  X(A, pool_pkts, COUNT, int32_t, pool_pkts, NOCOL,                                                \
    ENG_RANGE(0, 16777216, 0, 0, "0 (derived from buffer_mb) or 1 to 16777216 (2^24) packets"),    \
    "packet descriptors per switch; 0: ceil(buffer / (mtu + header)) + 8 x ports, a buffer full "  \
    "of MTU packets plus room for control packets")                                                \
  X(A, host_slots, COUNT, int32_t, host_slots, NOCOL,                                              \
    ENG_RANGE(1, 65536, 0, 0, "1 to 65536 packets"),                                               \
    "a NIC's queue of outgoing ACK/NACK, in packets")                                              \
  X(A, pfc, BOOL, int32_t, pfc, COL, ENG_NORANGE, "lossless: PAUSE/RESUME per ingress")            \
  X(A, pfc_xoff_kb, KIB, int64_t, pfc_xoff, COL,                                                   \
    ENG_RANGE(0, 67108864, 0, 0, "0 (dynamic) to 67108864 KiB (64 GiB)"),                          \
    "static XOFF per ingress; 0: dynamic, pfc_alpha x free buffer")                                \
  X(A, pfc_alpha, Q16, int64_t, pfc_a16, COL,                                                      \
    ENG_RANGE(0, 64, 1, 0, "more than 0 and at most 64"),                                          \
    "dynamic threshold factor (stored as a multiple of 2^-16)")                                    \
  X(A, pfc_resume_kb, KIB, int64_t, pfc_resume, COL,                                               \
    ENG_RANGE(0, 67108864, 0, 0, "0 to 67108864 KiB (64 GiB)"),                                    \
    "RESUME when the ingress is this far below XOFF (or empty)")                                   \
  X(A, ecn, BOOL, int32_t, ecn, COL, ENG_NORANGE, "RED marking at switch egress")                  \
  X(A, ecn_kmin_kb, KIB, int64_t, ecn_kmin, NOCOL,                                                 \
    ENG_RANGE(0, 2097152, 0, 1, "-1 (by port speed) or 0 to 2097152 KiB (2 GiB)"),                 \
    "explicit RED threshold; -1: by port speed from ecn_by_link_gbps")                             \
  X(A, ecn_kmax_kb, KIB, int64_t, ecn_kmax, NOCOL,                                                 \
    ENG_RANGE(0, 2097152, 0, 1, "-1 (by port speed) or 0 to 2097152 KiB (2 GiB)"),                 \
    "explicit RED threshold; -1: by port speed from ecn_by_link_gbps")                             \
  X(A, ecn_pmax, REAL, double, ecn_pmax, NOCOL,                                                    \
    ENG_RANGE(0, 1, 0, 1, "-1 (by port speed) or 0 to 1"),                                         \
    "explicit RED marking probability at kmax; -1: by port speed from ecn_by_link_gbps")           \
  X(A, ecn_by_link_gbps, ECN_TABLE, eng_ecn_table_t, ecn_table, NOCOL, ENG_NORANGE,                \
    "{\"GBPS\": [kmin_KB, kmax_KB, pmax], ...}: the row of the nearest speed not above a port's "  \
    "(else the lowest)")                                                                           \
  X(A, lb, LB, int32_t, lb, COL, ENG_NORANGE,                                                      \
    "ecmp (per-flow 5-tuple hash), spray (per-packet hash) or adaptive (flowlet switching, "       \
    "docs/network.md)")                                                                            \
  X(A, cc, CC, cc_params_t, ccp, COL, ENG_NORANGE,                                                 \
    "congestion control of every flow: none (line rate) or a preset of cc_presets (dcqcn = "       \
    "dcqcn_mlx, dcqcn_paper, dctcp, hpcc) that sets the keys of CC_PARAMS (and for some the ECN "  \
    "thresholds); applied first, so explicit keys override it")                                    \
  X(A, ack_every, COUNT, int32_t, ack_every, COL,                                                  \
    ENG_RANGE(1, 2147483647, 0, 0, "1 to 2147483647 packets"),                                     \
    "one ACK per N in-order packets (and the last)")                                               \
  X(A, reorder, BOOL, int32_t, reorder, COL, ENG_NORANGE,                                          \
    "receivers hold up to 256 out-of-order packets and never NACK (for spraying)")                 \
  X(A, flowlet_gap_us, US, int64_t, flowlet_gap, COL,                                              \
    ENG_RANGE(0, 1e11, 0, 0, "0 to 1e11 us (1e5 s)"),                                              \
    "lb adaptive: idle gap after which a flow's next packet starts a new flowlet")                 \
  X(A, rto_us, US, int64_t, rto, COL,                                                              \
    ENG_RANGE(0, 1e11, 1, 0, "more than 0 and at most 1e11 us (1e5 s)"), "retransmission timeout") \
  X(A, max_time_s, S, int64_t, max_time, COL,                                                      \
    ENG_RANGE(0, 1e6, 1, 0, "more than 0 and at most 1e6 s"),                                      \
    "simulated time after which an experiment is timed_out")                                       \
  X(A, ring_cap, COUNT, int32_t, ring_cap, NOCOL,                                                  \
    ENG_RANGE(0, 134217728, 0, 0, "0 (derived) or a power of two up to 134217728 (2^27) packets"), \
    "in-flight packets per link direction; 0: derived from rate and delay")                        \
  X(A, sync_us, US, int64_t, sync, COL,                                                            \
    ENG_RANGE(0, 1e6, 1, 0, "more than 0 and at most 1e6 us (1 s)"),                               \
    "the delay after which an event of one host's task is known to another host's (task graphs, "  \
    "docs/model.md)")                                                                              \
  X(A, overlap_slowdown, Q16, int64_t, overlap_q16, COL, ENG_RANGE(1, 10, 0, 0, "1 to 10"),        \
    "a compute task of a GPU runs this factor slower while a communication task of the same GPU "  \
    "runs (task graphs); training experiments take their GPU's factor")                            \
  /* Semantics of the ns-3 HPCC simulator (docs/model.md; the preset ns3_hpcc sets them all): */   \
  X(A, ser_floor_ns, BOOL, int32_t, ser_floor_ns, COL, ENG_NORANGE,                                \
    "serialisation and pacing times truncated to whole ns, as the ns-3 HPCC simulator's clock")    \
  X(A, classes, BOOL, int32_t, classes, COL, ENG_NORANGE,                                          \
    "a flow's priority (1..7) is its traffic class: a queue per class at every port, PFC per "     \
    "ingress and class, round robin among classes")                                                \
  X(A, ack_with_data, BOOL, int32_t, ack_with_data, COL, ENG_NORANGE,                              \
    "switches queue ACK/NACK in their flow's class queue (counted towards PFC and ECN) instead "   \
    "of with strict priority")                                                                     \
  X(A, ack_pause, BOOL, int32_t, ack_pause, COL, ENG_NORANGE,                                      \
    "a host holds its ACK/NACK while their flow's class is paused")                                \
  X(A, pfc_reserve_kb, KIB, int64_t, pfc_reserve, COL,                                             \
    ENG_RANGE(0, 67108864, 0, 0, "0 to 67108864 KiB (64 GiB)"),                                    \
    "bytes per ingress port and class outside the shared buffer")                                  \
  X(A, pfc_headroom_bdp, REAL, double, pfc_headroom, COL,                                          \
    ENG_RANGE(0, 100000, 0, 1, "-1 (none) or 0 to 100000 one-way bandwidth-delay products"),       \
    "headroom per ingress port in one-way bandwidth-delay products (rate x delay); -1: none, "     \
    "admission by the buffer alone")                                                               \
  X(A, pfc_alpha_by_rate, BOOL, int32_t, pfc_alpha_by_rate, NOCOL, ENG_NORANGE,                    \
    "pfc_alpha doubles for each doubling of a port's rate above the NIC rate (at most 1)")         \
  X(A, pfc_frame_bytes, COUNT, int32_t, pfc_frame_bytes, COL,                                      \
    ENG_RANGE(0, 65000, 0, 0, "0 (no transmission time) to 65000 bytes"),                          \
    "a PFC frame's bytes: it waits for the packet on the wire and holds the port; 0: no "          \
    "transmission time")                                                                           \
  X(A, ecmp_ns3, BOOL, int32_t, ecmp_ns3, COL, ENG_NORANGE,                                        \
    "ECMP with the ns-3 HPCC simulator's hash and next-hop order")                                 \
  X(A, base_rtt_ns3, BOOL, int32_t, base_rtt_ns3, NOCOL, ENG_NORANGE,                              \
    "base RTT as the ns-3 HPCC simulator: twice the path delay plus one MTU payload per hop")      \
  X(A, standalone_header, COUNT, int32_t, standalone_header, NOCOL,                                \
    ENG_RANGE(0, 65000, 0, 1, "-1 (exact) or 0 to 65000 bytes"),                                   \
    "standalone FCT column: -1 exact; >= 0: base RTT + (size + packets x this) x 8 / bottleneck "  \
    "rate")                                                                                        \
  X(A, model, MODEL, int32_t, model, NOCOL, ENG_NORANGE,                                           \
    "packet (every packet, queue and congestion control) or flow (each flow at the max-min fair "  \
    "share of its path's links, no packets; docs/model.md)")

typedef struct eng_params_t {
#define ENG_PARAM_FIELD(A, key, unit, type, field, col, range, doc) type field;
  ENG_PARAMS(ENG_PARAM_FIELD, _)
#undef ENG_PARAM_FIELD
} eng_params_t;

/* ENG_PARAMS(ENG_PARAM_COLUMN, X) gives X(exp, type, exp_<field>) for every COL line:
 * the parameter columns of ENG_COLUMNS. */
#define ENG_PARAM_COLUMN(X, key, unit, type, field, col, range, doc)                               \
  ENG_PARAM_COLUMN_##col(X, type, field)
#define ENG_PARAM_COLUMN_COL(X, type, field) X(exp, type, exp_##field)
#define ENG_PARAM_COLUMN_NOCOL(X, type, field)

/* The longest timer or interval a parameter may give (rto_us, flowlet_gap_us,
 * the DCQCN timers): 1e5 s, the headroom the clock keeps past the latest
 * max_time_s (docs/formats.md: Limits). */
#define ENG_MAX_TIMER_PS 100000000000000000LL /* ps */

/* Every key's row as data (eng_params.c), in ENG_PARAMS then CC_PARAMS order. */
typedef struct eng_param_info_t {
  const char *key;
  int32_t cc_kind; /* CC_NONE: a network key; else the algorithm whose presets set it */
  size_t off;      /* of its storage in eng_params_t */
  int32_t real;    /* stored as a double (REAL, MBPS), else an integer of `size` bytes */
  int32_t size;
  double scale; /* stored = user's value x scale (Q16: 65536; US: ps per us) */
  eng_range_t range;
  const char *doc;
} eng_param_info_t;
extern const eng_param_info_t eng_param_info[];
extern const int eng_n_params;

/* Checks every key's range (in the stored unit; a key of another congestion
 * control than p's is not checked) and the combinations; the message names the
 * key. 0 or -1. */
int eng_params_check(const eng_params_t *p, char *err, size_t errlen);

/* Resolved ECN thresholds for a port of the given rate. */
void eng_params_ecn_for(const eng_params_t *p, int64_t rate_bps, int64_t *kmin, int64_t *kmax,
                        double *pmax);

#endif
