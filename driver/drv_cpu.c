/* driver: the CPU workers' hardware name, the key of their cost model, from
 * /proc/cpuinfo's first processor (why these fields: drv_cpu_name). */
#include <stdio.h>
#include <string.h>

#include "driver/drv_jobs.h"

/* The value of /proc/cpuinfo's line "KEY : value" (its first processor's),
 * trailing blanks cut, into buf; 0 or -1 when there is none. */
static int cpuinfo_field(const char *text, const char *key, char *buf, size_t len) {
  size_t k = strlen(key);
  for (const char *l = text, *next; l && *l; l = next) {
    next = strchr(l, '\n');
    if (next) next++;
    if (*l == '\n') return -1; /* the first processor's block ends */
    if (strncmp(l, key, k) != 0) continue;
    const char *v = l + k + strspn(l + k, " \t"); /* "model" is not "model name" */
    if (*v != ':') continue;
    v++;
    v += strspn(v, " \t");
    int n = (int)strcspn(v, "\n");
    while (n > 0 && (v[n - 1] == ' ' || v[n - 1] == '\t'))
      n--;
    if (n == 0) continue;
    snprintf(buf, len, "%.*s", n, v);
    return 0;
  }
  return -1;
}

/* The CPU workers' hardware name: "cpu:MODEL NAME, family F model M" from
 * /proc/cpuinfo (x86; "cpu:implementer I part P" on ARM), else "cpu". The
 * model name alone does not tell machines apart: under KVM it is often the
 * hypervisor's generic one (the dev box and the H200 host both say "Intel(R)
 * Xeon(R) Processor"), while the family and model (CPUID) pass through and
 * name the core's microarchitecture, which sets a thread's speed. Not the
 * core count (a machine's size does not change a thread's speed; the model
 * counts threads as slots), nor cache sizes or flags (hypervisors set them
 * per VM configuration: one machine, several names), nor a timed
 * calibration at start (the load of that moment, a different plan on every
 * run; a run's first batch corrects the scale anyway). '/' and '|' (the
 * separators of the presets' and the costs file's keys) become ' '. */
void drv_cpu_name(const char *cpuinfo, char *buf, size_t len) {
  char model[160] = "", fam[32] = "", num[32] = "";
  snprintf(buf, len, "cpu");
  if (!cpuinfo) return;
  int named = cpuinfo_field(cpuinfo, "model name", model, sizeof model) == 0;
  const char *labels[2] = {NULL, NULL}; /* x86's CPUID, or ARM's MIDR fields */
  if (cpuinfo_field(cpuinfo, "cpu family", fam, sizeof fam) == 0 &&
      cpuinfo_field(cpuinfo, "model", num, sizeof num) == 0) {
    labels[0] = "family";
    labels[1] = "model";
  } else if (cpuinfo_field(cpuinfo, "CPU implementer", fam, sizeof fam) == 0 &&
             cpuinfo_field(cpuinfo, "CPU part", num, sizeof num) == 0) {
    labels[0] = "implementer";
    labels[1] = "part";
  }
  if (labels[0])
    snprintf(buf, len, "cpu:%s%s%s %s %s %s", named ? model : "", named ? ", " : "", labels[0], fam,
             labels[1], num);
  else if (named)
    snprintf(buf, len, "cpu:%s", model);
  for (char *c = buf; *c; c++)
    if (*c == '/' || *c == '|') *c = ' ';
}
