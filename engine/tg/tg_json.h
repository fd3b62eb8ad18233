/* tg: task graphs written as JSON, for tests and for users who generate their
 * own schedules (docs/formats.md, "JSON task graphs"):
 *   {"tasks": [{"id": "a", "kind": "flow", "src": 0, "dst": 5, "bytes": 1000000},
 *              {"kind": "compute", "host": 0, "dur_us": 10,
 *               "after": ["a", {"task": "b", "on": "recv"}]}, ...]}
 * Every tg_task_t field can be given; times are microseconds converted to ps
 * exactly. */
#ifndef TG_JSON_H
#define TG_JSON_H

#include <stddef.h>

#include <jansson.h>

#include "tg/tg.h"

/* Appends the tasks of a JSON task graph document to g, tasks[i] as task
 * g->n + i, with their edges. Checks keys, types and ranges, and resolves
 * "after" references (ids or indices); errors name the file and JSON path
 * ("g.json: tasks[3].after[1]: unknown task \"x\""). Checks against a
 * topology (hosts, reachability, cycles) are tg_check's. 0 or -1. */
int tg_read_json(const char *path, tg_t *g, char *err, size_t errlen);
/* As tg_read_json on a parsed document; `where` names it in messages. */
int tg_from_json(const json_t *root, const char *where, tg_t *g, char *err, size_t errlen);

#endif
