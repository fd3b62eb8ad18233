/* trn: one rank's Chakra trace file decoded with protobuf-c (the code protoc-c generates
 * from trn_et.proto at build time): a sequence of messages, each after its length as a
 * varint, the first the trace's metadata, then one node each. Every attribute ASTRA-sim
 * reads is checked and kept; docs/chakra.md says what each becomes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topo/topo.h"
#include "train/trn_et.h"
#include "trn_et.pb-c.h"

int trn_et_available(void) { return 1; }

/* A varint at *at (at most 10 bytes, below end); 0 or -1. */
static int varint(const uint8_t **at, const uint8_t *end, uint64_t *v) {
  uint64_t x = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (*at >= end) return -1;
    uint8_t c = *(*at)++;
    x |= (uint64_t)(c & 0x7f) << shift;
    if (!(c & 0x80)) {
      *v = x;
      return 0;
    }
  }
  return -1;
}

typedef struct rd_t {
  trn_et_t *et;
  int32_t rank;
  const char *path;
  char *err;
  size_t errlen;
  const TrnEt__Node *n; /* the node being read, for messages */
  int32_t index;
} rd_t;

static int bad(rd_t *d, const char *fmt, const char *what, const char *more) {
  char m[512];
  snprintf(m, sizeof m, fmt, what, more);
  char name[64];
  trn_et_clean(d->n ? d->n->name : "", name, sizeof name);
  if (d->n)
    snprintf(d->err, d->errlen, "%s: node %llu (%s, message %d): %s", d->path,
             (unsigned long long)d->n->id, name, d->index, m);
  else
    snprintf(d->err, d->errlen, "%s: message %d: %s", d->path, d->index, m);
  return -1;
}

/* An integer attribute of any integer type (ASTRA-sim's reader converts them). */
static int attr_int(rd_t *d, const TrnEt__Attr *a, int64_t lo, int64_t hi, int64_t *v) {
  int64_t x;
  uint64_t u;
  switch (a->value_case) {
  case TRN_ET__ATTR__VALUE_I32: x = a->i32; break;
  case TRN_ET__ATTR__VALUE_I64: x = a->i64; break;
  case TRN_ET__ATTR__VALUE_S32: x = a->s32; break;
  case TRN_ET__ATTR__VALUE_S64: x = a->s64; break;
  case TRN_ET__ATTR__VALUE_SX32: x = a->sx32; break;
  case TRN_ET__ATTR__VALUE_SX64: x = a->sx64; break;
  case TRN_ET__ATTR__VALUE_U32: x = a->u32; break;
  case TRN_ET__ATTR__VALUE_X32: x = a->x32; break;
  case TRN_ET__ATTR__VALUE_U64:
  case TRN_ET__ATTR__VALUE_X64:
    u = a->value_case == TRN_ET__ATTR__VALUE_U64 ? a->u64 : a->x64;
    if (u > (uint64_t)INT64_MAX) return bad(d, "attribute %s: %s", a->name, "out of range");
    x = (int64_t)u;
    break;
  default:
    return bad(d, "attribute %s: %s", a->name, "must be an integer");
  }
  if (x < lo || x > hi) {
    char r[96];
    snprintf(r, sizeof r, "%lld is outside [%lld, %lld]", (long long)x, (long long)lo,
             (long long)hi);
    return bad(d, "attribute %s: %s", a->name, r);
  }
  *v = x;
  return 0;
}

/* involved_dim: ASTRA-sim's dimensions of its network a collective spans. Only all of
 * them is modelled (the collective spans its group). */
static int involved(rd_t *d, const TrnEt__Attr *a) {
  if (a->value_case != TRN_ET__ATTR__VALUE_FLAGS)
    return bad(d, "attribute %s: %s", a->name, "must be a list of booleans (ASTRA-sim's reading)");
  for (size_t i = 0; i < a->flags->n_v; i++)
    if (!a->flags->v[i])
      return bad(d, "attribute %s: %s", a->name,
                 "leaves a network dimension out; collectives over a subset of ASTRA-sim's "
                 "dimensions are not modelled (give the subset as a communicator group)");
  return 0;
}

