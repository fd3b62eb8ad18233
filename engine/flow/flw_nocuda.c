/* The flow level's CUDA entry point in builds without nvcc: the backend is
 * absent. */
#include <stdio.h>

#include "flow/flw_world.h"

#ifndef MV_HAVE_CUDA
int flw_run_cuda(flw_world_t *w, char *err, size_t errlen) {
  (void)w;
  snprintf(err, errlen, "%s", eng_cuda_unavailable_reason());
  return ENG_E_DEVICE;
}
#endif
