/* cc: per-experiment parameters, the state every flow keeps, and one struct
 * per algorithm for the rest of a flow's state; docs/model.md (Congestion
 * control) gives the equations. */
#ifndef CC_TYPES_H
#define CC_TYPES_H

#include <stdint.h>

typedef enum cc_kind_t { CC_NONE = 0, CC_DCQCN = 1, CC_DCTCP = 2, CC_HPCC = 3 } cc_kind_t;

/* In-band telemetry (HPCC): what each switch egress on a data packet's path
 * appends when the packet leaves it; echoed back in the ACK. */
#define CC_INT_HOPS 5
typedef struct cc_int_hop_t {
  int64_t ts;         /* ps, when the packet left */
  uint32_t qlen;      /* bytes left in the egress data queue */
  uint32_t tx;        /* bytes the port has sent, modulo 2^32 (with hpcc_int_multi: before
                       * this packet, else counting it) */
  uint32_t rate_mbps; /* link rate */
  uint32_t tx_hi;     /* with hpcc_int_multi: the bytes sent, divided by 2^32 */
} cc_int_hop_t;

typedef struct cc_int_t {
  uint32_t nhop;
  uint32_t pad;
  cc_int_hop_t hop[CC_INT_HOPS];
} cc_int_t;

/* Parameters of each algorithm, declared once: X(A, key, unit, type, field,
 * kind, range, doc). The cc_params_t fields below and the keys users write
 * (`--set`, job files, the presets' cc_presets; jobs/ parses them) are
 * generated from it.
 *   key    dcqcn_g, ...; unit, range, doc: as ENG_PARAMS's
 *          (engine/sim/eng_params.h, which defines ENG_RANGE)
 *   type field  its storage in cc_params_t; kind: the algorithm (cc_kind_t
 *          without CC_) whose presets must set it
 * Rates bit/s, times ps, sizes bytes. */
