/* topo: reader of ns-3 HPCC topology files (`nodes switches links`, the switch ids,
 * then `src dst rate delay error_rate` per link). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base_dec.h"
#include "base/base_file.h"
#include "topo/topo_int.h"

/* The text being read, and whether it is an htsim topology. */
typedef struct ns3_file_t {
  base_text_t t;
  int htsim; /* it has htsim's `Tiers` line: an htsim .topo file, not ns-3's */
} ns3_file_t;

/* The next non-blank line's tokens (base_text_tokens); at the end of the
 * text, -1, and messages about a missing line name the line after the last. */
static int next_tokens(ns3_file_t *f, char **tok, int max) {
  int n = base_text_tokens(&f->t, tok, max);
  if (n < 0) f->t.line++;
  return n;
}

static int parse_int(const char *s, int64_t *v) {
  char *end;
  errno = 0;
  long long x = strtoll(s, &end, 10);
  if (errno || end == s || *end) return -1;
  *v = x;
  return 0;
}

/* The first line: ns-3's `nodes switches links`, or SimAI's `nodes gpus_per_server
 * nvswitch_num switch_num links gpu_type` (its gen_Topo_Template.py; common.h reads
 * those six), whose NVSwitch ids come first on the switch line (*nvswitches). */
static int read_header(ns3_file_t *f, topo_t *hdr, int64_t *nodes, int64_t *switches,
                       int64_t *nvswitches, int64_t *links, char *err, size_t errlen) {
  char *tok[6];
  int64_t gps = 0;
  int n = next_tokens(f, tok, 6);
  *nvswitches = 0;
  int ns3 = n == 3 && !parse_int(tok[0], nodes) && !parse_int(tok[1], switches) &&
            !parse_int(tok[2], links);
  int simai = !ns3 && n == 6 && !parse_int(tok[0], nodes) && !parse_int(tok[1], &gps) &&
              !parse_int(tok[2], nvswitches) && !parse_int(tok[3], switches) &&
              !parse_int(tok[4], links);
  if (simai) {
    if (gps < 1 || gps > 1024 || *nvswitches < 0 || *nvswitches > TOPO_MAX_NODES ||
        *switches > TOPO_MAX_NODES) {
      base_errf(err, errlen,
                "%s:%d: SimAI's gpus_per_server (1..1024) and nvswitch_num must be counts",
                f->t.path, f->t.line);
      return -1;
    }
    hdr->gpus_per_server = (int32_t)gps;
    snprintf(hdr->gpu_type, sizeof hdr->gpu_type, "%.15s", tok[5]);
    *switches += *nvswitches;
  } else if (!ns3 && n >= 1 && (strcmp(tok[0], "Nodes") == 0 || strcmp(tok[0], "#") == 0) &&
             f->htsim) {
    base_errf(err, errlen,
              "%s:%d: an htsim topology (Nodes, Tiers, Podsize, per-tier speeds): not read here; "
              "write the fat tree as {\"kind\": \"fat_tree\", ...} (docs/formats.md)",
              f->t.path, f->t.line);
    return -1;
  } else if (!ns3) {
    base_errf(err, errlen,
              "%s:%d: expected 'nodes switches links' (ns-3) or 'nodes gpus_per_server "
              "nvswitch_num switch_num links gpu_type' (SimAI)",
              f->t.path, f->t.line);
    return -1;
  }
  if (*nodes < 1 || *nodes > TOPO_MAX_NODES) {
    base_errf(err, errlen, "%s:%d: %lld nodes: a topology has 1 to %d nodes", f->t.path, f->t.line,
              (long long)*nodes, TOPO_MAX_NODES);
    return -1;
  }
  if (*switches < 0 || *switches > *nodes) {
    base_errf(err, errlen, "%s:%d: %lld switches, but there are %lld nodes", f->t.path, f->t.line,
              (long long)*switches, (long long)*nodes);
    return -1;
  }
  if (*links < 0 || *links > TOPO_MAX_LINKS) {
    base_errf(err, errlen, "%s:%d: %lld links: the limit is 0 to %d", f->t.path, f->t.line,
              (long long)*links, TOPO_MAX_LINKS);
    return -1;
  }
  return 0;
}

static int read_switches(ns3_file_t *f, topo_t *t, int64_t switches, int64_t nvswitches, char *err,
                         size_t errlen) {
  if (switches == 0) return 0;
  char **tok = malloc((size_t)switches * sizeof *tok);
  if (!tok) {
    base_errf(err, errlen, "%s: out of memory", f->t.path);
    return -1;
  }
  int rc = -1, n = next_tokens(f, tok, (int)switches);
  if (n != switches) {
    if (n < 0)
      base_errf(err, errlen, "%s:%d: expected %lld switch ids, found the end of the file",
                f->t.path, f->t.line, (long long)switches);
    else
      base_errf(err, errlen, "%s:%d: expected %lld switch ids, found %d", f->t.path, f->t.line,
                (long long)switches, n);
    goto out;
  }
  for (int i = 0; i < n; i++) {
    int64_t id;
    if (parse_int(tok[i], &id)) {
      base_errf(err, errlen, "%s:%d: switch id '%s' is not a number", f->t.path, f->t.line, tok[i]);
      goto out;
    }
    if (id < 0 || id >= t->n_nodes) {
      base_errf(err, errlen, "%s:%d: switch id %lld, but there are only %d nodes (0..%d)",
                f->t.path, f->t.line, (long long)id, t->n_nodes, t->n_nodes - 1);
      goto out;
    }
    if (t->is_switch[id]) {
      base_errf(err, errlen, "%s:%d: switch id %lld listed twice", f->t.path, f->t.line,
                (long long)id);
      goto out;
    }
    t->is_switch[id] = t->forwards[id] = 1;
    if (i < nvswitches) t->nvswitch[id] = 1;
  }
  rc = 0;
out:
  free(tok);
  return rc;
}

