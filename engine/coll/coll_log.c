/* coll: reading the stdout of nccl-tests (NVIDIA/nccl-tests, src/util.cu's
 * header, device lines and result table) into measured points. */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base_dec.h"
#include "base/base_file.h"
#include "coll/coll.h"

#define LOG_MAX_TOK 48

typedef struct log_state_t {
  const char *path;
  int line;
  int in_table, per_iter, stamp; /* table layout from its column header */
  char type[32], redop[32];      /* of the first row */
  char **hosts;
  int32_t n_hosts;
  int32_t *rank_host; /* (rank_cap) 1 + index in hosts of each rank seen; 0: not seen */
  int32_t rank_cap;
} log_state_t;

void coll_gpu_name(const char *device, char *out, size_t outlen) {
  size_t k = 0;
  if (strncmp(device, "NVIDIA ", 7) == 0) device += 7;
  for (; *device && k + 1 < outlen; device++)
    out[k++] = *device == ' ' ? '-' : (char)tolower((unsigned char)*device);
  if (outlen) out[k] = 0;
}

static int split(char *s, char **tok, int cap) {
  int n = 0;
  for (char *p = strtok(s, " \t"); p && n < cap; p = strtok(NULL, " \t"))
    tok[n++] = p;
  return n;
}

/* The kind named in a program name ("all_reduce_perf_mpi"), or -1. */
static int kind_of_program(const char *s) {
  static const struct {
    const char *name;
    int kind;
  } tab[] = {{"alltoallv", -1},
             {"all_reduce", COLL_ALLREDUCE},
             {"all_gather", COLL_ALLGATHER},
             {"reduce_scatter", COLL_REDUCESCATTER},
             {"alltoall", COLL_ALLTOALL},
             {"broadcast", COLL_BROADCAST},
             {"sendrecv", COLL_SENDRECV},
             {"reduce", COLL_REDUCE}};
  for (size_t i = 0; i < sizeof tab / sizeof *tab; i++)
    if (strstr(s, tab[i].name)) return tab[i].kind;
  return -1;
}

static int parse_u64(const char *s, uint64_t *v) {
  char *end;
  if (!isdigit((unsigned char)*s)) return -1;
  errno = 0;
  unsigned long long x = strtoull(s, &end, 10);
  if (*end || errno) return -1;
  *v = x;
  return 0;
}

static int parse_num(const char *s, double *v) {
  *v = base_dec_real(s);
  return isfinite(*v) ? 0 : -1;
}

/* "#  Rank  0 Group  0 Pid 1234 on host device  0 [0000:07:00] NVIDIA H200"
 * (older versions: no Group, "[0x07]"). */
static int rank_line(log_state_t *st, const char *s, coll_log_t *log, char *err, size_t errlen) {
  const char *r = strstr(s, "Rank");
  const char *on = strstr(s, " on ");
  const char *dev = strstr(s, " device ");
  const char *br = dev ? strchr(dev, ']') : NULL;
  char *end;
  long rank = r ? strtol(r + 4, &end, 10) : -1;
  if (!r || !on || !dev || !br || rank < 0 || rank >= (1 << 20)) {
    snprintf(err, errlen,
             "%s:%d: a device line that does not read \"#  Rank N ... on HOST "
             "device D [BUS] NAME\"",
             st->path, st->line);
    return -1;
  }
  char host[256];
  if (sscanf(on + 4, "%255s", host) != 1) host[0] = 0;
  const char *name = br + 1;
  while (*name == ' ')
    name++;
  if (!*name) {
    snprintf(err, errlen, "%s:%d: a device line without a device name", st->path, st->line);
    return -1;
  }
  if (!log->device[0]) {
    snprintf(log->device, sizeof log->device, "%s", name);
  } else if (strcmp(log->device, name) != 0) {
    snprintf(err, errlen, "%s:%d: rank %ld is a %s, an earlier one a %s: one GPU type per log",
             st->path, st->line, rank, name, log->device);
    return -1;
  }
  if (rank >= st->rank_cap) {
    int32_t cap = (int32_t)rank + 64;
    int32_t *p = realloc(st->rank_host, (size_t)cap * sizeof *p);
    if (!p) goto oom;
    memset(p + st->rank_cap, 0, (size_t)(cap - st->rank_cap) * sizeof *p);
    st->rank_host = p;
    st->rank_cap = cap;
  }
  int32_t at = 0;
  while (at < st->n_hosts && strcmp(st->hosts[at], host) != 0)
    at++;
  if (st->rank_host[rank] && st->rank_host[rank] != at + 1) {
    snprintf(err, errlen, "%s:%d: rank %ld is on %s, an earlier line puts it on %s", st->path,
             st->line, rank, host, st->hosts[st->rank_host[rank] - 1]);
    return -1;
  }
  if (!st->rank_host[rank]) log->ranks++;
  st->rank_host[rank] = at + 1;
  if (at < st->n_hosts) return 0;
  char **h = realloc(st->hosts, ((size_t)st->n_hosts + 1) * sizeof *h);
  if (!h) goto oom;
  st->hosts = h;
  if (!(h[st->n_hosts] = strdup(host))) goto oom;
  st->n_hosts++;
  log->nodes = st->n_hosts;
  return 0;
oom:
  snprintf(err, errlen, "%s:%d: out of memory", st->path, st->line);
  return -1;
}

