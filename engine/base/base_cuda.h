/* base: a CUDA call that fails writes its message (file:line, the call) to
 * err (errlen bytes) and jumps to the caller's `fail` label. CUDA sources only. */
#ifndef BASE_CUDA_H
#define BASE_CUDA_H

#include <stdio.h>

#define BASE_CUDA_TRY(call)                                                                        \
  do {                                                                                             \
    cudaError_t err_ = (call);                                                                     \
    if (err_ != cudaSuccess) {                                                                     \
      snprintf(err, errlen, "%s:%d: CUDA error: %s (%s)", __FILE__, __LINE__,                      \
               cudaGetErrorString(err_), #call);                                                   \
      goto fail;                                                                                   \
    }                                                                                              \
  } while (0)

#endif
