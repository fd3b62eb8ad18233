/* tg: reading JSON task graphs ({"tasks": [...]}) with a JSON path in every
 * message. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base_json.h"
#include "tg/tg_json.h"
#include "base/base_dec.h"
#include "base/base_err.h"

/* A task's id and index, sorted by id for lookups. */
typedef struct tj_id_t {
  const char *id;
  int32_t idx;
} tj_id_t;

typedef struct tj_t {
  const char *where;
  char *err;
  size_t errlen;
  tj_id_t *ids; /* (n_ids) */
  int32_t n_ids;
} tj_t;

static int tj_by_id(const void *a, const void *b) {
  const tj_id_t *x = a, *y = b;
  int c = strcmp(x->id, y->id);
  return c ? c : (x->idx > y->idx) - (x->idx < y->idx);
}

static int tj_err(const tj_t *j, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int tj_err(const tj_t *j, const char *path, const char *fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  base_errf(j->err, j->errlen, "%s: %s: %s", j->where, path, msg);
  return -1;
}

/* An integer in [min, max]: a JSON integer, or a real with an integral value. */
static int tj_int(const tj_t *j, const json_t *v, const char *path, int64_t min, int64_t max,
                  int64_t *out) {
  double d = json_is_real(v) ? json_real_value(v) : 0;
  if (json_is_integer(v) && json_integer_value(v) >= min && json_integer_value(v) <= max) {
    *out = json_integer_value(v);
    return 0;
  }
  if (json_is_real(v) && d == floor(d) && d >= (double)min && d <= (double)max &&
      fabs(d) < 9007199254740992.0) {
    *out = (int64_t)d;
    return 0;
  }
  return tj_err(j, path, "must be an integer in [%lld, %lld]", (long long)min, (long long)max);
}

/* Microseconds (a number, or a string for more digits than a double holds) to
 * ps, exactly: a number is read as the shortest decimal that gives back its
 * double, i.e. as written. */
static int tj_us(const tj_t *j, const json_t *v, const char *path, int64_t *ps) {
  char buf[64];
  const char *s = json_string_value(v);
  if (json_is_integer(v)) {
    snprintf(buf, sizeof buf, "%lld", (long long)json_integer_value(v));
    s = buf;
  } else if (json_is_real(v)) {
    base_dec_shortest(json_real_value(v), buf, sizeof buf);
    s = buf;
  }
  if (s && (*ps = base_dec_scaled(s, 6)) == BASE_DEC_TOO_LARGE)
    return tj_err(j, path, "is past INT64_MAX ps");
  if (!s || *ps < 0) return tj_err(j, path, "must be a number of us >= 0, exact to the ps");
  return 0;
}

static const char *const tj_kinds[] = {"flow", "compute", "coll", "join"};

/* Fills t from the object o (tasks[i]); "after" is resolved later. */
static int tj_task(const tj_t *j, const json_t *o, const char *at, tg_t *g, tg_task_t *t) {
  static const char *const keys[] = {"id",    "kind",   "host", "src",      "dst",      "bytes",
                                     "sport", "dport",  "prio", "start_us", "delay_us", "dur_us",
                                     "gpu",   "stream", "need", "label",    "after",    NULL};
  char path[640];
  const char *key;
  json_t *v;
  if (!json_is_object(o)) return tj_err(j, at, "must be an object");
  json_object_foreach((json_t *)o, key, v) {
    int ok = 0;
    for (int i = 0; keys[i] && !ok; i++)
      ok = strcmp(key, keys[i]) == 0;
    snprintf(path, sizeof path, "%s.%s", at, key);
    if (!ok) return tj_err(j, path, "unknown key");
  }
  const char *kind = json_string_value(json_object_get(o, "kind"));
  int k = -1;
  for (int i = 0; kind && i < 4; i++)
    if (strcmp(kind, tj_kinds[i]) == 0) k = i;
  snprintf(path, sizeof path, "%s.kind", at);
  if (k < 0) return tj_err(j, path, "must be \"flow\", \"compute\", \"coll\" or \"join\"");
  *t = tg_task_default((tg_kind_t)k);
  int flow = k == TG_FLOW;
  static const char *const flow_only[] = {"src", "dst", "bytes", "sport", "dport", "prio", NULL};
  for (int i = 0; !flow && flow_only[i]; i++)
    if (json_object_get(o, flow_only[i])) {
      snprintf(path, sizeof path, "%s.%s", at, flow_only[i]);
      return tj_err(j, path, "only flows have it");
    }
  if ((k == TG_FLOW || k == TG_JOIN) && json_object_get(o, "dur_us")) {
    snprintf(path, sizeof path, "%s.dur_us", at);
    return tj_err(j, path, "only compute and coll tasks have a duration");
  }
  const json_t *host = json_object_get(o, "host"), *src = json_object_get(o, "src");
  const char *hk = src ? "src" : "host";
  snprintf(path, sizeof path, "%s.%s", at, hk);
  if (host && src) return tj_err(j, path, "give src or host, not both");
  if (!host && !src)
    return tj_err(j, path, "is required (the owner: a host node%s)", flow ? ", the source" : "");
  int64_t x;
  if (tj_int(j, src ? src : host, path, 0, INT32_MAX, &x)) return -1;
  t->host = (int32_t)x;
  static const struct {
    const char *key;
    int64_t min, max;
  } ints[] = {{"dst", 0, INT32_MAX},     {"bytes", 1, INT64_MAX}, {"sport", 0, 65535},
              {"dport", 0, 65535},       {"prio", 0, UINT32_MAX}, {"gpu", -1, TG_MAX_ID},
              {"stream", -1, TG_MAX_ID}, {"need", 0, INT32_MAX}};
  int64_t vals[8] = {-1, 0, 0, 0, 0, -1, -1, 0};
  for (int i = 0; i < 8; i++) {
    const json_t *e = json_object_get(o, ints[i].key);
    snprintf(path, sizeof path, "%s.%s", at, ints[i].key);
    if (e && tj_int(j, e, path, ints[i].min, ints[i].max, &vals[i])) return -1;
    if (!e && flow && i < 2) return tj_err(j, path, "is required for a flow");
  }
  t->dst = flow ? (int32_t)vals[0] : 0;
  t->bytes = (uint64_t)vals[1];
  t->sport = (uint32_t)vals[2];
  t->dport = (uint32_t)vals[3];
  t->prio = (uint32_t)vals[4];
  t->gpu = (int32_t)vals[5];
  t->stream = (int32_t)vals[6];
  t->need = (int32_t)vals[7];
  static const char *const times[] = {"start_us", "delay_us", "dur_us"};
  int64_t *tv[3] = {&t->start, &t->delay, &t->dur};
  for (int i = 0; i < 3; i++) {
    const json_t *e = json_object_get(o, times[i]);
    snprintf(path, sizeof path, "%s.%s", at, times[i]);
    if (e && tj_us(j, e, path, tv[i])) return -1;
  }
  const json_t *label = json_object_get(o, "label");
  if (label) {
    snprintf(path, sizeof path, "%s.label", at);
    if (!json_is_string(label)) return tj_err(j, path, "must be a string");
    if ((t->label = tg_label(g, json_string_value(label))) < 0)
      return tj_err(j, path, "out of memory");
  }
  const json_t *id = json_object_get(o, "id");
  snprintf(path, sizeof path, "%s.id", at);
  if (id && (!json_is_string(id) || !*json_string_value(id)))
    return tj_err(j, path, "must be a non-empty string");
  return 0;
}

/* The task an "after" entry names: an id or an index into tasks. */
static int tj_ref(const tj_t *j, const json_t *ref, const json_t *tasks, const char *path,
                  int32_t *out) {
  size_t n = json_array_size(tasks);
  if (json_is_string(ref)) {
    tj_id_t key = {json_string_value(ref), -1};
    int32_t lo = 0, hi = j->n_ids - 1;
    while (lo <= hi) {
      int32_t mid = lo + (hi - lo) / 2, c = strcmp(j->ids[mid].id, key.id);
      if (c == 0) {
        *out = j->ids[mid].idx;
        return 0;
      }
      if (c < 0)
        lo = mid + 1;
      else
        hi = mid - 1;
    }
    return tj_err(j, path, "unknown task \"%s\"", key.id);
  }
  int64_t x;
  if (!json_is_number(ref))
    return tj_err(j, path, "must name a task: its id, or its index in tasks");
  if (tj_int(j, ref, path, 0, (int64_t)n - 1, &x)) return -1;
  *out = (int32_t)x;
  return 0;
}

/* Edges of tasks[i] from its "after" list. */
static int tj_after(const tj_t *j, const json_t *tasks, size_t i, int32_t first, tg_t *g) {
  const json_t *o = json_array_get(tasks, i), *after = json_object_get(o, "after"), *e;
  char path[640];
  snprintf(path, sizeof path, "tasks[%zu].after", i);
  if (!after) return 0;
  if (!json_is_array(after)) return tj_err(j, path, "must be an array");
  size_t k;
  json_array_foreach(after, k, e) {
    const json_t *ref = e;
    int on = TG_ON_END;
    snprintf(path, sizeof path, "tasks[%zu].after[%zu]", i, k);
    if (json_is_object(e)) {
      const char *key;
      json_t *v;
      json_object_foreach((json_t *)e, key, v) {
        if (strcmp(key, "task") != 0 && strcmp(key, "on") != 0) {
          char p2[700];
          snprintf(p2, sizeof p2, "%s.%s", path, key);
          return tj_err(j, p2, "unknown key (task, on)");
        }
      }
      ref = json_object_get(e, "task");
      const char *ev = json_string_value(json_object_get(e, "on"));
      if (json_object_get(e, "on") && (!ev || (strcmp(ev, "end") && strcmp(ev, "recv")))) {
        char p2[700];
        snprintf(p2, sizeof p2, "%s.on", path);
        return tj_err(j, p2, "must be \"end\" or \"recv\"");
      }
      on = ev && strcmp(ev, "recv") == 0 ? TG_ON_RECV : TG_ON_END;
      if (!ref) {
        char p2[700];
        snprintf(p2, sizeof p2, "%s.task", path);
        return tj_err(j, p2, "is required");
      }
    }
    int32_t p = -1;
    if (tj_ref(j, ref, tasks, path, &p)) return -1;
    if ((size_t)p == i) return tj_err(j, path, "a task cannot wait for itself");
    if (on == TG_ON_RECV && g->t[first + p].kind != TG_FLOW)
      return tj_err(j, path, "\"on\": \"recv\" needs a flow, tasks[%d] is a %s", p,
                    tj_kinds[g->t[first + p].kind]);
    if (tg_edge(g, first + (int32_t)i, first + p, (tg_on_t)on))
      return tj_err(j, path, "out of memory");
  }
  if (g->t[first + (int32_t)i].need > (int32_t)json_array_size(after)) {
    snprintf(path, sizeof path, "tasks[%zu].need", i);
    return tj_err(j, path, "%d, more than its %zu predecessors", g->t[first + (int32_t)i].need,
                  json_array_size(after));
  }
  return 0;
}

int tg_from_json(const json_t *root, const char *where, tg_t *g, char *err, size_t errlen) {
  tj_t j = {where, err, errlen, NULL, 0};
  const char *key;
  json_t *v;
  if (!json_is_object(root)) {
    base_errf(err, errlen, "%s: must hold an object {\"tasks\": [...]}", where);
    return -1;
  }
  json_object_foreach((json_t *)root, key, v) {
    if (strcmp(key, "tasks") != 0 && strcmp(key, "description") != 0)
      return tj_err(&j, key, "unknown key (tasks, description)");
  }
  const json_t *tasks = json_object_get(root, "tasks");
  if (!json_is_array(tasks)) return tj_err(&j, "tasks", "must be an array of tasks");
  if (json_array_size(tasks) > (size_t)(INT32_MAX - g->n))
    return tj_err(&j, "tasks", "too many tasks");
  int32_t first = g->n;
  size_t i;
  json_array_foreach(tasks, i, v) {
    char at[64];
    tg_task_t t;
    snprintf(at, sizeof at, "tasks[%zu]", i);
    if (tj_task(&j, v, at, g, &t)) return -1;
    if (tg_add(g, &t) < 0) return tj_err(&j, at, "out of memory");
  }
  size_t n = json_array_size(tasks);
  j.ids = malloc((n + 1) * sizeof *j.ids); /* ids sorted, unique */
  if (!j.ids) return tj_err(&j, "tasks", "out of memory");
  for (i = 0; i < n; i++) {
    const char *id = json_string_value(json_object_get(json_array_get(tasks, i), "id"));
    if (id) j.ids[j.n_ids++] = (tj_id_t){id, (int32_t)i};
  }
  qsort(j.ids, (size_t)j.n_ids, sizeof *j.ids, tj_by_id);
  for (int32_t k = 1; k < j.n_ids; k++)
    if (strcmp(j.ids[k].id, j.ids[k - 1].id) == 0) {
      char at[64];
      snprintf(at, sizeof at, "tasks[%d].id", j.ids[k].idx);
      tj_err(&j, at, "\"%s\" is also tasks[%d]'s id", j.ids[k].id, j.ids[k - 1].idx);
      free(j.ids);
      return -1;
    }
  int rc = 0;
  for (i = 0; i < n && rc == 0; i++)
    rc = tj_after(&j, tasks, i, first, g);
  free(j.ids);
  return rc;
}

int tg_read_json(const char *path, tg_t *g, char *err, size_t errlen) {
  json_t *root = base_json_load(path, 0, err, errlen);
  if (!root) return -1;
  int rc = tg_from_json(root, path, g, err, errlen);
  json_decref(root);
  return rc;
}
