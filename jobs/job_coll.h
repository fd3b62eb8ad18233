/* jobs: a `collective` experiment of a job file (what `multiverse collective`
 * runs, as data) read into typed values, and its canonical JSON:
 *   {"kind": "collective",
 *    "collective": {"op": "allreduce", "bytes": 1048576, "gpus": 16,
 *                   "algo": "ring", "channels": 0, "chunk_bytes": 0},
 *    "cluster": {"gpu": "h200", "gpus_per_server": 8, "nics_per_server": 8,
 *                "nic_gbps": 400},
 *    "network": {"topology": FILE or {...}, ...parameters},
 *    "calibration": FILE}
 * GPUs fill servers in order; the server shape defaults to the GPU preset's,
 * the topology to a non-blocking rail-optimized fabric of the servers' NICs
 * (docs/collectives.md). */
#ifndef JOB_COLL_H
#define JOB_COLL_H

#include <jansson.h>

#include "coll/coll.h"
#include "jobs/job.h"
#include "train/trn.h"

typedef struct job_coll_t {
  int32_t op;           /* coll_kind_t */
  uint64_t bytes;       /* nccl-tests' size */
  int32_t gpus;         /* members, GPU g on server g / gpus_per_server */
  int32_t algo;         /* coll_algo_t */
  int32_t channels;     /* 0: NCCL's */
  uint64_t chunk_bytes; /* 0: a channel's share in one loop */
  char gpu[COLL_NAME_LEN];
  int32_t gpus_per_server, nics_per_server;
  double nic_gbps;
  int32_t servers, per; /* derived: servers, members per server */
  char calibration[4096]; /* an intra-server model file over the presets ("": none) */
  char *topology_file;    /* a topology file (ns-3, or .json), or NULL */
  topo_spec_t topology;   /* otherwise */
  eng_params_t params;
} job_coll_t;

/* Reads experiment `exp` (`where` names it in messages) with the GPU presets
 * (for the server shape) and the network presets. 0 or -1 with a message
 * naming the JSON path of the first problem. */
int job_coll_parse(const trn_presets_t *tp, const job_presets_t *ps, const json_t *exp,
                   const char *where, job_coll_t *c, char *err, size_t errlen);
/* Its canonical JSON: every key with its value, sorted, compact, exact
 * decimals; job_coll_parse of it gives the same experiment. malloc'd; NULL when
 * out of memory. */
char *job_coll_canonical(const job_coll_t *c);
/* The files it reads, in order (topology file, calibration): up to 2. */
int job_coll_files(const job_coll_t *c, const char **files);
void job_coll_free(job_coll_t *c);

#endif
