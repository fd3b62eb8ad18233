/* Input files that are not regular files: every reader of a file a user
 * names (topologies, ns-3 flows, htsim matrices, JSON task graphs, workloads,
 * nccl-tests logs, job files, the digest of experiment ids) refuses a device,
 * a pipe and a folder at once, with a message naming the file and what it
 * is. Before, /dev/zero as a topology grew to GBs, as a flow file spun
 * forever, and a pipe would have blocked the reader. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "coll/coll.h"
#include "job_sweep.h"
#include "jobs/job.h"
#include "mvtest.h"
#include "tg/tg_json.h"
#include "topo/topo.h"
#include "traffic/trf.h"
#include "train/trn_wl.h"

/* What each reader says for one path, and what it must contain. */
static void refused(const char *path, const char *what) {
  char err[2048], want[512];
  snprintf(want, sizeof want, "%s", what);
  topo_t t = {0};
  CHECK(topo_load(path, &t, err, sizeof err) == -1);
  CHECK_STR_CONTAINS(err, path);
  CHECK_STR_CONTAINS(err, want);
  topo_free(&t);
  CHECK(trf_detect(path, err, sizeof err) == -1);
  CHECK_STR_CONTAINS(err, want);
  tg_t g = {0};
  CHECK(tg_read_json(path, &g, err, sizeof err) == -1);
  CHECK_STR_CONTAINS(err, want);
  tg_free(&g);
  trn_wl_t wl;
  memset(&wl, 0, sizeof wl);
  CHECK(trn_wl_read(path, 1000, &wl, err, sizeof err) == -1);
  CHECK_STR_CONTAINS(err, want);
  trn_wl_free(&wl);
  coll_log_t log;
  CHECK(coll_log_read(path, -1, 0, &log, err, sizeof err) == -1);
  CHECK_STR_CONTAINS(err, want);
  coll_log_free(&log);
  uint64_t d;
  CHECK(job_file_digest(path, &d, err, sizeof err) == -1);
  CHECK_STR_CONTAINS(err, want);
  job_sweep_t *sw = NULL;
  job_sweep_errs_t errs = {0};
  CHECK(job_sweep_load(path, &sw, &errs) == -1 && sw == NULL);
  CHECK_STR_CONTAINS(errs.text ? errs.text : "", want);
  job_sweep_errs_free(&errs);
}

int main(void) {
  refused("/dev/zero", "a device, not a regular file");
  char dir[] = "/tmp/mv_inputs_XXXXXX", fifo[64];
  CHECK(mkdtemp(dir) != NULL);
  refused(dir, "a folder, not a regular file");
  snprintf(fifo, sizeof fifo, "%s/fifo", dir);
  CHECK(mkfifo(fifo, 0600) == 0); /* opened for reading, it would block until a writer */
  refused(fifo, "a pipe, not a regular file");
  unlink(fifo);
  rmdir(dir);
  return mvtest_end();
}