/* The attributes ASTRA-sim reads; any other it ignores, and so do we. */
static int attrs(rd_t *d, const TrnEt__Node *n, trn_et_node_t *x) {
  int64_t v;
  for (size_t i = 0; i < n->n_attr; i++) {
    const TrnEt__Attr *a = n->attr[i];
    const char *k = a->name;
    if (strcmp(k, "is_cpu_op") == 0) {
      if (a->value_case == TRN_ET__ATTR__VALUE_FLAG)
        x->cpu = a->flag ? 1 : 0;
      else if (attr_int(d, a, 0, 1, &v) == 0)
        x->cpu = (uint8_t)v;
      else
        return -1;
    } else if (strcmp(k, "num_ops") == 0) {
      if (attr_int(d, a, 0, INT64_MAX, &v)) return -1;
      x->num_ops = (uint64_t)v;
    } else if (strcmp(k, "tensor_size") == 0) {
      if (attr_int(d, a, 0, INT64_MAX, &v)) return -1;
      x->tensor_size = (uint64_t)v;
    } else if (strcmp(k, "comm_type") == 0) {
      if (attr_int(d, a, 0, TRN_ET_COLL_COUNT - 1, &v)) return -1;
      x->coll = (int32_t)v;
    } else if (strcmp(k, "comm_size") == 0) {
      if (attr_int(d, a, 0, TRN_ET_MAX_BYTES, &v)) return -1;
      x->size = (uint64_t)v;
    } else if (strcmp(k, "comm_src") == 0 || strcmp(k, "comm_dst") == 0) {
      int src = k[5] == 's';
      if (attr_int(d, a, 0, INT32_MAX, &v)) return -1;
      /* the peer: a send's destination, a receive's source; the own side is checked */
      if ((n->kind == TRN_ET__KIND__KIND_SEND) != src)
        x->peer = (int32_t)v;
      else if (v != d->rank && (n->kind == TRN_ET__KIND__KIND_SEND || n->kind == TRN_ET__KIND__KIND_RECV))
        return bad(d, "attribute %s: %s", k,
                   "is not this file's rank (ASTRA-sim: a send is issued by its sender, a "
                   "receive by its receiver)");
    } else if (strcmp(k, "comm_tag") == 0) {
      if (attr_int(d, a, 0, UINT32_MAX, &v)) return -1;
      x->tag = (uint32_t)v;
    } else if (strcmp(k, "comm_priority") == 0) {
      if (attr_int(d, a, 0, UINT32_MAX, &v)) return -1;
      x->prio = (uint32_t)v;
    } else if (strcmp(k, "pg_name") == 0) {
      if (a->value_case != TRN_ET__ATTR__VALUE_TEXT)
        return bad(d, "attribute %s: %s", k, "must be a string");
      if (a->text[0] && strcmp(a->text, "0") != 0) { /* ASTRA-sim: "" and "0" are every rank */
        x->group = trn_et_group(d->et, a->text, NULL, 0, d->err, d->errlen);
        if (x->group < 0) return -1;
      }
    } else if (strcmp(k, "involved_dim") == 0) {
      if (involved(d, a)) return -1;
    }
  }
  return 0;
}

/* What the node's kind needs, and what is refused. */
static int kind_rules(rd_t *d, const TrnEt__Node *n, trn_et_node_t *x) {
  switch (x->kind) {
  case TRN_ET_MEM_LOAD:
  case TRN_ET_MEM_STORE:
    return bad(d, "%s: %s", trn_et_kind_name(x->kind),
               "remote memory (ASTRA-sim's remote-memory backend) is not modelled");
  case TRN_ET_COLL:
    if (x->coll < 0) return bad(d, "%s: %s", "COMM_COLL_NODE", "without comm_type");
    if (x->coll != TRN_ET_ALL_REDUCE && x->coll != TRN_ET_ALL_GATHER &&
        x->coll != TRN_ET_REDUCE_SCATTER && x->coll != TRN_ET_ALL_TO_ALL &&
        x->coll != TRN_ET_BROADCAST)
      return bad(d, "comm_type %s: %s", trn_et_coll_name(x->coll),
                 "not a collective ASTRA-sim runs (ALL_REDUCE, ALL_GATHER, REDUCE_SCATTER, "
                 "ALL_TO_ALL; BROADCAST replays its duration)");
    break;
  case TRN_ET_SEND:
  case TRN_ET_RECV:
    break;
  case TRN_ET_METADATA:
    if (n->inputs && n->inputs->values && n->inputs->values[0]) {
      char e[512];
      if (trn_et_pg_metadata(d->et, n->inputs->values, e, sizeof e))
        return bad(d, "%s%s", e, "");
    }
    break;
  default:
    break;
  }
  if (x->cpu && (x->kind == TRN_ET_COLL || x->kind == TRN_ET_SEND || x->kind == TRN_ET_RECV))
    return bad(d, "%s: %s", "is_cpu_op",
               "a communication node on the CPU (ASTRA-sim refuses it too)");
  return 0;
}

