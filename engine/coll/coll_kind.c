/* coll: collective names and nccl-tests' bus bandwidth factors. */
#include <string.h>

#include "coll/coll.h"

static const char *const coll_names[COLL_N_KINDS] = {
    "allreduce", "allgather", "reducescatter", "alltoall", "broadcast", "reduce", "sendrecv"};
/* nccl-tests' program names without "_perf". */
static const char *const coll_test_names[COLL_N_KINDS] = {
    "all_reduce", "all_gather", "reduce_scatter", "alltoall", "broadcast", "reduce", "sendrecv"};

const char *coll_name(coll_kind_t k) {
  return k >= 0 && k < COLL_N_KINDS ? coll_names[k] : "?";
}

int coll_kind_parse(const char *s) {
  for (int k = 0; k < COLL_N_KINDS; k++)
    if (strcmp(s, coll_names[k]) == 0 || strcmp(s, coll_test_names[k]) == 0) return k;
  return -1;
}

double coll_busbw_factor(coll_kind_t k, int32_t n) {
  if (n < 1) return 0;
  switch (k) {
  case COLL_ALLREDUCE:
    return 2.0 * (n - 1) / n;
  case COLL_ALLGATHER:
  case COLL_REDUCESCATTER:
  case COLL_ALLTOALL:
    return (double)(n - 1) / n;
  default:
    return 1;
  }
}