static int parse_node(const ns3_file_t *f, const topo_t *t, const char *s, const char *dir,
                      int32_t *v, char *err, size_t errlen) {
  int64_t x;
  if (parse_int(s, &x)) {
    base_errf(err, errlen, "%s:%d: node id '%s' is not a number", f->t.path, f->t.line, s);
    return -1;
  }
  if (x < 0 || x >= t->n_nodes) {
    base_errf(err, errlen, "%s:%d: link %s node %lld, but there are only %d nodes (0..%d)",
              f->t.path, f->t.line, dir, (long long)x, t->n_nodes, t->n_nodes - 1);
    return -1;
  }
  *v = (int32_t)x;
  return 0;
}

/* One `src dst rate delay error_rate` line. */
static int parse_link(const ns3_file_t *f, topo_t *t, char **tok, int n, char *err, size_t errlen) {
  int32_t a, b;
  const char *why;
  if (n != 5) {
    base_errf(err, errlen, "%s:%d: expected 'src dst rate delay error_rate', found %d fields",
              f->t.path, f->t.line, n);
    return -1;
  }
  if (parse_node(f, t, tok[0], "from", &a, err, errlen) < 0 ||
      parse_node(f, t, tok[1], "to", &b, err, errlen) < 0)
    return -1;
  if (a == b) {
    base_errf(err, errlen, "%s:%d: link from node %d to itself", f->t.path, f->t.line, a);
    return -1;
  }
  int64_t rate = topo_parse_rate_why(tok[2], &why);
  if (rate < 0) {
    base_errf(err, errlen, "%s:%d: rate '%s' %s", f->t.path, f->t.line, tok[2], why);
    return -1;
  }
  if (topo_check_rate(rate, &why) < 0) {
    base_errf(err, errlen, "%s:%d: rate '%s' %s", f->t.path, f->t.line, tok[2], why);
    return -1;
  }
  int64_t delay = topo_parse_delay_why(tok[3], &why);
  if (delay == 0) {
    base_errf(err, errlen, "%s:%d: delay must be > 0", f->t.path, f->t.line);
    return -1;
  }
  if (delay < 0 || topo_check_delay(delay, &why) < 0) {
    base_errf(err, errlen, "%s:%d: delay '%s' %s", f->t.path, f->t.line, tok[3], why);
    return -1;
  }
  double e = base_dec_real(tok[4]);
  if (!(e >= 0 && e < 1)) {
    base_errf(err, errlen, "%s:%d: error rate '%s' is not a number in [0, 1)", f->t.path, f->t.line,
              tok[4]);
    return -1;
  }
  if (topo_add_link(t, a, b, rate, delay, e) < 0) {
    base_errf(err, errlen, "%s:%d: out of memory", f->t.path, f->t.line);
    return -1;
  }
  return 0;
}

int topo_parse_ns3(const char *name, const char *text, size_t len, topo_t *t, char *err,
                   size_t errlen) {
  ns3_file_t f = {0};
  int64_t nodes, switches, nvswitches, links;
  char *tok[5];
  int header_line;
  topo_t hdr = {0};
  memset(t, 0, sizeof *t);
  if (base_text_open(&f.t, name, text, len, err, errlen) < 0) goto fail;
  f.htsim = strncmp(f.t.buf, "Tiers", 5) == 0 || strstr(f.t.buf, "\nTiers ") != NULL;
  if (read_header(&f, &hdr, &nodes, &switches, &nvswitches, &links, err, errlen) < 0) goto fail;
  header_line = f.t.line;
  if (topo_alloc(t, nodes, 0, "file", err, errlen) < 0) goto fail;
  t->gpus_per_server = hdr.gpus_per_server;
  memcpy(t->gpu_type, hdr.gpu_type, sizeof t->gpu_type);
  if (nvswitches > 0 && !(t->nvswitch = calloc((size_t)nodes, 1))) {
    base_errf(err, errlen, "%s: out of memory", name);
    goto fail;
  }
  if (read_switches(&f, t, switches, nvswitches, err, errlen) < 0) goto fail;
  /* ns-3 (scratch/third.cc) reads the declared number of links and nothing after:
   * later lines (the HPCC repository's own files end with help text) are counted and
   * ignored. */
  for (int n; (n = next_tokens(&f, tok, 5)) >= 0;) {
    if (t->n_links == links) {
      t->ignored_lines++;
      continue;
    }
    if (parse_link(&f, t, tok, n, err, errlen) < 0) goto fail;
  }
  if (t->n_links != links) {
    base_errf(err, errlen, "%s:%d: expected %lld links, found %d", name, header_line,
              (long long)links, t->n_links);
    goto fail;
  }
  if (topo_finish(t, err, errlen) < 0) {
    char msg[TOPO_ERR_LEN];
    snprintf(msg, sizeof msg, "%s", err ? err : "");
    base_errf(err, errlen, "%s: %s", name, msg);
    goto fail;
  }
  free(f.t.buf);
  return 0;
fail:
  free(f.t.buf);
  topo_free(t);
  return -1;
}

int topo_read_ns3(const char *path, topo_t *t, char *err, size_t errlen) {
  char *text;
  size_t len;
  memset(t, 0, sizeof *t);
  if (topo_read_file(path, &text, &len, err, errlen) < 0) return -1;
  int rc = topo_parse_ns3(path, text, len, t, err, errlen);
  free(text);
  return rc;
}