#define CC_PARAMS(X, A)                                                                            \
  /* DCQCN (Zhu et al., SIGCOMM'15) */                                                             \
  X(A, dcqcn_g, REAL, double, g, DCQCN, ENG_RANGE(0, 1, 1, 0, "more than 0 and at most 1"),        \
    "DCQCN alpha gain g")                                                                          \
  X(A, dcqcn_alpha_timer_us, US, int64_t, alpha_timer, DCQCN,                                      \
    ENG_RANGE(0, 1e11, 1, 0, "more than 0 and at most 1e11 us (1e5 s)"),                           \
    "DCQCN: time between alpha updates")                                                           \
  X(A, dcqcn_rate_inc_timer_us, US, int64_t, inc_timer, DCQCN,                                     \
    ENG_RANGE(0, 1e11, 1, 0, "more than 0 and at most 1e11 us (1e5 s)"),                           \
    "DCQCN: time between timer-driven rate increases")                                             \
  X(A, dcqcn_byte_counter_kb, KIB, int64_t, byte_counter, DCQCN,                                   \
    ENG_RANGE(0, 1073741824, 1, 0, "more than 0 and at most 1073741824 KiB (1 TiB)"),              \
    "DCQCN: bytes sent between byte-counter stages")                                               \
  X(A, dcqcn_fast_steps, COUNT, int32_t, fast_steps, DCQCN,                                        \
    ENG_RANGE(0, 2147483647, 0, 0, "0 to 2147483647"), "DCQCN F: fast-recovery stages")            \
  X(A, dcqcn_rate_ai_mbps, MBPS, double, rate_ai, DCQCN,                                           \
    ENG_RANGE(0, 1e9, 0, 0, "0 to 1e9 Mb/s (1 Pb/s)"), "DCQCN additive increase")                  \
  X(A, dcqcn_rate_hai_mbps, MBPS, double, rate_hai, DCQCN,                                         \
    ENG_RANGE(0, 1e9, 0, 0, "0 to 1e9 Mb/s (1 Pb/s)"), "DCQCN hyper increase")                     \
  X(A, dcqcn_min_rate_mbps, MBPS, double, min_rate, DCQCN,                                         \
    ENG_RANGE(1, 1e9, 0, 0, "1 to 1e9 Mb/s (1 Pb/s)"), "DCQCN lowest rate")                        \
  X(A, dcqcn_cnp_interval_us, US, int64_t, cnp_interval, DCQCN,                                    \
    ENG_RANGE(0, 1e11, 0, 0, "0 to 1e11 us (1e5 s)"),                                              \
    "DCQCN: a receiver sends at most one CNP per flow per interval")                               \
  X(A, dcqcn_dec_interval_us, US, int64_t, dec_interval, DCQCN,                                    \
    ENG_RANGE(0, 1e11, 0, 0, "0 to 1e11 us (1e5 s)"),                                              \
    "DCQCN: a sender cuts its rate at most once per interval")                                     \
  X(A, dcqcn_clamp_target, BOOL, int32_t, clamp_target, DCQCN, ENG_NORANGE,                        \
    "DCQCN: every cut sets RT = RC; false: only after an increase stage")                          \
  X(A, dcqcn_window_kb, KIB, int64_t, window, DCQCN,                                               \
    ENG_RANGE(0, 1073741824, 0, 1,                                                                 \
              "-1 (the flow's bandwidth-delay product), 0 (none) or up to 1073741824 KiB (1 "      \
              "TiB)"),                                                                             \
    "bytes in flight a DCQCN flow may have; 0: none; -1: the flow's bandwidth-delay product "      \
    "(NIC rate x base RTT)")                                                                       \
  X(A, dcqcn_var_window, BOOL, int32_t, var_window, DCQCN, ENG_NORANGE,                            \
    "DCQCN: the window shrinks with the rate (window x RC / line)")                                \
  X(A, dcqcn_ns3, BOOL, int32_t, dcqcn_ns3, DCQCN, ENG_NORANGE,                                    \
    "DCQCN as the ns-3 HPCC simulator: CNP flag on ACKs, periodic alpha and cut timers")           \
  /* DCTCP (Alizadeh et al., SIGCOMM'10) */                                                        \
  X(A, dctcp_g, REAL, double, dctcp_g, DCTCP, ENG_RANGE(0, 1, 1, 0, "more than 0 and at most 1"),  \
    "DCTCP alpha gain g")                                                                          \
  X(A, dctcp_init_cwnd_kb, KIB, int64_t, init_cwnd, DCTCP,                                         \
    ENG_RANGE(0, 1073741824, 1, 0, "more than 0 and at most 1073741824 KiB (1 TiB)"),              \
    "DCTCP initial window")                                                                        \
  /* HPCC (Li et al., SIGCOMM'19) */                                                               \
  X(A, hpcc_eta, REAL, double, eta, HPCC, ENG_RANGE(0, 1, 1, 0, "more than 0 and at most 1"),      \
    "HPCC target utilisation")                                                                     \
  X(A, hpcc_max_stage, COUNT, int32_t, max_stage, HPCC,                                            \
    ENG_RANGE(0, 2147483647, 0, 0, "0 to 2147483647"),                                             \
    "HPCC additive stages, then a multiplicative update")                                          \
  X(A, hpcc_ai_mbps, MBPS, double, hpcc_ai, HPCC,                                                  \
    ENG_RANGE(0, 1e9, 0, 1, "-1 (10 Mb/s per 25 Gb/s of NIC) or 0 to 1e9 Mb/s (1 Pb/s)"),          \
    "HPCC additive increase; -1: 10 Mb/s per 25 Gb/s of NIC")                                      \
  X(A, hpcc_fast_react, BOOL, int32_t, fast_react, HPCC, ENG_NORANGE,                              \
    "HPCC reacts on every ACK (the reference window once per RTT)")                                \
  X(A, hpcc_global_t, BOOL, int32_t, global_t, HPCC, ENG_NORANGE,                                  \
    "HPCC: every flow's T and window are the network's largest base RTT and its BDP")              \
  X(A, hpcc_min_rate_mbps, MBPS, double, hpcc_min_rate, HPCC,                                      \
    ENG_RANGE(0, 1e9, 0, 0, "0 (the window's floor is one MTU) to 1e9 Mb/s (1 Pb/s)"),             \
    "HPCC lowest rate (window min_rate x T); 0: the window's floor is one MTU")                    \
  X(A, hpcc_int_multi, COUNT, int32_t, int_multi, HPCC,                                            \
    ENG_RANGE(0, 1024, 0, 0, "0 (exact telemetry) to 1024"),                                       \
    "HPCC telemetry: 0 exact; m: ns-3's (queue length in 80m-byte, bytes in 128m-byte units, "     \
    "ns)")                                                                                         \
  X(A, hpcc_ns3, BOOL, int32_t, hpcc_ns3, HPCC, ENG_NORANGE,                                       \
    "HPCC sender as ns-3's: the first ACK arms the reference, pacing follows rate changes")

