/* Fuzz target: nccl-tests logs (coll_log_read) from arbitrary bytes, the
 * first byte choosing the collective hint (-1..6) and the time column; then
 * the intra-server fit (coll_fit) of what was read. An accepted log has a
 * known collective, ranks and points of positive size and time; a refused
 * log or fit gets one line (naming the file, for the log). */
#define _DEFAULT_SOURCE /* mkstemps */
#include <math.h>

#include "coll/coll.h"
#include "fuzz_file.h"

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  fuzz_file_init("nccl", ".log");
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1) return 0;
  int kind = data[0] % 8 - 1, oop = (data[0] >> 3) & 1;
  const char *path = fuzz_file_write(data + 1, size - 1);
  coll_log_t log;
  char err[1024] = "";
  memset(&log, 0, sizeof log);
  if (coll_log_read(path, kind, oop, &log, err, sizeof err) != 0) {
    fuzz_check_error(err, path);
    return 0;
  }
  FUZZ_ASSERT(log.kind >= 0 && log.kind < COLL_N_KINDS, "kind %d", log.kind);
  FUZZ_ASSERT(log.ranks >= 1 && log.nodes >= 1 && log.nodes <= log.ranks, "%d ranks on %d nodes",
              log.ranks, log.nodes);
  FUZZ_ASSERT(log.n >= 1, "no points");
  for (int32_t i = 0; i < log.n; i++)
    FUZZ_ASSERT(log.p[i].bytes > 0 && isfinite(log.p[i].time_us) && log.p[i].time_us > 0,
                "point %d: %llu bytes, %g us", i, (unsigned long long)log.p[i].bytes,
                log.p[i].time_us);
  coll_fit_t f;
  if (coll_fit(log.p, log.n, &f, err, sizeof err) == 0) {
    FUZZ_ASSERT(f.n_ranges >= 1 && isfinite(f.max_err) && f.max_err >= 0, "fit: %d ranges",
                f.n_ranges);
  } else {
    fuzz_check_error(err, "");
  }
  coll_log_free(&log);
  return 0;
}