static int node(rd_t *d, const TrnEt__Node *n) {
  trn_et_node_t x = {.id = n->id, .kind = (int32_t)n->kind, .index = d->index, .coll = -1,
                     .peer = -1, .group = -1};
  d->n = n;
  if ((int)n->kind < 0 || (int)n->kind >= TRN_ET_KIND_COUNT) {
    char k[32];
    snprintf(k, sizeof k, "%d", (int)n->kind);
    return bad(d, "node type %s: %s", k, "unknown");
  }
  if (n->duration_us > (uint64_t)TRN_ET_MAX_US) {
    char r[64];
    snprintf(r, sizeof r, "%llu us", (unsigned long long)n->duration_us);
    return bad(d, "duration_micros %s: %s", r, "longer than 1e5 s");
  }
  x.dur_ps = (int64_t)n->duration_us * 1000000;
  if (attrs(d, n, &x) || kind_rules(d, n, &x)) return -1;
  size_t nd = n->n_data_deps + n->n_ctrl_deps;
  if (nd > (size_t)INT32_MAX) return bad(d, "%s%s", "too many dependencies", "");
  uint64_t *deps = malloc((nd ? nd : 1) * sizeof *deps);
  if (!deps) return bad(d, "%s%s", "out of memory", "");
  if (n->n_data_deps) memcpy(deps, n->data_deps, n->n_data_deps * sizeof *deps);
  if (n->n_ctrl_deps) memcpy(deps + n->n_data_deps, n->ctrl_deps, n->n_ctrl_deps * sizeof *deps);
  int rc = trn_et_add_node(&d->et->ranks[d->rank], &x, deps, (int32_t)nd, n->name ? n->name : "");
  free(deps);
  if (rc) return bad(d, "%s%s", "out of memory", "");
  return 0;
}

int trn_et_read_rank(trn_et_t *et, int32_t rank, char *err, size_t errlen) {
  rd_t d = {.et = et, .rank = rank, .path = et->ranks[rank].path, .err = err, .errlen = errlen};
  char *buf;
  size_t len;
  if (topo_read_file(d.path, &buf, &len, err, errlen)) return -1;
  const uint8_t *at = (const uint8_t *)buf, *end = at + len;
  int rc = 0;
  while (at < end && rc == 0) {
    uint64_t n;
    if (varint(&at, end, &n) || n > (uint64_t)(end - at)) {
      rc = bad(&d, "%s%s",
               "a message length runs past the end of the file (not a Chakra ET file, or cut "
               "short)",
               "");
      break;
    }
    if (d.index == 0) {
      TrnEt__Meta *m = trn_et__meta__unpack(NULL, (size_t)n, at);
      if (!m) rc = bad(&d, "%s%s", "the global metadata does not decode (not a Chakra ET file)", "");
      trn_et__meta__free_unpacked(m, NULL);
    } else {
      TrnEt__Node *x = trn_et__node__unpack(NULL, (size_t)n, at);
      if (!x)
        rc = bad(&d, "%s%s", "a node does not decode (not a Chakra ET file, or damaged)", "");
      else if (et->ranks[rank].n_nodes >= TRN_ET_MAX_NODES)
        rc = bad(&d, "%s%s", "more than 2^24 nodes in one file", "");
      else
        rc = node(&d, x);
      trn_et__node__free_unpacked(x, NULL);
      d.n = NULL;
    }
    at += n;
    d.index++;
  }
  if (rc == 0 && d.index == 0) rc = bad(&d, "%s%s", "an empty file (no global metadata)", "");
  free(buf);
  return rc;
}
