/* trn_et: Chakra execution traces (ASTRA-sim 2.x's workload format; PyTorch's
 * execution traces through Chakra's converter), one .et file per rank, read into a
 * neutral description: per rank its nodes (compute, collectives, sends and receives,
 * metadata) with their dependencies, and the communicator groups. docs/chakra.md
 * describes the format and what each field becomes. The protobuf decoding needs
 * protobuf-c at build time (trn_et_pb.c); without it trn_et_read says so. */
#ifndef TRN_ET_H
#define TRN_ET_H

#include <stddef.h>
#include <stdint.h>

/* Node kinds, as Chakra numbers them (NodeType). */
typedef enum trn_et_kind_t {
  TRN_ET_INVALID = 0,
  TRN_ET_METADATA = 1,
  TRN_ET_MEM_LOAD = 2,
  TRN_ET_MEM_STORE = 3,
  TRN_ET_COMP = 4,
  TRN_ET_SEND = 5,
  TRN_ET_RECV = 6,
  TRN_ET_COLL = 7,
  TRN_ET_KIND_COUNT
} trn_et_kind_t;

/* Collectives, as Chakra numbers them (CollectiveCommType). */
typedef enum trn_et_coll_t {
  TRN_ET_ALL_REDUCE = 0,
  TRN_ET_REDUCE = 1,
  TRN_ET_ALL_GATHER = 2,
  TRN_ET_GATHER = 3,
  TRN_ET_SCATTER = 4,
  TRN_ET_BROADCAST = 5,
  TRN_ET_ALL_TO_ALL = 6,
  TRN_ET_REDUCE_SCATTER = 7,
  TRN_ET_REDUCE_SCATTER_BLOCK = 8,
  TRN_ET_BARRIER = 9,
  TRN_ET_COLL_COUNT
} trn_et_coll_t;

typedef struct trn_et_node_t {
  uint64_t id;
  int32_t kind;         /* trn_et_kind_t */
  int32_t index;        /* message number in its file (1: the first node) */
  int64_t dur_ps;       /* duration_micros in ps */
  uint64_t num_ops;     /* num_ops attribute (FLOPs), 0 */
  uint64_t tensor_size; /* tensor_size attribute (bytes), 0 */
  int32_t coll;         /* comm_type (trn_et_coll_t), -1 when absent */
  int32_t peer;         /* send: comm_dst; receive: comm_src; -1 when absent */
  uint64_t size;        /* comm_size, bytes */
  uint32_t tag;         /* comm_tag */
  uint32_t prio;        /* comm_priority */
  int32_t group;        /* index into trn_et_t.groups; -1: every rank */
  uint8_t cpu;          /* is_cpu_op */
  int32_t name;         /* offset into its rank's names */
  int32_t n_deps;       /* data and control dependencies, ids ... */
  int64_t deps;         /* ... from here in its rank's deps */
} trn_et_node_t;

typedef struct trn_et_rank_t {
  char *path; /* its file */
  int32_t n_nodes;
  trn_et_node_t *nodes; /* (n_nodes) in file order */
  int64_t n_deps;
  uint64_t *deps; /* (n_deps) node ids */
  char *names;    /* NUL-terminated node names, back to back */
  size_t names_len;
} trn_et_rank_t;

/* A communicator group: a pg_name and its ranks (ascending). */
typedef struct trn_et_group_t {
  char name[64];
  int32_t n;
  int32_t *ranks; /* (n) */
} trn_et_group_t;

typedef struct trn_et_t {
  char prefix[4096]; /* files are prefix.N.et */
  int32_t n_ranks;
  trn_et_rank_t *ranks; /* (n_ranks) */
  int32_t n_groups;
  trn_et_group_t *groups; /* (n_groups) */
} trn_et_t;

/* Largest trace set and node count per rank read (bounds the task graph). */
#define TRN_ET_MAX_RANKS 65536
#define TRN_ET_MAX_NODES (1 << 24)
/* Longest duration (a task's longest wait, 1e5 s) and largest comm_size read. */
#define TRN_ET_MAX_US 100000000000LL
#define TRN_ET_MAX_BYTES ((int64_t)1 << 50)

/* Whether protobuf-c was found at build time (Chakra traces can be read). */
int trn_et_available(void);

/* The trace set that `path` names, ASTRA-sim's way (its --workload-configuration): a
 * prefix P with files P.0.et, P.1.et, ...; or one of those files; or a folder holding
 * one such set. Writes the prefix into `prefix` and returns the rank count (files
 * P.0.et to P.(n-1).et, each a regular file), 0 when `path` names no trace set, or -1
 * with a message (a folder with no set or two, a gap in the numbering). */
int trn_et_find(const char *path, char *prefix, size_t prefix_len, char *err, size_t errlen);

/* Reads the trace set of `prefix` (n_ranks files) and, when comm_groups is not NULL,
 * the communicator groups of ASTRA-sim's --comm-group-configuration JSON file
 * ({"1": [0, 1, ...], ...}). Every field is checked: what this simulator does not
 * model is refused naming the file, the node and the field; docs/chakra.md lists what
 * is read, what is ignored as ASTRA-sim ignores it, and what is refused. 0, or -1 with
 * one line. */
int trn_et_read(const char *prefix, int32_t n_ranks, const char *comm_groups, trn_et_t *et,
                char *err, size_t errlen);
void trn_et_free(trn_et_t *et);

const char *trn_et_kind_name(int kind);
const char *trn_et_coll_name(int coll);
/* Node names are kept (and group names compared) as at most this many printable
 * characters: other bytes become '?'. */
#define TRN_ET_NAME_LEN 160
void trn_et_clean(const char *s, char *out, size_t len);
/* A node's name (its rank's string). */
const char *trn_et_node_name(const trn_et_rank_t *r, const trn_et_node_t *n);

/* ---- used by the protobuf reader (trn_et_pb.c) ---- */

/* Appends a node to rank r with its dependencies and name; 0 or -1 (out of memory). */
int trn_et_add_node(trn_et_rank_t *r, const trn_et_node_t *n, const uint64_t *deps, int32_t n_deps,
                    const char *name);
/* Adds (or finds) the group named `name`; its index, or -1 with a message. ranks NULL:
 * a name to be resolved later by a groups file. */
int32_t trn_et_group(trn_et_t *et, const char *name, const int32_t *ranks, int32_t n, char *err,
                     size_t errlen);
/* Reads the process groups that PyTorch's execution trace records in a metadata
 * node's inputs (ASTRA-sim's reading: the JSON list of {"pg_name", "ranks"} between
 * the text's first and last two characters; empty ranks: every rank). 0, or -1 with
 * a message. */
int trn_et_pg_metadata(trn_et_t *et, const char *values, char *err, size_t errlen);

/* The protobuf side: reads one rank's file into r (groups by name into et). 0 or -1. */
int trn_et_read_rank(trn_et_t *et, int32_t rank, char *err, size_t errlen);

#endif