/* Parameters of one experiment's congestion control (the key `cc` chooses the
 * kind and a preset of values). */
typedef struct cc_params_t {
  int32_t kind; /* cc_kind_t */
  /* Not a key: 1 when the experiment's clock truncates serialisation to whole
   * ns (ser_floor_ns), set where an experiment is built; pacing follows it. */
  int32_t clock_ns;
#define CC_PARAM_FIELD(A, key, unit, type, field, kind, range, doc) type field;
  CC_PARAMS(CC_PARAM_FIELD, _)
#undef CC_PARAM_FIELD
} cc_params_t;

/* Sender-side state every flow keeps, whatever its congestion control. */
typedef struct cc_state_t {
  double line;       /* bit/s of the sender's NIC */
  double win;        /* bytes: the flow's window (rate-based CC); 0: none */
  int64_t next_send; /* ps: pacing, earliest next data packet */
} cc_state_t;

/* DCQCN reaction point. */
typedef struct cc_dcqcn_t {
  double rc, rt, alpha;     /* current rate, target rate (bit/s), alpha */
  int64_t t_alpha;          /* ps: next alpha update; INT64_MAX: off */
  int64_t t_inc;            /* ps: next timer-driven increase; INT64_MAX: off */
  int64_t last_cut;         /* ps of the last rate cut; -1: none */
  int64_t bytes;            /* bytes sent since the last byte-counter stage */
  int32_t stage_t, stage_b; /* timer and byte-counter stages since the last cut */
  int32_t cnp_seen;         /* a CNP arrived since the last alpha update */
  int32_t cnp_cut;          /* dcqcn_ns3: a CNP arrived since the last rate-decrease check */
  int64_t t_dec;            /* dcqcn_ns3: ps of the next rate-decrease check; INT64_MAX: off */
} cc_dcqcn_t;

/* DCTCP sender. */
typedef struct cc_dctcp_t {
  double cwnd;     /* bytes */
  double ssthresh; /* bytes */
  double alpha;
  uint32_t win_end;       /* sequence that closes the current observation window */
  uint32_t acked, marked; /* packets acknowledged / ECE-echoed in the window */
  int32_t cut;            /* the window was already cut */
} cc_dctcp_t;

/* HPCC sender. */
typedef struct cc_hpcc_t {
  double w, wc, u;  /* window and reference window (bytes), normalised inflight */
  double w_ai;      /* bytes */
  int64_t base_rtt; /* ps: T */
  int32_t inc_stage;
  uint32_t last_update; /* sequence after which the reference window updates again */
  int32_t last_wire;    /* bytes of the last data packet sent (hpcc_ns3 pacing) */
  int32_t pad;
  cc_int_t last; /* the previous ACK's telemetry */
} cc_hpcc_t;

/* Room for any algorithm's state (for callers that keep one slot per flow;
 * the engine keeps one table per algorithm, so a flow pays only for its own). */
typedef union cc_alg_t {
  cc_dcqcn_t dcqcn;
  cc_dctcp_t dctcp;
  cc_hpcc_t hpcc;
} cc_alg_t;

#endif
