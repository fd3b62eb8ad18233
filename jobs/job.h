/* jobs: network parameters as users write them (keys and units generated from
 * ENG_PARAMS and CC_PARAMS), the presets file with defaults and CC presets,
 * the canonical text of an experiment and its id. */
#ifndef JOB_H
#define JOB_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "sim/eng_params.h"
#include "topo/topo.h"

/* A named congestion-control preset (jobs/presets/network.json cc_presets):
 * its parameters and, where it names them, the switches' ECN thresholds. */
typedef struct job_cc_preset_t {
  char name[32];
  cc_params_t cc;
  int32_t sets_ecn;           /* JOB_ECN_* bits: which thresholds it sets */
  int64_t ecn_kmin, ecn_kmax; /* bytes */
  double ecn_pmax;
} job_cc_preset_t;

enum { JOB_ECN_KMIN = 1, JOB_ECN_KMAX = 2, JOB_ECN_PMAX = 4 };

#define JOB_CC_PRESETS_MAX 16

/* A key a network preset sets: its stored value, for experiments of one CC
 * kind or (CC_NONE) all. */
typedef struct job_net_set_t {
  int32_t key;  /* index in the key table */
  int32_t kind; /* cc_kind_t; CC_NONE: every experiment */
  unsigned char val[8];
} job_net_set_t;

#define JOB_NET_PRESET_KEYS 64
#define JOB_NET_PRESETS_MAX 8

/* A named network preset (network.json `presets`), applied with the pseudo-key
 * `preset`: its `network` keys, then those of the experiment's CC kind. */
typedef struct job_net_preset_t {
  char name[32];
  int32_t n;
  job_net_set_t set[JOB_NET_PRESET_KEYS];
} job_net_preset_t;

/* The presets file: every parameter's default, the CC presets and the
 * network presets. */
typedef struct job_presets_t {
  eng_params_t defaults;
  int32_t n_cc;
  job_cc_preset_t cc[JOB_CC_PRESETS_MAX];
  int32_t n_net;
  job_net_preset_t net[JOB_NET_PRESETS_MAX];
} job_presets_t;

/* Loads a presets file (jobs/presets/network.json). Its `defaults` must name
 * exactly the keys of ENG_PARAMS, `sources` one for each, every CC preset
 * every key of its kind (CC_PARAMS), and each kind (dcqcn, dctcp, hpcc) needs
 * a preset of its name. 0 or -1 with a message naming the file and JSON path. */
int job_presets_load(const char *path, job_presets_t *ps, char *err, size_t errlen);

/* 1 if `key` is a parameter key (a line of ENG_PARAMS or CC_PARAMS). */
int job_param_known(const char *key);

/* Applies network preset `name` to p (after `cc`: its kind's keys follow the
 * kind in effect). 0, or -1 with the reason. */
int job_net_preset_apply(const job_presets_t *ps, eng_params_t *p, const char *name, char *why,
                         size_t len);

/* Applies `--set KEY=VALUE` (VALUE in the key's unit, as text); `cc=NAME`
 * applies a CC preset, `preset=NAME` a network preset. 0 or -1 with a message
 * naming the key. */
int job_param_set(const job_presets_t *ps, eng_params_t *p, const char *kv, char *err,
                  size_t errlen);
/* Applies n KEY=VALUE texts as job_param_set does, `cc` (a preset of several
 * keys) first, then `preset` (a network preset), then every other key, so that
 * a preset never overrides an explicit key whatever their order; otherwise in
 * order. 0, or -1 with the message of
 * the first one refused and its index in *bad (bad may be NULL). */
int job_params_set_list(const job_presets_t *ps, eng_params_t *p, const char *const *kvs, int n,
                        int *bad, char *err, size_t errlen);
/* Applies one key of a job file; `where` prefixes messages (the file and the
 * JSON path of the object holding the key). 0 or -1. */
int job_param_set_json(const job_presets_t *ps, eng_params_t *p, const char *key, const json_t *v,
                       const char *where, char *err, size_t errlen);
/* Applies every member of `obj` that is a parameter key, "cc" first (its
 * preset), then "preset" (a network preset), then the others, which
 * override; members named in `skip` (NULL-ended) are left to the caller, any
 * other member is an error. 0 or -1. */
