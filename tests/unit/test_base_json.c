/* The JSON readers' shared loader and value description (engine/base:
 * base_json_load, base_json_describe): a document loads; a syntax error names
 * its file and line; a missing file names the file and no line (jansson says
 * line -1 there); a pipe, a device or a folder is refused before it is read
 * (a pipe would block the reader); jansson's flags reach the decoder (a
 * duplicate key refused); values are described exactly. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/base_json.h"
#include "mvtest.h"

static char dir[64], path[160], want[256], err[512];

static void write_text(const char *name, const char *text) {
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "w");
  CHECK(f && fputs(text, f) >= 0 && fclose(f) == 0);
}

/* err after loading `p` starts with "P: why" (or "P:LINE: ..." for why NULL, line) */
static void refused(const char *p, int line, const char *why) {
  err[0] = '\0';
  json_t *v = base_json_load(p, 0, err, sizeof err);
  CHECK(v == NULL);
  json_decref(v);
  if (why)
    snprintf(want, sizeof want, "%s: %s", p, why);
  else if (line > 0)
    snprintf(want, sizeof want, "%s:%d: ", p, line);
  else
    snprintf(want, sizeof want, "%s: ", p);
  if (why)
    CHECK_STR_EQ(err, want);
  else
    CHECK(strncmp(err, want, strlen(want)) == 0 && !strstr(err, ":-1:") && !strchr(err, '\n'));
  if (mvtest_failures) fprintf(stderr, "  got: %s\n", err);
}

int main(void) {
  snprintf(dir, sizeof dir, "/tmp/mv-json-XXXXXX");
  CHECK(mkdtemp(dir) != NULL);

  write_text("good.json", "{\"a\": [1, 2.5, \"x\"]}\n");
  json_t *v = base_json_load(path, 0, err, sizeof err);
  CHECK(json_is_object(v) && json_array_size(json_object_get(v, "a")) == 3);
  json_decref(v);

  write_text("bad.json", "{\"a\": 1,\n \"b\" 2}\n");
  refused(path, 2, NULL);
  /* jansson's flags pass through: a key given twice loads, unless refused */
  write_text("dup.json", "{\"a\": 1,\n \"a\": 2}\n");
  v = base_json_load(path, 0, err, sizeof err);
  CHECK(json_integer_value(json_object_get(v, "a")) == 2);
  json_decref(v);
  v = base_json_load(path, JSON_REJECT_DUPLICATES, err, sizeof err);
  snprintf(want, sizeof want, "%s:2: duplicate object key", path);
  CHECK(v == NULL && strncmp(err, want, strlen(want)) == 0);
  if (v || strncmp(err, want, strlen(want))) fprintf(stderr, "  got: %s\n", err);
  json_decref(v);
  char missing[200];
  snprintf(missing, sizeof missing, "%s/missing.json", dir);
  refused(missing, 0, NULL);
  char fifo[200];
  snprintf(fifo, sizeof fifo, "%s/fifo", dir);
  CHECK(mkfifo(fifo, 0600) == 0);
  refused(fifo, 0, "a pipe, not a regular file");
  refused("/dev/null", 0, "a device, not a regular file");
  refused(dir, 0, "a folder, not a regular file");

  char buf[64];
  static const struct {
    const char *json, *text;
  } d[] = {{"5", "5"},
           {"-7", "-7"},
           {"4.5", "4.5"},
           {"\"x\"", "\"x\""},
           {"\"0123456789012345678901234567890123456789TAIL\"",
            "\"0123456789012345678901234567890123456789\""},
           {"true", "true"},
           {"false", "false"},
           {"null", "null"},
           {"[1]", "an array"},
           {"{}", "an object"}};
  for (size_t i = 0; i < sizeof d / sizeof d[0]; i++) {
    json_error_t je;
    json_t *x = json_loads(d[i].json, JSON_DECODE_ANY, &je);
    CHECK(x != NULL);
    if (x) CHECK_STR_EQ(base_json_describe(x, buf, sizeof buf), d[i].text);
    json_decref(x);
  }

  unlink(fifo);
  snprintf(path, sizeof path, "%s/good.json", dir);
  unlink(path);
  snprintf(path, sizeof path, "%s/bad.json", dir);
  unlink(path);
  snprintf(path, sizeof path, "%s/dup.json", dir);
  unlink(path);
  rmdir(dir);
  return mvtest_end();
}
