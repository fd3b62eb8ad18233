/* topo: datacenter topologies (generated or read from ns-3 HPCC files) and their
 * shortest-path routing tables. Host-side set-up only; the engine copies what it
 * needs into its world tables. */
#ifndef TOPO_H
#define TOPO_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "base/base_units.h"

#define TOPO_ERR_LEN 512

/* What a link may be (docs/formats.md "Limits"). The clock is int64 ps and event keys pack
 * time * 8 + class, so times stay below 2^60 ps (13.3 days); max_time_s is at most
 * 1e6 s, which leaves 1.5e5 s for what is scheduled past it. */
#define TOPO_MAX_DELAY_PS BASE_PS_PER_S /* 1 s: far past any physical link */
/* 1 Gb/s: a flow's standalone FCT (at most 2^31 packets of at most 65000 wire bytes
 * at this rate, 1.1e18 ps) stays below 2^60 ps. */
#define TOPO_MIN_RATE_BPS 1000000000LL
/* 1 Pb/s: HPCC's telemetry carries link rates in Mb/s in 32 bits. */
#define TOPO_MAX_RATE_BPS 1000000000000000LL
/* Links on the shortest path between two hosts (the standalone FCT follows it). */
#define TOPO_MAX_HOPS 256

/* A bidirectional link between nodes a and b. */
typedef struct topo_link_t {
  int32_t a, b;
  int64_t rate_bps;  /* bit/s, > 0 */
  int64_t delay_ps;  /* one-way propagation, ps, > 0 */
  double error_rate; /* per-packet loss probability in [0, 1) */
} topo_link_t;

/* One end of a link as seen from a node: an egress port. */
typedef struct topo_port_t {
  int32_t node;      /* owner */
  int32_t peer;      /* node at the other end */
  int32_t peer_port; /* index of the peer's port on the same link, local to peer */
  int32_t link;      /* index into links */
} topo_port_t;

/* Routing: destinations are grouped. A host attached by exactly one link to a
 * switch belongs to that switch's group (its edge switch routes the last hop with
 * host_edge_port); any other host is a group of its own. Every node that has more
 * than one port holds one row of `table`, indexed by group, naming a set of
 * equal-cost next-hop ports. */
typedef struct topo_routes_t {
  int32_t n_groups;
  int32_t *host_group;     /* (n_nodes) group of a host; -1 for switches */
  int32_t *group_node;     /* (n_groups) the edge switch, or the host itself */
  int32_t *host_edge_port; /* (n_nodes) port of the host's edge switch towards it; -1 if none */
  int32_t *row;            /* (n_nodes) row of table for this node; -1 for single-port nodes */
  int32_t n_rows;
  uint32_t *table;    /* (n_rows * n_groups) set id local to the node; TOPO_NO_ROUTE if none */
  uint32_t *set_base; /* (n_nodes) first set of this node in set_off */
  uint32_t n_sets;
  uint32_t *set_off;   /* (n_sets + 1) CSR offsets into set_ports */
  uint16_t *set_ports; /* local port indices, ascending within a set */
} topo_routes_t;

#define TOPO_NO_ROUTE UINT32_MAX

typedef struct topo_t {
  int32_t n_nodes;
  int32_t n_hosts;    /* nodes with is_switch == 0 */
  uint8_t *is_switch; /* (n_nodes) */
  uint8_t *forwards;  /* (n_nodes) 1 for switches and for hosts that relay (torus) */
  int32_t n_links;
  topo_link_t *links; /* (n_links) */
  int32_t *port_off;  /* (n_nodes + 1) CSR offsets into ports */
  topo_port_t *ports; /* (2 * n_links) grouped by node, in link order */
  topo_routes_t routes;
  char kind[32];         /* "file", "fat_tree", "rail_optimized", "torus" */
  int32_t ignored_lines; /* ns-3 file: lines after the declared links, ignored as ns-3 does */
  /* A SimAI topology file (6-field header): */
  uint8_t *nvswitch;       /* (n_nodes) 1 for its NVSwitches (switches too); NULL: none */
  int32_t gpus_per_server; /* its gpus_per_server, 0: not a SimAI file */
  char gpu_type[16];       /* its gpu_type ("H100"), "" */
} topo_t;

/* Reads an ns-3 HPCC topology file: first line `nodes switches links`, second line
 * the switch ids, then `src dst rate delay error_rate` per link (rate like 100Gbps,
 * delay like 0.001ms); lines after the declared links are ignored, as ns-3 ignores
 * them, and counted in ignored_lines. SimAI's files (first line `nodes
 * gpus_per_server nvswitch_num switch_num links gpu_type`, NVSwitch ids first on the
 * second) give nvswitch, gpus_per_server and gpu_type; a host's shortest paths
 * through an NVSwitch win over its other equal-cost paths (SimAI's routing: GPUs of
 * a server talk over NVLink). Errors name the file and line. Returns 0 or -1. */
int topo_read_ns3(const char *path, topo_t *t, char *err, size_t errlen);
/* As topo_read_ns3, from the len bytes at text; `name` names it in messages. */
int topo_parse_ns3(const char *name, const char *text, size_t len, topo_t *t, char *err,
                   size_t errlen);

