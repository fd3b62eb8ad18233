/* driver: where a rank runs: its GPU (one per rank, by local rank), backend,
 * CPU threads and the memory one batch may use. */
#define _GNU_SOURCE
#include <dirent.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "driver/drv_jobs.h"
#include "tg/tg.h"

/* Free device memory (engine/sim, eng_world.h; eng.h does not export it). */
size_t eng_cuda_free_bytes(void);

#define GIB 1073741824.0

const char *drv_backend_name(eng_backend_t b) {
  return b == ENG_BACKEND_CUDA ? "cuda" : "cpu";
}

/* NVIDIA GPUs the driver lists, without starting CUDA; the first one's model. */
static int gpu_count(char *model, size_t len) {
  DIR *d = opendir("/proc/driver/nvidia/gpus");
  int n = 0;
  struct dirent *e;
  while (d && (e = readdir(d)))
    if (e->d_name[0] != '.') {
      char path[512], line[256];
      snprintf(path, sizeof path, "/proc/driver/nvidia/gpus/%s/information", e->d_name);
      FILE *f = n == 0 ? fopen(path, "r") : NULL;
      while (f && fgets(line, sizeof line, f))
        if (strncmp(line, "Model:", 6) == 0) {
          const char *m = line + 6 + strspn(line + 6, " \t");
          snprintf(model, len, "%.*s", (int)strcspn(m, "\n"), m);
        }
      if (f) fclose(f);
      n++;
    }
  if (d) closedir(d);
  return n;
}

void drv_gpu_pick(int local_rank) {
  const char *cvd = getenv("CUDA_VISIBLE_DEVICES");
  char pick[64], model[8];
  if (cvd && *cvd) {
    int n = 1;
    for (const char *c = cvd; *c; c++)
      n += *c == ',';
    if (n == 1) return;
    const char *p = cvd;
    for (int k = 0; k < local_rank % n; k++)
      p = strchr(p, ',') + 1;
    snprintf(pick, sizeof pick, "%.*s", (int)strcspn(p, ","), p);
  } else {
    int n = gpu_count(model, sizeof model);
    if (n == 0) return;
    snprintf(pick, sizeof pick, "%d", local_rank % n);
  }
  setenv("CUDA_VISIBLE_DEVICES", pick, 1);
}

/* Cores this rank may use: its affinity, at most the node's over its ranks. */
static int cpu_threads(int local_size) {
  cpu_set_t set;
  long online = sysconf(_SC_NPROCESSORS_ONLN);
  int mine = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : (int)online;
  int share = (int)(online / (local_size > 0 ? local_size : 1));
  int t = mine < share ? mine : share;
  return t > 0 ? t : 1;
}

int64_t drv_host_memory(void) {
  FILE *f = fopen("/proc/meminfo", "r");
  char line[256];
  long long kb = 0;
  while (f && fgets(line, sizeof line, f))
    if (sscanf(line, "MemAvailable: %lld kB", &kb) == 1) break;
  if (f) fclose(f);
  int64_t avail = (int64_t)kb * 1024;
  struct rlimit lim; /* ulimit -v: what this process may map */
  if (getrlimit(RLIMIT_AS, &lim) == 0 && lim.rlim_cur != RLIM_INFINITY &&
      (avail == 0 || (int64_t)lim.rlim_cur < avail))
    avail = (int64_t)lim.rlim_cur;
  return avail;
}

static int64_t host_available(void) {
  return drv_host_memory();
}

int32_t drv_graph_max_tasks(void) {
  /* a task and about one edge each; half of what is available */
  int64_t n = host_available() / 2 / (int64_t)(sizeof(tg_task_t) + sizeof(tg_edge_t));
  return n <= 0 ? 0 : n > INT32_MAX ? INT32_MAX : (int32_t)n;
}

int drv_env_local_rank(void) {
  static const char *const vars[] = {"OMPI_COMM_WORLD_LOCAL_RANK", "SLURM_LOCALID",
                                     "MPI_LOCALRANKID", "MV2_COMM_WORLD_LOCAL_RANK"};
  for (size_t k = 0; k < sizeof vars / sizeof *vars; k++) {
    const char *v = getenv(vars[k]);
    if (v && *v >= '0' && *v <= '9') return atoi(v);
  }
  return -1;
}

int drv_machine(const drv_opts_t *o, int local_rank, int local_size, drv_machine_t *m, char *err,
                size_t errlen) {
  memset(m, 0, sizeof *m);
  if (o->backend != ENG_BACKEND_CPU) drv_gpu_pick(local_rank);
  int cuda = o->backend != ENG_BACKEND_CPU && eng_cuda_available();
  if (o->backend == ENG_BACKEND_CUDA && !cuda) {
    snprintf(err, errlen, "--backend cuda: %s", eng_cuda_unavailable_reason());
    return 2;
  }
  m->backend = cuda ? ENG_BACKEND_CUDA : ENG_BACKEND_CPU;
  m->threads = o->threads ? o->threads : cpu_threads(local_size);
  if (cuda) gpu_count(m->gpu, sizeof m->gpu);
  if (o->memory_gb > 0)
    m->mem_budget = (int64_t)(o->memory_gb * GIB);
  else if (cuda)
    m->mem_budget = (int64_t)((double)eng_cuda_free_bytes() * 0.9);
  else
    m->mem_budget = host_available() / 2 / (local_size > 0 ? local_size : 1);
  if (m->mem_budget <= 0) m->mem_budget = (int64_t)GIB; /* unknown: a modest guess */
  return 0;
}
