/* jobs: a `training` experiment of a job file read into the typed values the
 * training kind builds from (trn_exp_spec_t), and its canonical JSON. */
#ifndef JOB_TRAIN_H
#define JOB_TRAIN_H

#include <jansson.h>

#include "jobs/job.h"
#include "train/trn_exp.h"

/* What reading training experiments needs, loaded once by the caller. */
typedef struct job_train_env_t {
  const trn_presets_t *presets; /* models.json, gpus.json */
  const job_presets_t *network; /* network defaults and presets (network.json) */
  const char *base_dir;         /* the job's folder: its files' paths start there */
  /* Applies the network object's parameters to p (job_params_apply's contract; NULL:
   * job_params_apply): the driver's reads network.ns3_config first (drv_train_apply). */
  int (*apply)(const void *ctx, eng_params_t *p, const json_t *net, const char *const *skip,
               const char *where, char *err, size_t errlen);
  const void *apply_ctx;
} job_train_env_t;

/* Reads experiment `exp` (its members kind, model, training, cluster, network,
 * workload; `where` names it in messages, "job.json: experiments[3]") into s:
 * the set-up with its defaults and derived values, the network parameters
 * (max_time_s an hour unless given; overlap_slowdown the cluster's unless
 * given), the topology (network.topology, default rail_optimized) sized to the
 * cluster with network.link_gbps and link_delay_ns. Returns the number of
 * problems added to pr (s is usable only when 0). */
int job_train_parse(const job_train_env_t *env, const json_t *exp, const char *where,
                    trn_exp_spec_t *s, trn_problems_t *pr);
/* The canonical JSON of a spec job_train_parse accepted: every key of every
 * object with its value (defaults filled, the model's shape rather than a
 * preset's name, the topology as topo_spec_json prints it), sorted keys,
 * compact, exact decimals; job_train_parse of it gives the same spec. malloc'd;
 * NULL when out of memory. */
char *job_train_canonical(const trn_exp_spec_t *s);

/* The canonical JSON (malloc'd) and id of experiment `exp`: job_train_canonical of
 * its spec, hashed with the files it reads (a topology file, a workload) relative
 * to base_dir; an experiment with problems keeps its own text (sorted, compact)
 * and its build reports them. 0; 1 when a file it names cannot be read (the id
 * hashes the text alone, err says which file: the experiment fails); -1 out of
 * memory. */
int job_train_ident(const job_train_env_t *env, const json_t *exp, const char *base_dir,
                    job_digests_t *cache, char **canon, uint64_t *id, char *err, size_t errlen);

/* Reads experiment `exp` and builds it (trn_exp_build with tenv); an experiment
 * with problems is BASE_INVALID naming every one. -1 only when out of memory. */
int job_train_build(const job_train_env_t *env, const trn_exp_env_t *tenv, const json_t *exp,
                    const char *where, uint64_t seed, trn_exp_t *x);
/* job_train_build of an experiment job_train_parse read already (s, and pr
 * the problems it found): trn_exp_build of s, or BASE_INVALID naming every
 * problem. -1 only when out of memory. */
int job_train_build_spec(const trn_exp_env_t *tenv, const trn_exp_spec_t *s,
                         const trn_problems_t *pr, const char *where, uint64_t seed, trn_exp_t *x);

/* network.topology (default {"kind": "rail_optimized"}) sized to cluster c:
 * NIC links at the cluster's rate, switch links at link_gbps (default the NIC
 * rate) and link_delay_ns; a rail-optimized fabric of the cluster's servers and
 * NICs, a fat tree of the smallest even radix that holds them. `where` names the
 * network object. 0 or -1 with a message. */
int job_train_topology(const json_t *net, const trn_cluster_t *c, const char *where,
                       topo_spec_t *s, char *err, size_t errlen);

#endif