/* A '#' line: header facts, the table's column header, or its end. */
static int comment_line(log_state_t *st, char *s, coll_log_t *log, int kind_given, char *err,
                        size_t errlen) {
  const char *start = "# Collective test starting:";
  if (strncmp(s, "# nccl-tests version", 20) == 0) {
    snprintf(log->version, sizeof log->version, "%s", s + 2);
  } else if (strncmp(s, start, strlen(start)) == 0) {
    char prog[128] = "";
    sscanf(s + strlen(start), "%127s", prog);
    int k = kind_of_program(prog);
    if (k < 0) {
      snprintf(err, errlen,
               "%s:%d: %s: not a collective the model covers (all_reduce, "
               "all_gather, reduce_scatter, alltoall, broadcast, reduce, sendrecv)",
               st->path, st->line, prog);
      return -1;
    }
    if (!kind_given) log->kind = k;
  } else if (strncmp(s + 1 + strspn(s + 1, " "), "Rank ", 5) == 0) {
    return rank_line(st, s, log, err, errlen);
  } else if (strncmp(s, "# Out of bounds values", 22) == 0 ||
             strncmp(s, "# Avg bus bandwidth", 19) == 0) {
    st->in_table = 0;
  } else {
    char buf[1024], *tok[LOG_MAX_TOK];
    snprintf(buf, sizeof buf, "%s", s + 1);
    int n = split(buf, tok, LOG_MAX_TOK);
    if (n >= 5 && strcmp(tok[0], "size") == 0 && strcmp(tok[1], "count") == 0) {
      st->in_table = 1;
      st->per_iter = st->stamp = 0;
      for (int i = 0; i < n; i++) {
        st->per_iter |= strcmp(tok[i], "i_min") == 0;
        st->stamp |= strcmp(tok[i], "timestamp") == 0;
      }
    }
  }
  return 0;
}

