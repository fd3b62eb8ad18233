/* topo internals shared by the module's files: size limits, the node/link builder of
 * the readers and generators, the routing sets, parsers that say why they failed, and
 * checked access to JSON keys. */
#ifndef TOPO_INT_H
#define TOPO_INT_H

#include "base/base_err.h" /* base_errf: every message of the module */
#include "topo/topo.h"

#define TOPO_MAX_NODES (1 << 20)
#define TOPO_MAX_PORTS 65535              /* per node: set_ports are uint16 */
#define TOPO_MAX_LINKS (1 << 26)          /* keeps 2 * n_links in int32 */
#define TOPO_MAX_TABLE ((int64_t)1 << 30) /* routing table entries (4 GiB) */

/* Allocates n_nodes nodes (hosts, non-forwarding) and no links yet; links_cap, the
 * number of links expected, is only checked against the limit. Returns 0 or -1. */
int topo_alloc(topo_t *t, int64_t n_nodes, int64_t links_cap, const char *kind, char *err,
               size_t errlen);

/* Appends a link; returns its index, or -1 when out of memory or past the limit. */
int32_t topo_add_link(topo_t *t, int32_t a, int32_t b, int64_t rate_bps, int64_t delay_ps,
                      double error_rate);

/* For generators: topo_alloc with ids >= n_hosts marked as switches, and
 * topo_add_link; errors are prefixed by `where`. */
int topo_gen_alloc(topo_t *t, int64_t n_hosts, int64_t n_nodes, int64_t n_links, const char *kind,
                   const char *where, char *err, size_t errlen);
int topo_gen_link(topo_t *t, int64_t a, int64_t b, int64_t rate_bps, int64_t delay_ps,
                  const char *where, char *err, size_t errlen);

/* The distinct next-hop port sets of each node (topo_sets.c), in creation order; a
 * set's id is local to its node. Laid out node by node into routes at the end. */
typedef struct topo_sets_t {
  uint32_t n, cap; /* sets */
  int32_t *owner;  /* (cap) node the set belongs to */
  uint32_t *local; /* (cap) id local to the owner */
  size_t *off;     /* (cap + 1) into ports */
  uint16_t *ports; /* (ports_cap) local port indices */
  size_t ports_cap;
  uint32_t *slot;     /* (slot_cap) hash of (owner, ports): set index + 1; 0 = empty */
  uint32_t slot_cap;  /* power of two, at least twice n */
  uint32_t *per_node; /* (n_nodes) sets of each node so far */
  uint32_t *last;     /* (n_nodes) set last found for the node; UINT32_MAX: none */
} topo_sets_t;
int topo_sets_init(topo_sets_t *s, int32_t n_nodes);
/* Local id of the set p[0..k) of node, added if new; -1 when out of memory. */
int64_t topo_sets_find_add(topo_sets_t *s, int32_t node, const uint16_t *p, int k);
/* Fills t->routes' set_base, n_sets, set_off and set_ports. */
int topo_sets_layout(const topo_sets_t *s, topo_t *t, char *err, size_t errlen);
void topo_sets_free(topo_sets_t *s);

/* Fills t->routes from nodes and ports (topo_finish's second half). */
int topo_build_routes(topo_t *t, char *err, size_t errlen);

/* As topo_parse_rate / topo_parse_delay; on -1, *why completes "rate 'S' ..." or
 * "delay 'S' ...". */
int64_t topo_parse_rate_why(const char *s, const char **why);
int64_t topo_parse_delay_why(const char *s, const char **why);
/* 0 if a rate (bit/s) or delay (ps) is within the limits of topo.h; else -1 and *why
 * completes "rate ..." or "delay ..." ("is above 1Pbps, the largest rate"). */
int topo_check_rate(int64_t bps, const char **why);
int topo_check_delay(int64_t ps, const char **why);


/* JSON topology objects (topo_jkeys.c): errors read "WHERE.key: problem", or
 * "WHERE: key: problem" when WHERE is a bare file name (no ": "). */
void topo_jerr(char *err, size_t errlen, const char *where, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* Rejects keys of obj not in the NULL-terminated list `allowed`. */
int topo_jkeys(const json_t *obj, const char *const *allowed, const char *where, char *err,
               size_t errlen);
/* An integer key in [min, max] (JSON integer, or a real with an integral value),
 * def when absent. */
int topo_jint(const json_t *obj, const char *key, int64_t def, int64_t min, int64_t max,
              int64_t *out, const char *where, char *err, size_t errlen);
/* A number key in [min, max], def when absent. */
int topo_jnum(const json_t *obj, const char *key, double def, double min, double max, double *out,
              const char *where, char *err, size_t errlen);

/* Link rates and delays of a generated topology: link_gbps, link_delay_ns and (when
 * with_host) host_gbps, host_delay_ns. */
typedef struct topo_jlinks_t {
  int64_t link_bps, host_bps; /* bit/s */
  int64_t link_ps, host_ps;   /* ps */
} topo_jlinks_t;
int topo_jlinks(const json_t *obj, int with_host, topo_jlinks_t *out, const char *where, char *err,
                size_t errlen);

/* Generators: fill t (nodes and links, not yet finished) from a spec of their shape. */
int topo_gen_leaf_spine(const topo_spec_t *s, const char *where, topo_t *t, char *err,
                        size_t errlen);
int topo_gen_fat_tree(const topo_spec_t *s, const char *where, topo_t *t, char *err,
                      size_t errlen);
int topo_gen_rail(const topo_spec_t *s, const char *where, topo_t *t, char *err, size_t errlen);
int topo_gen_torus(const topo_spec_t *s, const char *where, topo_t *t, char *err, size_t errlen);

#endif
