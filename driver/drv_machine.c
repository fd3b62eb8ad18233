/* driver: where a rank runs: its GPU (one per rank, by local rank) and its
 * workers (the GPU, the rank's share of the node's cores, or both), each with
 * its threads, the memory one batch may use and its hardware's name. */
#define _GNU_SOURCE
#include <dirent.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "base/base_units.h"
#include "driver/drv.h"
#include "driver/drv_jobs.h"
#include "tg/tg.h"

/* Free device memory (engine/sim, eng_world.h; eng.h does not export it). */
size_t eng_cuda_free_bytes(void);

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

static void cpu_name(char *buf, size_t len) {
  FILE *f = fopen("/proc/cpuinfo", "r");
  char text[16384];
  size_t n = f ? fread(text, 1, sizeof text - 1, f) : 0;
  text[n] = '\0';
  if (f) fclose(f);
  drv_cpu_name(n ? text : NULL, buf, len);
}

int drv_workers_parse(const char *spec, int *backend, int *threads, int *n) {
  char buf[256];
  *n = 0;
  if (!spec || !*spec || strlen(spec) >= sizeof buf) return -1;
  snprintf(buf, sizeof buf, "%s", spec);
  for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
    if (*n == DRV_MAX_WORKERS) return -1;
    if (strcmp(t, "cuda") == 0) {
      backend[*n] = ENG_BACKEND_CUDA;
      threads[(*n)++] = 1;
      continue;
    }
    if (strncmp(t, "cpu", 3) != 0 || (t[3] != '\0' && t[3] != ':')) return -1;
    long x = 0;
    if (t[3] == ':') {
      char *end;
      if (t[4] < '1' || t[4] > '9') return -1;
      x = strtol(t + 4, &end, 10);
      if (*end || x < 1 || x > DRV_MAX_THREADS) return -1;
    }
    backend[*n] = ENG_BACKEND_CPU;
    threads[(*n)++] = (int)x; /* 0: its share */
  }
  return *n > 0 ? 0 : -1;
}

void drv_machine_text(const drv_machine_t *m, char *buf, size_t len) {
  size_t used = 0;
  buf[0] = '\0';
  for (int i = 0; i < m->n_workers && used < len; i++) {
    const drv_worker_desc_t *w = &m->w[i];
    if (w->backend == ENG_BACKEND_CUDA)
      used += (size_t)snprintf(buf + used, len - used, "%scuda", i ? " + " : "");
    else
      used += (size_t)snprintf(buf + used, len - used, "%scpu (%d thread%s)", i ? " + " : "",
                               w->threads, w->threads == 1 ? "" : "s");
  }
}

int drv_machine(const drv_opts_t *o, int local_rank, int local_size, drv_machine_t *m, char *err,
                size_t errlen) {
  memset(m, 0, sizeof *m);
  int backend[DRV_MAX_WORKERS], threads[DRV_MAX_WORKERS], n = 0, gpus = 0, cpus = 0;
  if (o->workers) {
    if (drv_workers_parse(o->workers, backend, threads, &n)) {
      snprintf(err, errlen,
               "--workers %s: expected cuda, cpu or cpu:THREADS, comma-separated, "
               "at most %d",
               o->workers, DRV_MAX_WORKERS);
      return 2;
    }
  } else {
    n = 0;
    if (o->backend != ENG_BACKEND_CPU) backend[n] = ENG_BACKEND_CUDA, threads[n++] = 1;
    if (o->backend != ENG_BACKEND_CUDA) backend[n] = ENG_BACKEND_CPU, threads[n++] = o->threads;
  }
  for (int i = 0; i < n; i++)
    gpus += backend[i] == ENG_BACKEND_CUDA;
  if (gpus > 1) {
    snprintf(err, errlen, "--workers %s: one cuda worker per rank (one GPU each)", o->workers);
    return 2;
  }
  if (gpus) drv_gpu_pick(local_rank);
  int cuda = gpus && eng_cuda_available();
  if (gpus && !cuda && (o->workers || o->backend == ENG_BACKEND_CUDA)) {
    snprintf(err, errlen, "--%s cuda: %s", o->workers ? "workers" : "backend",
             eng_cuda_unavailable_reason());
    return 2;
  }
  char cpu[160], gpu[160];
  cpu_name(cpu, sizeof cpu);
  if (cuda) gpu_count(m->gpu, sizeof m->gpu);
  snprintf(gpu, sizeof gpu, "cuda%s%s", m->gpu[0] ? ":" : "", m->gpu);
  for (int i = 0; i < n; i++)
    cpus += backend[i] == ENG_BACKEND_CPU;
  /* The rank's cores: one drives the GPU; the CPU workers share the rest. */
  int share = cpu_threads(local_size) - (cuda ? 1 : 0);
  int64_t host = host_available() / 2 / (local_size > 0 ? local_size : 1);
  if (cuda && cpus) host /= 2; /* the GPU's batches are built on the host too */
  for (int i = 0; i < n; i++) {
    drv_worker_desc_t *w = &m->w[m->n_workers];
    if (backend[i] == ENG_BACKEND_CUDA) {
      if (!cuda) continue; /* auto without a GPU */
      *w = (drv_worker_desc_t){.backend = ENG_BACKEND_CUDA, .threads = 1};
      snprintf(w->name, sizeof w->name, "%s", gpu);
      w->mem_budget = (int64_t)((double)eng_cuda_free_bytes() * 0.9);
      if (cpus && host > 0 && host < w->mem_budget) w->mem_budget = host;
    } else {
      int t = threads[i] ? threads[i] : o->threads ? o->threads : share / (cpus ? cpus : 1);
      if (t < 1) {
        if (cuda) continue; /* a GPU and one core: the core drives the GPU */
        t = 1;
      }
      *w = (drv_worker_desc_t){.backend = ENG_BACKEND_CPU, .threads = t};
      snprintf(w->name, sizeof w->name, "%s", cpu);
      w->mem_budget = host / (cpus ? cpus : 1);
      if (!m->threads) m->threads = t;
    }
    if (o->memory_gb > 0) w->mem_budget = (int64_t)(o->memory_gb * BASE_BYTES_PER_GIB);
    if (w->mem_budget <= 0) w->mem_budget = BASE_BYTES_PER_GIB; /* unknown: a modest guess */
    m->n_workers++;
  }
  if (m->n_workers == 0) {
    snprintf(err, errlen, "no worker: %s", eng_cuda_unavailable_reason());
    return 2;
  }
  /* The host side of a GPU's batches (their results: files per experiment)
   * on the cores the CPU workers leave, at least the one driving it. */
  int left = share + (cuda ? 1 : 0);
  for (int i = 0; i < m->n_workers; i++)
    if (m->w[i].backend == ENG_BACKEND_CPU) left -= m->w[i].threads;
  for (int i = 0; i < m->n_workers; i++)
    m->w[i].host_threads = m->w[i].backend == ENG_BACKEND_CPU ? m->w[i].threads
                           : left > 1                         ? left
                                                              : 1;
  m->backend = m->w[0].backend;
  m->mem_budget = m->w[0].mem_budget;
  return 0;
}