static int row(log_state_t *st, char *s, coll_log_t *log, int out_of_place, char *err,
               size_t errlen) {
  char *tok[LOG_MAX_TOK];
  int n = split(s, tok, LOG_MAX_TOK);
  int group = st->per_iter ? 8 : 4;
  int rest = n - 5;
  if (st->stamp && rest >= 2 && strchr(tok[n - 2], '-') && strchr(tok[n - 1], ':')) rest -= 2;
  uint64_t size, count;
  if (n < 5 || (rest != group && rest != 2 * group) || parse_u64(tok[0], &size) ||
      parse_u64(tok[1], &count)) {
    snprintf(err, errlen,
             "%s:%d: expected a result row: size count type redop root, then %d "
             "columns out-of-place and %d in-place",
             st->path, st->line, group, group);
    return -1;
  }
  if (log->kind < 0) {
    snprintf(err, errlen,
             "%s:%d: cannot tell the collective: no \"# Collective test starting\" "
             "line and the file name names none (give it explicitly)",
             st->path, st->line);
    return -1;
  }
  if (log->ranks == 0) {
    snprintf(err, errlen,
             "%s:%d: a result row before any \"#  Rank ... device\" line: cannot "
             "tell the GPU count",
             st->path, st->line);
    return -1;
  }
  if (!st->type[0]) {
    snprintf(st->type, sizeof st->type, "%s", tok[2]);
    snprintf(st->redop, sizeof st->redop, "%s", tok[3]);
  } else if (strcmp(st->type, tok[2]) != 0 || strcmp(st->redop, tok[3]) != 0) {
    snprintf(err, errlen,
             "%s:%d: type %s and operation %s after %s and %s: one data type and "
             "reduction per log (nccl-tests -d TYPE -o OP)",
             st->path, st->line, tok[2], tok[3], st->type, st->redop);
    return -1;
  }
  double time_us = 0;
  int groups = rest / group;
  if (out_of_place && groups == 1) {
    snprintf(err, errlen, "%s:%d: no out-of-place columns in this row", st->path, st->line);
    return -1;
  }
  for (int g = 0; g < groups; g++) {
    char **c = tok + 5 + g * group;
    double t, alg, bus, wrong = 0, x;
    if (parse_num(c[0], &t) || parse_num(c[1], &alg) || parse_num(c[2], &bus) ||
        (strcmp(c[3], "N/A") != 0 && parse_num(c[3], &wrong)) || t < 0 || alg < 0 || bus < 0) {
      snprintf(err, errlen, "%s:%d: time, algbw, busbw and #wrong must be numbers >= 0", st->path,
               st->line);
      return -1;
    }
    for (int k = 4; k < group; k++)
      if (parse_num(c[k], &x)) {
        snprintf(err, errlen, "%s:%d: per-iteration column '%s' is not a number", st->path,
                 st->line, c[k]);
        return -1;
      }
    if (wrong != 0) {
      snprintf(err, errlen, "%s:%d: %s wrong elements: a failed measurement", st->path, st->line,
               c[3]);
      return -1;
    }
    if (size > 0 && !(t > 0)) {
      snprintf(err, errlen, "%s:%d: a time of 0 us for %llu bytes", st->path, st->line,
               (unsigned long long)size);
      return -1;
    }
    /* Printed with 2 decimals (fewer when wide): 2 % and a rounding step of slack. */
    double want = t > 0 ? (double)size / t * 1e-3 : 0;
    if (fabs(alg - want) > 0.02 * want + 0.011) {
      snprintf(err, errlen, "%s:%d: algbw %s GB/s but size / time is %.2f GB/s", st->path, st->line,
               c[1], want);
      return -1;
    }
    double f = coll_busbw_factor(log->kind, log->ranks);
    if (fabs(bus - alg * f) > 0.02 * alg * f + 0.011) {
      snprintf(err, errlen,
               "%s:%d: busbw %s GB/s is not algbw x %.4g (%s among %d ranks): "
               "another collective or rank count?",
               st->path, st->line, c[2], f, coll_name(log->kind), log->ranks);
      return -1;
    }
    if (g == groups - 1 || (out_of_place && g == 0)) {
      time_us = t;
      if (out_of_place) break;
    }
  }
  if (size == 0) return 0;
  coll_point_t *p = realloc(log->p, ((size_t)log->n + 1) * sizeof *p);
  if (!p) {
    snprintf(err, errlen, "%s:%d: out of memory", st->path, st->line);
    return -1;
  }
  log->p = p;
  log->p[log->n++] = (coll_point_t){size, time_us};
  return 0;
}

/* Removes mpirun --tag-output's "[1,0]<stdout>:" prefix. */
static char *untag(char *s) {
  if (s[0] != '[') return s;
  char *t = strstr(s, "]<stdout>:");
  return t ? t + 10 : s;
}

int coll_log_read(const char *path, int kind, int out_of_place, coll_log_t *log, char *err,
                  size_t errlen) {
  memset(log, 0, sizeof *log);
  log->kind = kind >= 0 ? kind : -1;
  char why[128];
  FILE *f = base_fopen_input(path, "r", why, sizeof why);
  if (!f) {
    snprintf(err, errlen, "%s: cannot open: %s", path, why);
    return -1;
  }
  if (log->kind < 0) {
    const char *base = strrchr(path, '/');
    log->kind = kind_of_program(base ? base + 1 : path);
  }
  log_state_t st = {.path = path};
  char *line = NULL;
  size_t cap = 0;
  ssize_t len;
  int rc = 0;
  while (rc == 0 && (len = getline(&line, &cap, f)) >= 0) {
    st.line++;
    while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
      line[--len] = 0;
    char *s = untag(line);
    while (*s == ' ' || *s == '\t')
      s++;
    if (!*s) continue;
    if (*s == '#')
      rc = comment_line(&st, s, log, kind >= 0, err, errlen);
    else if (st.in_table && !strstr(s, "NCCL INFO") && !strstr(s, "NCCL WARN") &&
             !strstr(s, "NCCL TRACE"))
      rc = row(&st, s, log, out_of_place, err, errlen);
  }
  free(line);
  fclose(f);
  for (int32_t i = 0; i < st.n_hosts; i++)
    free(st.hosts[i]);
  free(st.hosts);
  free(st.rank_host);
  if (rc == 0 && log->n == 0) {
    snprintf(err, errlen, "%s: no result rows of a size > 0 (not nccl-tests output?)", path);
    rc = -1;
  }
  if (rc) coll_log_free(log);
  return rc;
}

void coll_log_free(coll_log_t *log) {
  free(log->p);
  memset(log, 0, sizeof *log);
}
