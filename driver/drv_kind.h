/* driver: experiment kinds. A kind turns an experiment of a job file into its
 * canonical JSON and experiment id, and a canonical JSON into what the engine
 * runs (topology, task graph, parameters, seed) with an estimate of its work;
 * after a run it reads the experiment's results into its result columns.
 * `network` (drv_kind_net.c), `training` (drv_kind_train.c) and `collective`
 * (drv_kind_coll.c) are registered; another kind is one more entry of the
 * table in drv_kind.c. */
#ifndef DRV_KIND_H
#define DRV_KIND_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "analysis/ana.h"
#include "shd_cost.h"
#include "sim/eng.h"

/* What a kind knows of the job it serves. */
typedef struct drv_kind_opts_t {
  const char *base_dir;    /* the job file's folder: relative paths start there */
  const char *presets;     /* the network presets file; NULL: the default */
  const char *calibration; /* intra-server curves over the presets' (NULL: none) */
  /* drv_job_open: 1 when the job is opened to be planned (a kind with
   * canon_describe then describes each experiment as it identifies it). */
  int describe;
} drv_kind_opts_t;

/* One experiment, built for the engine (status ANA_OK) or not runnable
 * (status and message say why: a file that cannot be read is `failed`, a
 * configuration the engine rejects `invalid`, one that does not fit `oom`). */
typedef struct drv_exp_t {
  eng_exp_desc_t desc; /* valid while the experiment is held (until release) */
  /* The model that runs it, for the cost model's key (kind/model): NULL is
   * "packet"; a kind whose experiments run on another model (much cheaper
   * or dearer per packet-hop) names it, and its experiments get their own
   * coefficients and never share a batch with the others. */
  const char *model;
  shd_feat_t feat; /* what the cost model reads (drv_exp_features), with `mem` */
  ana_status_t status;
  char message[1024];
  /* desc.validated: the kind's build ran eng_exp_check on desc as it is (the
   * plan and the worker's batch do not again; a sink's prepare that changes
   * desc clears it). */
  int64_t bytes;         /* validated, or sized: the memory that check counted */
  eng_graph_size_t size; /* validated, or sized: its task graph's (eng_exp_check) */
  void *own;             /* the kind's */
} drv_exp_t;

typedef struct drv_kind_t {
  const char *name; /* the value of an experiment's "kind" */
  int n_cols;
  const ana_col_t *cols; /* its result columns, in file order */
  /* Its state for one job (presets, caches of files), or NULL with a message. */
  void *(*open)(const drv_kind_opts_t *o, char *err, size_t errlen);
  void (*close)(void *k);
  /* An experiment as the job file gives it (base with overrides) into its
   * canonical JSON (malloc'd: sorted keys, compact, full precision) and id.
   * 0; -1: mistakes in the job (one line each, every one found, naming its
   * JSON path after `where`); 1: canonical but a file it names cannot be read (the message
   * says which; the id hashes the text alone and the experiment is `failed`). */
  int (*canon)(void *k, const json_t *exp, const char *where, char **canon, uint64_t *id, char *err,
               size_t errlen);
  /* A canonical JSON into an experiment (x zeroed; status ANA_OK when it can
   * run); `where` names it in messages ("job.json: experiments[3]"). The
   * driver then validates it (eng_exp_validate) and sizes it. */
  void (*build)(void *k, const char *canon, uint64_t id, const char *where, drv_exp_t *x);
  /* What the plan reads of an experiment, without building it for the engine
   * where the kind knows cheaper (NULL: build, then drv_exp_size): x's status,
   * message, model and feat and *mem exactly as build and drv_exp_size give
   * them (tests/cli/plan_describe.sh); x holds nothing to release. */
  void (*describe)(void *k, const char *canon, uint64_t id, const char *where, drv_exp_t *x,
                   int64_t *mem);
  /* canon, and where it gives 0, what describe gives of the experiment (as
   * the kind's describe of that canonical text would: x and
   * *mem), from one reading of it (optional: NULL, the plan describes the
   * canonical text). x holds nothing to release. */
  int (*canon_describe)(void *k, const json_t *exp, const char *where, char **canon, uint64_t *id,
                        char *err, size_t errlen, drv_exp_t *x, int64_t *mem);
  /* Results of experiment e of batch b (x ran as it): one value per column;
   * strings stay valid until release. Called on several threads at once,
   * each for its own experiment. */
  void (*results)(void *k, drv_exp_t *x, const eng_batch_t *b, int32_t e, ana_value_t *v);
  void (*release)(void *k, drv_exp_t *x);
} drv_kind_t;

/* X(name, type, units, long_name): the network's counters, columns of every
 * kind that sends packets (network, collective), in this order. */
#define DRV_COUNTER_COLS(X)                                                                        \
  X(drops, ANA_INT64, "1", "packets dropped")                                                      \
  X(pfc_pauses, ANA_INT64, "1", "PFC PAUSE frames sent")                                           \
  X(ecn_marks, ANA_INT64, "1", "packets marked ECN")                                               \
  X(cnps, ANA_INT64, "1", "DCQCN congestion notifications sent")                                   \
  X(retransmits, ANA_INT64, "1", "data packets sent again")                                        \
  X(timeouts, ANA_INT64, "1", "retransmission timeouts")                                           \
  X(retx_bytes, ANA_INT64, "bytes", "payload bytes sent again")                                    \
  X(packet_hops, ANA_INT64, "1", "packet transmissions on links")
/* Fills the DRV_COUNTER_COLS values of experiment e of b at v[0..]. */
void drv_counter_values(const eng_batch_t *b, int32_t e, ana_value_t *v);

