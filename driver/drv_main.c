/* multiverse: command dispatch, and the OpenMP waiting policy of the
 * commands that simulate. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "driver/drv.h"
#include "driver/drv_jobs.h"

static const char usage[] =
    "usage: multiverse COMMAND [options]\n"
    "commands:\n"
    "  net       packet-level network simulation of flow files and task graphs\n"
    "  collective time, algbw and busbw of an NCCL collective per size\n"
    "  train     simulate training iterations of a job file's experiments\n"
    "  calibrate fit the intra-server collective model to nccl-tests logs\n"
    "  run       run a job file's sweep on every MPI rank (mpirun/srun)\n"
    "  plan      check a job file and show the batches `run` would make\n"
    "  merge     merge a run folder's shards into its results file\n"
    "  report    best configurations and each swept key's effect\n"
    "  params    every network parameter: default, values, meaning\n"
    "  fidelity  a job's sample at its fast and slow levels: the error between them\n"
    "  version   print the version\n"
    "`multiverse COMMAND --help` describes a command.\n";

/* OpenMP threads that wait at a barrier sleep rather than spin, unless the
 * user set OMP_WAIT_POLICY: on a node others share (other ranks, other jobs)
 * spinning threads take the cores the late ones need. Measured on the 2-core
 * dev box at load 8 (tests/bench/RESULTS.md, node): one experiment on 2
 * threads 18.4-42.8 s spinning (libgomp's default), 0.37-0.70 s sleeping,
 * 0.69-1.05 s on 1 thread. libgomp reads the variable when it loads, before
 * main: the program starts again with it set. */
static void wait_policy(char **argv) {
  if (getenv("OMP_WAIT_POLICY")) return;
  setenv("OMP_WAIT_POLICY", "passive", 1);
  execv("/proc/self/exe", argv); /* returns only if it failed: go on as we are */
}

int main(int argc, char **argv) {
  if (argc >= 2 && (strcmp(argv[1], "net") == 0 || strcmp(argv[1], "train") == 0 ||
                    strcmp(argv[1], "collective") == 0 || strcmp(argv[1], "run") == 0))
    wait_policy(argv);
  if (argc < 2 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
    fputs(usage, argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  if (strcmp(argv[1], "version") != 0 && drv_env_check()) return 2;
  if (strcmp(argv[1], "net") == 0) return drv_net(argc - 2, argv + 2);
  if (strcmp(argv[1], "train") == 0) return drv_train(argc - 2, argv + 2);
  if (strcmp(argv[1], "calibrate") == 0) return drv_calibrate(argc - 2, argv + 2);
  if (strcmp(argv[1], "collective") == 0) return drv_collective(argc - 2, argv + 2);
  if (strcmp(argv[1], "run") == 0) return drv_run(argc - 2, argv + 2);
  if (strcmp(argv[1], "plan") == 0) return drv_plan(argc - 2, argv + 2);
  if (strcmp(argv[1], "merge") == 0) return drv_merge(argc - 2, argv + 2);
  if (strcmp(argv[1], "report") == 0) return drv_report(argc - 2, argv + 2);
  if (strcmp(argv[1], "params") == 0) return drv_params(argc - 2, argv + 2);
  if (strcmp(argv[1], "fidelity") == 0) return drv_fidelity(argc - 2, argv + 2);
  if (strcmp(argv[1], "version") == 0 || strcmp(argv[1], "--version") == 0) {
    printf("multiverse %s\n", MV_VERSION);
    return 0;
  }
  return drv_fail(2, "multiverse: unknown command '%s'\n%s", argv[1], usage);
}