int job_params_apply(const job_presets_t *ps, eng_params_t *p, const json_t *obj,
                     const char *const *skip, const char *where, char *err, size_t errlen);

/* Canonical text of the parameters: one JSON object with every key in the
 * user's units, sorted keys, compact, exact decimals (a value stored in ps
 * prints as the exact decimal of its us). Parsing it back with
 * job_params_apply gives identical stored values. Returns a malloc'd string,
 * NULL when out of memory. */
char *job_params_canonical(const eng_params_t *p);
/* The parameter reference of every key (ENG_PARAMS and CC_PARAMS rows: range and
 * doc line; network keys with their defaults in ps): text for `multiverse
 * params`, or with `markdown` the generated part of docs/parameters.md.
 * malloc'd; NULL when out of memory. */
char *job_params_doc(const job_presets_t *ps, int markdown);
/* The value of parameter `key` in p as its canonical text writes it (a JSON
 * value that job_param_set_json reads back to the same stored value); NULL
 * for an unknown key or when out of memory. */
json_t *job_param_json(const eng_params_t *p, const char *key);
/* 1 if every key's stored value is identical (bit for bit). */
int job_params_equal(const eng_params_t *a, const eng_params_t *b);

/* A `network` experiment as a user writes it in a job file:
 * {"kind":"network","network":{"topology":"FILE" or {...},"flows":"FILE",
 *  "cc":"dcqcn",...}}. Paths are as written (relative to the job file). */
typedef struct job_exp_t {
  char *topology_file;  /* a topology file (ns-3, or .json), or NULL */
  topo_spec_t *topology; /* an inline topology object, read (malloc'd), or NULL */
  char *flows_file;    /* an ns-3 flow file */
  eng_params_t params;
} job_exp_t;

/* Parses an experiment object; parameters start from the presets' defaults.
 * `where` names it in messages ("job.json: experiments[3]"). 0 or -1. */
int job_exp_parse(const job_presets_t *ps, const json_t *obj, const char *where, job_exp_t *x,
                  char *err, size_t errlen);
/* The canonical JSON of the experiment (every parameter key, sorted keys,
 * compact; an inline topology as topo_spec_json prints it: every key of its
 * kind, sizes resolved); job_exp_parse of it gives the same experiment.
 * malloc'd; NULL when out of memory. */
char *job_exp_canonical(const job_exp_t *x);
void job_exp_free(job_exp_t *x);

/* v as canonical JSON text (sorted keys, compact, numbers as the shortest
 * decimal that reads back: 1 and 1.0 print alike). malloc'd; NULL when out of
 * memory. */
char *job_json_canonical(const json_t *v);

/* File digests, remembered by path (an experiment id reads each file once). */
typedef struct job_digests_t job_digests_t;
job_digests_t *job_digests_new(void);
void job_digests_free(job_digests_t *c);

/* Experiment id: a 64-bit hash of the canonical text followed by the digest
 * of every file it references (the topology file, a file a JSON topology
 * names, the flow file), so editing a file changes the id; paths are read
 * relative to `base_dir` (the job file's folder; NULL: the current one).
 * `cache` may be NULL. The id seeds the experiment's random numbers. 0 or -1
 * with a message naming a file that cannot be read. */
int job_exp_id(const job_exp_t *x, const char *base_dir, job_digests_t *cache, uint64_t *id,
               char *err, size_t errlen);
/* The same, given x's canonical text (job_exp_canonical) already made. */
int job_exp_id_canon(const job_exp_t *x, const char *canon, const char *base_dir,
                     job_digests_t *cache, uint64_t *id, char *err, size_t errlen);
/* The id of canonical text `canon` and the files it references, in order
 * (relative to base_dir unless absolute), for any experiment kind. 0 or -1
 * with a message naming a file that cannot be read. */
int job_id_files(const char *canon, const char *const *files, int n, const char *base_dir,
                 job_digests_t *cache, uint64_t *id, char *err, size_t errlen);
/* The hash itself: canonical text `canon` and the digests of its files in
 * order of reference (docs/engine.md, Experiment ids). */
uint64_t job_id_hash(const char *canon, const uint64_t *digests, int n_files);
/* Digest of a file's bytes (64-bit FNV-1a). 0 or -1 with a message. */
int job_file_digest(const char *path, uint64_t *digest, char *err, size_t errlen);

#endif
