/* Results: provenance attributes (what wrote a file, where, when, from which job). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "ana_git.h" /* MV_GIT_REVISION, written at build time */
#include "ana_int.h"

void ana_now(char *buf, size_t len) {
  const char *epoch = getenv("SOURCE_DATE_EPOCH");
  time_t now = epoch ? (time_t)strtoll(epoch, NULL, 10) : time(NULL);
  struct tm tm;
  gmtime_r(&now, &tm);
  strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

void ana_provenance(ana_table_t *t, const ana_prov_t *p) {
  char host[256] = "", now[64];
  if (gethostname(host, sizeof host - 1) != 0) host[0] = '\0';
  ana_now(now, sizeof now);
  const char *slurm = getenv("SLURM_JOB_ID");
  ana_table_set_attr(t, "title", p->title);
  ana_table_set_attr(t, "source", "Multiverse " MV_VERSION " (git " MV_GIT_REVISION ")");
  ana_table_set_attr(t, "multiverse_version", MV_VERSION);
  ana_table_set_attr(t, "git_revision", MV_GIT_REVISION);
  ana_table_set_attr(t, "backend", p->backend);
  ana_table_set_attr(t, "gpu", p->gpu);
  ana_table_set_attr(t, "hostname", host);
  ana_table_set_attr(t, "slurm_job_id", slurm);
  ana_table_set_attr(t, "job_file", p->job_file);
  ana_table_set_attr(t, "date_created", now);
}
