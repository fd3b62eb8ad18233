/* Stand-in entry points of the CUDA backend for builds without nvcc: they
 * report that the backend is absent. */
#include <stdio.h>

#include "sim/eng_world.h"

#ifndef MV_HAVE_CUDA
int eng_run_cuda(eng_world_t *w, char *err, size_t errlen) {
  (void)w;
  snprintf(err, errlen, "%s", eng_cuda_unavailable_reason());
  return ENG_E_DEVICE;
}

size_t eng_cuda_free_bytes(void) {
  return 0;
}

int eng_cuda_available(void) {
  return 0;
}

const char *eng_cuda_unavailable_reason(void) {
  return "this multiverse was built without the CUDA backend (no nvcc at configure time)";
}
#endif
