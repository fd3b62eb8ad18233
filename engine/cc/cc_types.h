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
  uint32_t tx;        /* bytes the port has sent, modulo 2^32 */
  uint32_t rate_mbps; /* link rate */
  uint32_t pad;
} cc_int_hop_t;

typedef struct cc_int_t {
  uint32_t nhop;
  uint32_t pad;
  cc_int_hop_t hop[CC_INT_HOPS];
} cc_int_t;

/* Parameters of one experiment's congestion control. Rates bit/s, times ps. */
typedef struct cc_params_t {
  int32_t kind; /* cc_kind_t */
  /* DCQCN (Zhu et al., SIGCOMM'15) */
  double g;             /* alpha gain */
  int64_t alpha_timer;  /* ps between alpha updates */
  int64_t inc_timer;    /* ps between timer-driven rate increases */
  int64_t byte_counter; /* bytes between byte-driven rate increases */
  int32_t fast_steps;   /* F: fast-recovery stages */
  double rate_ai;       /* additive increase, bit/s */
  double rate_hai;      /* hyper increase, bit/s */
  double min_rate;      /* bit/s */
  int64_t cnp_interval; /* ps: receiver sends at most one CNP per flow per interval */
  int64_t dec_interval; /* ps: sender cuts its rate at most once per interval */
  int32_t clamp_target; /* 1: every cut sets RT = RC; 0: only after an increase stage */
  int64_t window;       /* bytes in flight a rate-based flow may have; 0: none; -1: the
                         * flow's bandwidth-delay product (NIC rate x base RTT) */
  int32_t var_window;   /* 1: the window shrinks with the rate (window * RC / line) */
  /* DCTCP (Alizadeh et al., SIGCOMM'10) */
  double dctcp_g;    /* alpha gain */
  int64_t init_cwnd; /* bytes */
  /* HPCC (Li et al., SIGCOMM'19) */
  double eta;         /* target utilisation */
  int32_t max_stage;  /* additive stages before a multiplicative update */
  double hpcc_ai;     /* bit/s of additive increase; < 0: 10 Mb/s per 25 Gb/s of NIC */
  int32_t fast_react; /* 1: react on every ACK (the reference window once per RTT) */
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
  int32_t pad;
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
  cc_int_t last;        /* the previous ACK's telemetry */
} cc_hpcc_t;

/* Room for any algorithm's state (for callers that keep one slot per flow;
 * the engine keeps one table per algorithm, so a flow pays only for its own). */
typedef union cc_alg_t {
  cc_dcqcn_t dcqcn;
  cc_dctcp_t dctcp;
  cc_hpcc_t hpcc;
} cc_alg_t;

#endif
