/* Network parameters of one experiment (what `--set key=value` changes) and their
 * parsing. Defaults come from jobs/presets/network.json; docs/model.md defines
 * what each one does. */
#ifndef ENG_PARAMS_H
#define ENG_PARAMS_H

#include <stddef.h>
#include <stdint.h>

#include "cc/cc_types.h"

typedef enum eng_lb_t { ENG_LB_ECMP = 0, ENG_LB_SPRAY = 1, ENG_LB_ADAPTIVE = 2 } eng_lb_t;
/* A named congestion-control preset (jobs/presets/network.json cc_presets):
 * its parameters and, where it names them, the switches' ECN thresholds. */
typedef struct eng_cc_preset_t {
  char name[32];
  cc_params_t cc;
  int64_t ecn_kmin, ecn_kmax; /* bytes; -2: the preset leaves them */
  double ecn_pmax;            /* -2: left */
} eng_cc_preset_t;

#define ENG_CC_PRESETS_MAX 8

/* Packets beyond rcv_nxt a re-order tolerant receiver can hold. */
#define ENG_RX_WINDOW 256
/* Flowlet entries per relay (lb = adaptive), indexed by flow hash. */
#define ENG_FLOWLETS 64

/* ECN thresholds for ports of one link speed. */
typedef struct eng_ecn_row_t {
  int64_t gbps; /* port rate this row applies to (nearest not above, else lowest) */
  int64_t kmin; /* bytes */
  int64_t kmax; /* bytes */
  double pmax;  /* [0, 1] */
} eng_ecn_row_t;

#define ENG_ECN_ROWS_MAX 16

typedef struct eng_params_t {
  int32_t mtu;        /* payload bytes per data packet */
  int32_t header;     /* bytes added to every data packet on the wire */
  int32_t ctrl_bytes; /* wire bytes of ACK, NACK, CNP */
  int64_t buffer;     /* bytes of shared data buffer per switch */
  int32_t pool_pkts;  /* packet descriptors per switch (0: derived, see model.md) */
  int32_t host_slots; /* control-packet descriptors per host */
  int32_t pfc;        /* 1: lossless (PFC on) */
  int64_t pfc_xoff;   /* bytes per ingress; 0: dynamic, pfc_alpha * free buffer */
  double pfc_alpha;   /* dynamic threshold factor */
  int64_t pfc_resume; /* bytes below XOFF at which RESUME is sent */
  int32_t ecn;        /* 1: RED/ECN marking at switch egress */
  int64_t ecn_kmin;   /* bytes; -1: by port speed from ecn_table */
  int64_t ecn_kmax;   /* bytes; -1: by port speed */
  double ecn_pmax;    /* -1: by port speed */
  int32_t n_ecn_rows;
  eng_ecn_row_t ecn_table[ENG_ECN_ROWS_MAX];
  eng_lb_t lb;
  cc_params_t ccp; /* congestion control of every flow */
  int32_t n_cc_presets;
  eng_cc_preset_t cc_presets[ENG_CC_PRESETS_MAX];
  int32_t ack_every;   /* ACK every N in-order packets (and the last) */
  int32_t reorder;     /* 1: receivers keep out-of-order packets (ENG_RX_WINDOW), no NACK */
  int64_t flowlet_gap; /* ps: lb=adaptive starts a new flowlet after this idle gap */
  int64_t rto;         /* ps, retransmission timeout */
  int64_t max_time;    /* ps of simulated time before the experiment is timed_out */
  int32_t ring_cap;    /* in-flight packets per link direction (power of 2; 0: derived) */
  int64_t sync;        /* ps: an event of one host's task becomes known to another's */
} eng_params_t;

/* Loads defaults from the presets file `path` (jobs/presets/network.json).
 * Returns 0 or -1 with a message naming the file and JSON path. */
int eng_params_defaults(const char *path, eng_params_t *p, char *err, size_t errlen);

/* Applies one `key=value`; returns 0 or -1 with a message naming the key. */
int eng_params_set(eng_params_t *p, const char *kv, char *err, size_t errlen);

/* Checks ranges and combinations. */
int eng_params_check(const eng_params_t *p, char *err, size_t errlen);

/* Writes the parameters as canonical compact JSON (sorted keys) into buf; returns
 * the length needed (like snprintf). Used to hash experiments. */
int eng_params_canonical(const eng_params_t *p, char *buf, size_t len);

/* Resolved ECN thresholds for a port of the given rate. */
void eng_params_ecn_for(const eng_params_t *p, int64_t rate_bps, int64_t *kmin, int64_t *kmax,
                        double *pmax);

#endif
