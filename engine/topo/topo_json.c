/* topo: topologies described in JSON ({"kind": ...}: generated, or an ns-3 file),
 * and topo_load, which reads a .json or an ns-3 file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topo/topo_int.h"

/* An ns-3 file named by {"kind":"file"}: a relative path is found in base_dir. */
static int from_file(const char *path, const char *where, const char *base_dir, topo_t *t,
                     char *err, size_t errlen) {
  if (!base_dir || path[0] == '/') return topo_read_ns3(path, t, err, errlen);
  size_t len = strlen(base_dir) + strlen(path) + 2;
  char *full = malloc(len);
  if (!full) {
    topo_jerr(err, errlen, where, "path", "out of memory");
    return -1;
  }
  snprintf(full, len, "%s/%s", base_dir, path);
  int rc = topo_read_ns3(full, t, err, errlen);
  free(full);
  return rc;
}

int topo_spec_build(const topo_spec_t *s, const char *where, const char *base_dir, topo_t *t,
                    char *err, size_t errlen) {
  memset(t, 0, sizeof *t);
  int rc;
  switch (s->shape) {
  case TOPO_SHAPE_FILE:
    return from_file(s->path, where, base_dir, t, err, errlen); /* finished by the reader */
  case TOPO_SHAPE_LEAF_SPINE:
    rc = topo_gen_leaf_spine(s, where, t, err, errlen);
    break;
  case TOPO_SHAPE_FAT_TREE:
    rc = topo_gen_fat_tree(s, where, t, err, errlen);
    break;
  case TOPO_SHAPE_RAIL:
    rc = topo_gen_rail(s, where, t, err, errlen);
    break;
  default:
    rc = topo_gen_torus(s, where, t, err, errlen);
  }
  char msg[TOPO_ERR_LEN];
  if (rc == 0 && topo_finish(t, msg, sizeof msg) < 0) {
    topo_jerr(err, errlen, where, NULL, "%s", msg);
    rc = -1;
  }
  if (rc < 0) topo_free(t);
  return rc;
}

int topo_from_json_at(const json_t *obj, const char *where, const char *base_dir, topo_t *t,
                      char *err, size_t errlen) {
  topo_spec_t *s = malloc(sizeof *s);
  int rc = -1;
  memset(t, 0, sizeof *t);
  if (!s)
    topo_jerr(err, errlen, where, NULL, "out of memory");
  else if (topo_spec_parse(obj, where, s, err, errlen) == 0)
    rc = topo_spec_build(s, where, base_dir, t, err, errlen);
  free(s);
  return rc;
}

int topo_from_json(const json_t *obj, const char *where, topo_t *t, char *err, size_t errlen) {
  return topo_from_json_at(obj, where, NULL, t, err, errlen);
}

static int ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), k = strlen(suffix);
  return n >= k && strcmp(s + n - k, suffix) == 0;
}

int topo_parse_json(const char *name, const char *text, size_t len, const char *base_dir, topo_t *t,
                    char *err, size_t errlen) {
  memset(t, 0, sizeof *t);
  json_error_t jerr;
  json_t *root = json_loadb(text, len, 0, &jerr);
  if (!root) {
    if (jerr.line > 0)
      base_errf(err, errlen, "%s:%d: JSON error: %s", name, jerr.line, jerr.text);
    else
      base_errf(err, errlen, "%s: %s", name, jerr.text);
    return -1;
  }
  /* Either the topology object or {"topology": {...}, ...}. */
  const json_t *obj = json_object_get(root, "topology");
  size_t wlen = strlen(name) + 16;
  char *where = malloc(wlen);
  int rc = -1;
  if (!where) {
    base_errf(err, errlen, "%s: out of memory", name);
  } else {
    snprintf(where, wlen, "%s%s", name, obj ? ": topology" : "");
    rc = topo_from_json_at(obj ? obj : root, where, base_dir, t, err, errlen);
  }
  free(where);
  json_decref(root);
  return rc;
}

int topo_load(const char *path, topo_t *t, char *err, size_t errlen) {
  if (!ends_with(path, ".json")) return topo_read_ns3(path, t, err, errlen);
  memset(t, 0, sizeof *t);
  char *text, *dir = malloc(strlen(path) + 2);
  size_t len;
  if (!dir) {
    base_errf(err, errlen, "%s: out of memory", path);
    return -1;
  }
  if (topo_read_file(path, &text, &len, err, errlen) < 0) {
    free(dir);
    return -1;
  }
  /* A relative "path" of {"kind":"file"} is found next to the JSON file. */
  strcpy(dir, path);
  char *slash = strrchr(dir, '/');
  if (slash == dir)
    slash[1] = '\0';
  else if (slash)
    *slash = '\0';
  int rc = topo_parse_json(path, text, len, slash ? dir : NULL, t, err, errlen);
  free(text);
  free(dir);
  return rc;
}
