/* trn: the Chakra trace reader of a build without protobuf-c (not found when the build
 * was configured): trn_et_read says so, naming the packages that bring it. */
#include <stdio.h>

#include "train/trn_et.h"

int trn_et_available(void) { return 0; }

int trn_et_read_rank(trn_et_t *et, int32_t rank, char *err, size_t errlen) {
  snprintf(err, errlen, "%s: this build reads no Chakra traces (no protobuf-c)",
           et->ranks[rank].path);
  return -1;
}
