/* base: JSON files loaded with one-line messages, values described for them. */
#include "base/base_json.h"

#include <stdio.h>

#include "base/base_err.h"
#include "base/base_file.h"

json_t *base_json_load(const char *path, size_t flags, char *err, size_t errlen) {
  char why[128];
  FILE *f = base_fopen_input(path, "rb", why, sizeof why);
  if (!f) {
    base_errf(err, errlen, "%s: %s", path, why);
    return NULL;
  }
  json_error_t je;
  json_t *root = json_loadf(f, flags, &je);
  fclose(f);
  if (root) return root;
  if (je.line > 0)
    base_errf(err, errlen, "%s:%d: %s", path, je.line, je.text);
  else
    base_errf(err, errlen, "%s: %s", path, je.text);
  return NULL;
}

const char *base_json_describe(const json_t *v, char *buf, size_t len) {
  switch (json_typeof(v)) {
  case JSON_INTEGER:
    snprintf(buf, len, "%lld", (long long)json_integer_value(v));
    return buf;
  case JSON_REAL:
    snprintf(buf, len, "%g", json_real_value(v));
    return buf;
  case JSON_STRING:
    snprintf(buf, len, "\"%.40s\"", json_string_value(v));
    return buf;
  case JSON_TRUE:
    return "true";
  case JSON_FALSE:
    return "false";
  case JSON_NULL:
    return "null";
  case JSON_ARRAY:
    return "an array";
  case JSON_OBJECT:
    return "an object";
  }
  return "?";
}