/* The kind of this name, or NULL. */
const drv_kind_t *drv_kind_find(const char *name);
/* Names of the registered kinds, ", "-separated. */
const char *drv_kind_names(void);

/* Builds one experiment through its kind; with `mem`, then validates it with
 * the engine (ANA_INVALID with the engine's reason), fills *mem (bytes of
 * world tables it needs alone; 0 unless runnable) and x->feat. Without, the
 * engine's batch validates it (a batch's run: the plan has sized it). */
/* How messages name experiment i of a job of `count` (path JOB): "JOB: base"
 * for a job of one experiment (its values are base's), else
 * "JOB: experiments[i]". */
void drv_exp_where(char *buf, size_t len, const char *job, int64_t count, int64_t i);
void drv_exp_build(const drv_kind_t *kind, void *k, const char *canon, uint64_t id,
                   const char *where, drv_exp_t *x, int64_t *mem);
/* Sizes a built experiment (status ANA_OK) as drv_exp_build with `mem` does:
 * the engine's validation unless the kind's build made it, *mem, x->feat and
 * x->model. */
void drv_exp_size(drv_exp_t *x, int64_t *mem);
/* What a kind's describe step keeps of an experiment it sized, for the next
 * ones of the same task graph on the same topology: its graph's size and cost
 * features, under the parameters that eng_exp_check's checks of the tasks and
 * drv_exp_features read (the key, with the graph and topology). Memory and
 * the checks of the other parameters are each experiment's (drv_exp_seen). */
typedef struct drv_seen_key_t {
  int64_t overlap_q16;
  int32_t mtu, ack_every, classes, model;
} drv_seen_key_t;
typedef struct drv_seen_t {
  drv_seen_key_t key;
  eng_graph_size_t size;
  shd_feat_t feat;
} drv_seen_t;
/* The key of parameters p (zeroed, then filled: compare with memcmp). */
void drv_seen_key(const eng_params_t *p, drv_seen_key_t *key);

#define DRV_SEEN 16 /* graphs a cache keeps: the oldest goes first */

/* A kind's cache of what it sized: up to DRV_SEEN entries, each under its
 * parameters' key and `kind_bytes` of the kind's own key (what the graph is
 * made of besides: the collective, the set-up and topology; zeroed, then
 * filled: compared with memcmp). The flow level is never kept: it is sized
 * by its own rules. A zeroed cache is an empty one with no kind key (and
 * nothing to free). */
typedef struct drv_seen_cache_t {
  drv_seen_t seen[DRV_SEEN];
  unsigned char *kind_keys; /* (DRV_SEEN, kind_bytes) */
  size_t kind_bytes;
  int32_t n, next; /* entries held; the slot the next insert takes */
} drv_seen_cache_t;
/* An empty cache whose kind key is kind_bytes long: 0, or -1 (out of memory). */
int drv_seen_init(drv_seen_cache_t *c, size_t kind_bytes);
void drv_seen_free(drv_seen_cache_t *c);
/* The slot of the entry of the kind's key `kind` (NULL where it has none)
 * and parameters' key pk, or -1: none, or pk is the flow level's. */
int32_t drv_seen_find(const drv_seen_cache_t *c, const void *kind, const drv_seen_key_t *pk);
/* Keeps sized experiment x's graph size and features under (kind, pk) in
 * the next slot (the oldest entry's once all are held) and returns it, or -1
 * where x is not sized (status not ANA_OK) or pk is the flow level's. */
int32_t drv_seen_insert(drv_seen_cache_t *c, const void *kind, const drv_seen_key_t *pk,
                        const drv_exp_t *x);
/* Sizes the packet-level experiment d (its topology and parameters; no tasks,
 * no trace) whose graph `seen` describes: x's status, message (after
 * `prefix`, NULL: none) and feat and *mem, as building it and drv_exp_size
 * give them (eng_exp_memory_sized). */
void drv_exp_seen(const eng_exp_desc_t *d, const drv_seen_t *seen, const char *prefix, drv_exp_t *x,
                  int64_t *mem);

/* What the plan needs of an experiment (status, message, model, feat, *mem):
 * the kind's describe, or drv_exp_build with `mem` and release; with
 * MULTIVERSE_PLAN_BUILD=1 always the latter (what describe is checked
 * against). x holds nothing to release. */
void drv_exp_describe(const drv_kind_t *kind, void *k, const char *canon, uint64_t id,
                      const char *where, drv_exp_t *x, int64_t *mem);

/* Whether the plan takes what the kind's canon_describe gives (it has one,
 * and MULTIVERSE_PLAN_BUILD is not 1). */
int drv_kind_canon_describes(const drv_kind_t *kind);
/* The kind's canon_describe (x zeroed first; one build or describe of the
 * kind at a time, as drv_exp_describe). */
int drv_exp_canon_describe(const drv_kind_t *kind, void *k, const json_t *exp, const char *where,
                           char **canon, uint64_t *id, char *err, size_t errlen, drv_exp_t *x,
                           int64_t *mem);

/* Releases what drv_exp_build made (through the kind; a rank's workers may
 * build and release on several threads at once). */
void drv_exp_release(const drv_kind_t *kind, void *k, drv_exp_t *x);

/* What the cost model reads of an experiment (drv_estimate.c): packet-hops,
 * the windows its run steps (from its task graph's schedule on an empty
 * network), nodes x windows, 1, and its world's rows. */
void drv_exp_features(const eng_exp_desc_t *d, shd_feat_t *f);

#endif