/* A topology as its JSON object ({"kind": ...}) describes it, every default
 * resolved: what builds it (topo_spec_build) and what its canonical object
 * prints (topo_spec_json). Two objects that build the same topology (a radix
 * `k` or the sizes it implies; 100 or 100.0 Gb/s) have one spec. */
typedef enum topo_shape_t {
  TOPO_SHAPE_FILE = 0,       /* an ns-3 topology file: path */
  TOPO_SHAPE_LEAF_SPINE = 1, /* fat_tree, 2 tiers */
  TOPO_SHAPE_FAT_TREE = 2,   /* fat_tree, 3 tiers */
  TOPO_SHAPE_RAIL = 3,       /* rail_optimized */
  TOPO_SHAPE_TORUS = 4,
} topo_shape_t;

typedef struct topo_spec_t {
  int32_t shape;                                                   /* topo_shape_t */
  int64_t leaves, spines, hosts_per_leaf;                          /* leaf-spine */
  int64_t pods, tors_per_pod, aggs_per_pod, cores, hosts_per_tor;  /* 3 tiers */
  int64_t servers, nics_per_server, servers_per_group, rail_spines; /* rail_optimized */
  int64_t dims[3];                                                 /* torus; 1 where absent */
  int64_t link_bps, host_bps;                                      /* bit/s */
  int64_t link_ps, host_ps;                                        /* ps */
  char path[4096];                                                 /* file, as written */
} topo_spec_t;

/* Reads a topology object into s (every key checked, defaults resolved); `where`
 * names it in messages. 0 or -1. */
int topo_spec_parse(const json_t *obj, const char *where, topo_spec_t *s, char *err,
                    size_t errlen);
/* Builds the topology s describes; a relative file path is found in base_dir
 * (NULL: the current directory). 0 or -1 with a message after `where`. */
int topo_spec_build(const topo_spec_t *s, const char *where, const char *base_dir, topo_t *t,
                    char *err, size_t errlen);
/* The canonical object of s: every key of its kind, sizes resolved (no `k` or
 * `oversubscription`), rates in Gb/s and delays in ns; topo_spec_parse of it
 * gives s again. NULL when out of memory. */
json_t *topo_spec_json(const topo_spec_t *s);

/* Builds a topology from its JSON object ({"kind":"fat_tree",...}); `where` names
 * the file (and JSON path prefix) for error messages. Returns 0 or -1. */
int topo_from_json(const json_t *obj, const char *where, topo_t *t, char *err, size_t errlen);
/* As topo_from_json; a relative "path" of {"kind":"file"} is found in base_dir (the
 * directory of the JSON file; NULL: the current directory). */
int topo_from_json_at(const json_t *obj, const char *where, const char *base_dir, topo_t *t,
                      char *err, size_t errlen);

/* Loads TOPO as the `multiverse net` command does: a .json file holding the
 * topology object (or {"topology": {...}}), else an ns-3 HPCC file. */
int topo_load(const char *path, topo_t *t, char *err, size_t errlen);
/* As topo_load for a .json file, from the len bytes at text (`name` names it in
 * messages; base_dir as for topo_from_json_at). */
int topo_parse_json(const char *name, const char *text, size_t len, const char *base_dir, topo_t *t,
                    char *err, size_t errlen);

/* Fills port_off/ports and routes from nodes and links; called by the readers and
 * builders, exposed for tests that assemble a topology by hand. Checks every limit:
 * counts, rates, delays, path lengths. */
int topo_finish(topo_t *t, char *err, size_t errlen);

/* Local port index at `node` whose peer is `peer`, or -1 (first such port). */
int topo_port_to(const topo_t *t, int32_t node, int32_t peer);

/* Equal-cost next-hop ports of `node` towards host `dst` (node != dst): writes up
 * to `cap` local port indices into `out` and returns how many (0: unreachable). */
int topo_next_hops(const topo_t *t, int32_t node, int32_t dst, uint16_t *out, int cap);

/* Hop count of the shortest path from node to host dst, -1 if unreachable. */
int topo_distance(const topo_t *t, int32_t node, int32_t dst);

/* Each node's tier into tier[n_nodes]: hosts 0, a switch one more than the
 * nearest host's (254 at most; 255: no host reaches it). 0, or -1 when out of
 * memory. */
int topo_tiers(const topo_t *t, uint8_t *tier);

void topo_free(topo_t *t);

/* Parses "100Gbps", "25Gb/s", "400G", "10Mbps"... into bit/s; -1 on error. */
int64_t topo_parse_rate(const char *s);
/* Parses "0.001ms", "1us", "1000ns", "5ps", "2s" exactly into ps; 0 for a zero
 * delay (callers reject it: "delay must be > 0"), -1 on error (a bare number without
 * unit, a negative delay, digits finer than 1 ps). */
int64_t topo_parse_delay(const char *s);

/* The whole file at path in a new buffer (*len bytes, not NUL-terminated);
 * -1 with "cannot open PATH: why" or "cannot read PATH: why". The topology
 * and flow readers share it. */
int topo_read_file(const char *path, char **buf, size_t *len, char *err, size_t errlen);

#endif
