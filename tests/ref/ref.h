/* ref: the independent reference simulator. A plain sequential discrete-event
 * simulation of docs/model.md with one global event heap; the engine must match
 * its results to the picosecond. */
#ifndef REF_H
#define REF_H

#include <stdint.h>

#include "sim/eng_params.h"
#include "topo/topo.h"
#include "traffic/trf.h"

typedef enum { REF_OK = 0, REF_FAILED = 1, REF_TIMED_OUT = 2 } ref_status_t;

typedef struct ref_result_t {
  int64_t *finish_ps;  /* (n flows, file order) ps at which snd_una reached n; -1 if unfinished */
  int64_t drops;       /* admission (buffer, descriptor) + link loss + host control drops */
  int64_t pfc_pauses;  /* PAUSE frames sent (RESUME not counted) */
  int64_t ecn_marks;   /* positive CE marking decisions at switch egress */
  int64_t packet_hops; /* transmissions on any port (lost ones included) */
  int64_t retransmits; /* data packets sent with psn < max_sent */
  int64_t timeouts;    /* RTO expiries that reset snd_nxt */
  int64_t cnps;        /* CNPs sent by receivers */
  int64_t end_ps;      /* ps of the last processed (non-stale) event */
  ref_status_t status;
} ref_result_t;

/* Runs one experiment. `t` must be finished (topo_finish), `fl` validated against
 * it. Returns 0 (the outcome is in out->status) or -1 on bad input or allocation
 * failure, with a message on stderr. */
int ref_run(const topo_t *t, const trf_flows_t *fl, const eng_params_t *p, uint64_t seed,
            ref_result_t *out);

void ref_result_free(ref_result_t *r);

/* ECN thresholds of a port of rate_bps: each of ecn_kmin/kmax/pmax if >= 0, else
 * from the ecn_table row with the largest gbps not above the rate (the lowest row
 * if none). Returns 0, or -1 when a value is needed and the table is empty. */
int ref_ecn_for(const eng_params_t *p, int64_t rate_bps, int64_t *kmin, int64_t *kmax,
                double *pmax);

/* ser(w, r) = ceil(w * 8 * 10^12 / r) ps: serialisation of w bytes at r bit/s. */
int64_t ref_ser(int64_t wire_bytes, int64_t rate_bps);

#endif
