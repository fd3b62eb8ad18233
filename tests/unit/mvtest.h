/* Minimal test harness: CHECK macros that print file:line and count failures;
 * a test's main returns mvtest_end(). */
#ifndef MVTEST_H
#define MVTEST_H

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int mvtest_failures;

#define CHECK(cond)                                                                                \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);                     \
      mvtest_failures++;                                                                           \
    }                                                                                              \
  } while (0)

#define CHECK_EQ_I64(a, b)                                                                         \
  do {                                                                                             \
    int64_t a_ = (int64_t)(a), b_ = (int64_t)(b);                                                  \
    if (a_ != b_) {                                                                                \
      fprintf(stderr, "%s:%d: %s == %" PRId64 ", expected %s == %" PRId64 "\n", __FILE__,          \
              __LINE__, #a, a_, #b, b_);                                                           \
      mvtest_failures++;                                                                           \
    }                                                                                              \
  } while (0)

#define CHECK_STR_EQ(a, b)                                                                         \
  do {                                                                                             \
    const char *a_ = (a), *b_ = (b);                                                               \
    if (!a_ || !b_ || strcmp(a_, b_) != 0) {                                                       \
      fprintf(stderr, "%s:%d: strings differ:\n  %s\n  %s\n", __FILE__, __LINE__,                  \
              a_ ? a_ : "(null)", b_ ? b_ : "(null)");                                             \
      mvtest_failures++;                                                                           \
    }                                                                                              \
  } while (0)
#define CHECK_STR_CONTAINS(hay, needle)                                                            \
  do {                                                                                             \
    if (!strstr((hay), (needle))) {                                                                \
      fprintf(stderr, "%s:%d: \"%s\" does not contain \"%s\"\n", __FILE__, __LINE__, (hay),        \
              (needle));                                                                           \
      mvtest_failures++;                                                                           \
    }                                                                                              \
  } while (0)

/* Path of a fixture under tests/data (MV_TEST_DATA, set by CTest). */
static inline const char *mvtest_data(const char *name) {
  static char buf[4][1024];
  static int k;
  const char *dir = getenv("MV_TEST_DATA");
  k = (k + 1) % 4;
  snprintf(buf[k], sizeof buf[k], "%s/%s", dir ? dir : "tests/data", name);
  return buf[k];
}

/* Uniform in [0, 1) from a splitmix64 state. */
static inline double mvtest_u01(uint64_t *state) {
  uint64_t x = *state += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return (double)((x ^ (x >> 31)) >> 11) * 0x1.0p-53;
}

static inline int mvtest_end(void) {
  if (mvtest_failures) fprintf(stderr, "%d check(s) failed\n", mvtest_failures);
  return mvtest_failures ? 1 : 0;
}

#endif
