/* Network parameters of one experiment, declared once in ENG_PARAMS (and
 * CC_PARAMS, cc/cc_types.h): the struct below, the experiment columns
 * (eng_world.h), build's copies and the keys users write with their units
 * (jobs/: --set, job files, presets, canonical text) are generated from that
 * list. Defaults live in jobs/presets/network.json; docs/model.md defines what
 * each one does. */
#ifndef ENG_PARAMS_H
#define ENG_PARAMS_H

#include <stddef.h>
#include <stdint.h>

#include "cc/cc_types.h"

typedef enum eng_lb_t { ENG_LB_ECMP = 0, ENG_LB_SPRAY = 1, ENG_LB_ADAPTIVE = 2 } eng_lb_t;

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

/* X(A, key, unit, type, field, col), one line per parameter (A passes through
 * to X):
 *   key    what users write: --set KEY=VALUE, network.KEY of a job file, the
 *          defaults of jobs/presets/network.json
 *   unit   how the user's value becomes the stored one (jobs/job_param.c):
 *          COUNT integer; BOOL true/false; KIB KiB -> bytes; MIB MiB -> bytes;
 *          US us -> ps; S s -> ps; REAL as is; MBPS Mb/s -> bit/s; Q16 number x
 *          2^16; LB, CC a name; ECN_TABLE {"GBPS": [kmin_KB, kmax_KB, pmax]};
 *          KIB and MBPS store any negative value as -1 ("derived")
 *   type field   its storage in eng_params_t
 *   col    COL: copied into the experiment column exp_<field> (eng_world.h);
 *          NOCOL: read while building the world only
 * Adding a parameter is one line here (or in CC_PARAMS), its default and
 * source in jobs/presets/network.json, and a check in eng_params_check. */
