/* mv_genflows: deterministic ns-3 HPCC flow files for tests and benchmarks.
 * usage: mv_genflows PATTERN HOSTS SEED FLOWS MAX_BYTES MAX_START_NS [FIRST_HOST]
 *   PATTERN random: FLOWS flows between random distinct hosts, random sizes in
 *                   [1, MAX_BYTES] and starts in [0, MAX_START_NS] ns
 *           incast: FLOWS senders (hosts 1..FLOWS after FIRST_HOST) into FIRST_HOST
 *           permutation: every host sends to a distinct random other host
 *           alltoall: every host sends MAX_BYTES to every other host
 *           ring: every host i sends MAX_BYTES to host i+1 (one step of a ring
 *                 all-reduce over all hosts) */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t state;
static uint64_t next(void) { /* splitmix64 */
  uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

static void line(int src, int dst, uint64_t bytes, uint64_t start_ns) {
  printf("%d %d 3 100 %" PRIu64 " %" PRIu64 ".%09" PRIu64 "\n", src, dst, bytes,
         (uint64_t)(start_ns / 1000000000u), (uint64_t)(start_ns % 1000000000u));
}

int main(int argc, char **argv) {
  if (argc < 7) {
    fprintf(stderr,
            "usage: mv_genflows random|incast|permutation|alltoall|ring HOSTS SEED FLOWS MAX_BYTES "
            "MAX_START_NS [FIRST_HOST]\n");
    return 2;
  }
  int hosts = atoi(argv[2]), flows = atoi(argv[4]), first = argc > 7 ? atoi(argv[7]) : 0;
  uint64_t max_bytes = strtoull(argv[5], NULL, 10), max_start = strtoull(argv[6], NULL, 10);
  state = strtoull(argv[3], NULL, 10);
  if (hosts < 2 || flows < 1 || max_bytes < 1) return 2;
  if (strcmp(argv[1], "random") == 0) {
    printf("%d\n", flows);
    for (int i = 0; i < flows; i++) {
      int s = (int)(next() % (uint64_t)hosts), d = (int)(next() % (uint64_t)(hosts - 1));
      if (d >= s) d++;
      line(s, d, 1 + next() % max_bytes, max_start ? next() % (max_start + 1) : 0);
    }
  } else if (strcmp(argv[1], "incast") == 0) {
    printf("%d\n", flows);
    for (int i = 1; i <= flows; i++)
      line((first + i) % hosts, first, max_bytes, 0);
  } else if (strcmp(argv[1], "permutation") == 0) {
    int *perm = malloc((size_t)hosts * sizeof *perm);
    for (int i = 0; i < hosts; i++)
      perm[i] = i;
    do { /* a derangement: shuffle until no host sends to itself */
      for (int i = hosts - 1; i > 0; i--) {
        int j = (int)(next() % (uint64_t)(i + 1)), t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
      }
      flows = 0;
      for (int i = 0; i < hosts; i++)
        flows += perm[i] == i;
    } while (flows);
    printf("%d\n", hosts);
    for (int i = 0; i < hosts; i++)
      line(i, perm[i], max_bytes, 0);
    free(perm);
  } else if (strcmp(argv[1], "ring") == 0) {
    printf("%d\n", hosts);
    for (int i = 0; i < hosts; i++)
      line(i, (i + 1) % hosts, max_bytes, 0);
  } else if (strcmp(argv[1], "alltoall") == 0) {
    printf("%d\n", hosts * (hosts - 1));
    for (int i = 0; i < hosts; i++)
      for (int j = 0; j < hosts; j++)
        if (i != j) line(i, j, max_bytes, 0);
  } else {
    return 2;
  }
  return 0;
}
