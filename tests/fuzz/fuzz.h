/* Shared by the libFuzzer targets: a NUL-terminated copy of the input, and the
 * checks every parser must pass on every input (a finding aborts). */
#ifndef FUZZ_H
#define FUZZ_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Aborts with file:line and a message: libFuzzer records the input. */
#define FUZZ_ASSERT(cond, ...)                                                                     \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      fprintf(stderr, "%s:%d: FUZZ_ASSERT(%s): ", __FILE__, __LINE__, #cond);                      \
      fprintf(stderr, __VA_ARGS__);                                                                \
      fprintf(stderr, "\n");                                                                       \
      abort();                                                                                     \
    }                                                                                              \
  } while (0)

/* The input as a C string (NUL bytes inside stay: strlen sees the first part). */
static inline char *fuzz_cstr(const uint8_t *data, size_t size) {
  char *s = malloc(size + 1);
  FUZZ_ASSERT(s != NULL, "out of memory for %zu bytes", size);
  memcpy(s, data, size);
  s[size] = '\0';
  return s;
}

/* A rejected input's message: one non-empty line that starts with `prefix` (the
 * file name, or "--set "). */
static inline void fuzz_check_error(const char *err, const char *prefix) {
  FUZZ_ASSERT(err[0] != '\0', "empty error message");
  FUZZ_ASSERT(strchr(err, '\n') == NULL, "message of more than one line: %s", err);
  FUZZ_ASSERT(strncmp(err, prefix, strlen(prefix)) == 0, "message does not start with '%s': %s",
              prefix, err);
}

#endif