#define ENG_PARAMS(X, A)                                                                           \
  X(A, mtu, COUNT, int32_t, mtu, COL)               /* payload bytes per data packet */            \
  X(A, header, COUNT, int32_t, header, COL)         /* bytes added to every data packet */         \
  X(A, ctrl_bytes, COUNT, int32_t, ctrl_bytes, COL) /* wire bytes of ACK, NACK, CNP */             \
  X(A, buffer_mb, MIB, int64_t, buffer, COL)        /* bytes of shared data buffer per switch */   \
  /* packet descriptors per switch (0: derived, see model.md) */                                   \
  X(A, pool_pkts, COUNT, int32_t, pool_pkts, NOCOL)                                                \
  X(A, host_slots, COUNT, int32_t, host_slots, NOCOL) /* control descriptors per host */           \
  X(A, pfc, BOOL, int32_t, pfc, COL)                  /* 1: lossless (PFC on) */                   \
  /* bytes per ingress; 0: dynamic, pfc_alpha * free buffer */                                     \
  X(A, pfc_xoff_kb, KIB, int64_t, pfc_xoff, COL)                                                   \
  X(A, pfc_alpha, Q16, int64_t, pfc_a16, COL) /* dynamic threshold factor * 2^16 */                \
  /* bytes below XOFF at which RESUME is sent */                                                   \
  X(A, pfc_resume_kb, KIB, int64_t, pfc_resume, COL)                                               \
  X(A, ecn, BOOL, int32_t, ecn, COL)               /* 1: RED/ECN marking at switch egress */       \
  X(A, ecn_kmin_kb, KIB, int64_t, ecn_kmin, NOCOL) /* bytes; -1: by port speed (ecn_table) */      \
  X(A, ecn_kmax_kb, KIB, int64_t, ecn_kmax, NOCOL) /* bytes; -1: by port speed */                  \
  X(A, ecn_pmax, REAL, double, ecn_pmax, NOCOL)    /* -1: by port speed */                         \
  X(A, ecn_by_link_gbps, ECN_TABLE, eng_ecn_table_t, ecn_table, NOCOL)                             \
  X(A, lb, LB, int32_t, lb, COL)      /* eng_lb_t */                                               \
  X(A, cc, CC, cc_params_t, ccp, COL) /* congestion control of every flow */                       \
  /* ACK every N in-order packets (and the last) */                                                \
  X(A, ack_every, COUNT, int32_t, ack_every, COL)                                                  \
  /* 1: receivers keep out-of-order packets (ENG_RX_WINDOW), no NACK */                            \
  X(A, reorder, BOOL, int32_t, reorder, COL)                                                       \
  /* ps: lb=adaptive starts a new flowlet after this idle gap */                                   \
  X(A, flowlet_gap_us, US, int64_t, flowlet_gap, COL)                                              \
  X(A, rto_us, US, int64_t, rto, COL) /* ps, retransmission timeout */                             \
  /* ps of simulated time before the experiment is timed_out */                                    \
  X(A, max_time_s, S, int64_t, max_time, COL)                                                      \
  /* in-flight packets per link direction (power of 2; 0: derived) */                              \
  X(A, ring_cap, COUNT, int32_t, ring_cap, NOCOL)                                                  \
  /* ps: an event of one host's task becomes known to another's */                                 \
  X(A, sync_us, US, int64_t, sync, COL)                                                            \
  /* compute of a GPU while its communication runs takes this factor longer (x 2^16) */            \
  X(A, overlap_slowdown, Q16, int64_t, overlap_q16, COL)                                           \
  /* Semantics of the ns-3 HPCC simulator (docs/model.md; the preset ns3_hpcc sets them all): */   \
  /* 1: serialisation and pacing times truncated to whole ns */                                    \
  X(A, ser_floor_ns, BOOL, int32_t, ser_floor_ns, COL)                                             \
  /* 1: a flow's priority (1..7) is its traffic class: a queue and PFC per class */                \
  X(A, classes, BOOL, int32_t, classes, COL)                                                       \
  /* 1: switches queue ACK/NACK with their flow's data, not with strict priority */                \
  X(A, ack_with_data, BOOL, int32_t, ack_with_data, COL)                                           \
  /* 1: a host's ACK/NACK wait while their flow's class is paused */                               \
  X(A, ack_pause, BOOL, int32_t, ack_pause, COL)                                                   \
  /* bytes per ingress port and class not counted in the shared buffer */                          \
  X(A, pfc_reserve_kb, KIB, int64_t, pfc_reserve, COL)                                             \
  /* headroom per ingress port in one-way bandwidth-delay products; < 0: none */                   \
  X(A, pfc_headroom_bdp, REAL, double, pfc_headroom, COL)                                          \
  /* 1: pfc_alpha doubles per doubling of a port's rate above the NIC rate */                      \
  X(A, pfc_alpha_by_rate, BOOL, int32_t, pfc_alpha_by_rate, NOCOL)                                 \
  /* bytes of a PFC frame (strict priority, serialised); 0: no transmission time */                \
  X(A, pfc_frame_bytes, COUNT, int32_t, pfc_frame_bytes, COL)                                      \
  /* 1: ECMP hashes as ns-3's switches (murmur3 of the IPv4 addresses and ports) */                \
  X(A, ecmp_ns3, BOOL, int32_t, ecmp_ns3, COL)                                                     \
  /* 1: base RTT as ns-3: twice the path delay plus one MTU payload per hop out */                 \
  X(A, base_rtt_ns3, BOOL, int32_t, base_rtt_ns3, NOCOL)                                           \
  /* standalone FCT: -1 exact; >= 0 base RTT + (size + packets x this) / rate */                   \
  X(A, standalone_header, COUNT, int32_t, standalone_header, NOCOL)

typedef struct eng_params_t {
#define ENG_PARAM_FIELD(A, key, unit, type, field, col) type field;
  ENG_PARAMS(ENG_PARAM_FIELD, _)
#undef ENG_PARAM_FIELD
} eng_params_t;

/* ENG_PARAMS(ENG_PARAM_COLUMN, X) gives X(exp, type, field) for every COL line:
 * the parameter columns of ENG_COLUMNS. */
#define ENG_PARAM_COLUMN(X, key, unit, type, field, col) ENG_PARAM_COLUMN_##col(X, type, field)
#define ENG_PARAM_COLUMN_COL(X, type, field) X(exp, type, field)
#define ENG_PARAM_COLUMN_NOCOL(X, type, field)

/* The longest timer or interval a parameter may give (rto_us, flowlet_gap_us,
 * the DCQCN timers): 1e5 s, the headroom the clock keeps past the latest
 * max_time_s (docs/formats.md: Limits). */
#define ENG_MAX_TIMER_PS 100000000000000000LL /* ps */

/* Checks ranges and combinations; the message names the key. 0 or -1. */
int eng_params_check(const eng_params_t *p, char *err, size_t errlen);

/* Resolved ECN thresholds for a port of the given rate. */
void eng_params_ecn_for(const eng_params_t *p, int64_t rate_bps, int64_t *kmin, int64_t *kmax,
                        double *pmax);

#endif
