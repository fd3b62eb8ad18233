/* The CPU workers' hardware name (driver/drv_cpu.c) from /proc/cpuinfo texts:
 * the dev box's and an H200 host's both say "Intel(R) Xeon(R) Processor";
 * their CPUID family and model tell them apart, "model" is not read from
 * "model name", only the first processor counts, an ARM core is named by
 * its implementer and part, '/' and '|' (the keys' separators) are blanked. */
#include "driver/drv_jobs.h"
#include "mvtest.h"

static void is(const char *cpuinfo, const char *want) {
  char got[256];
  drv_cpu_name(cpuinfo, got, sizeof got);
  CHECK(strcmp(got, want) == 0);
  if (strcmp(got, want) != 0) fprintf(stderr, "got '%s', want '%s'\n", got, want);
}

int main(void) {
  is("processor\t: 0\nvendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 207\n"
     "model name\t: Intel(R) Xeon(R) Processor\nstepping\t: 2\n\nprocessor\t: 1\n",
     "cpu:Intel(R) Xeon(R) Processor, family 6 model 207");
  /* model name before model, a second processor of another model ignored */
  is("processor : 0\nmodel name : Intel(R) Xeon(R) Processor  \ncpu family : 6\n"
     "model : 143\n\nprocessor : 1\nmodel : 207\n",
     "cpu:Intel(R) Xeon(R) Processor, family 6 model 143");
  is("processor\t: 0\ncpu family\t: 25\nmodel\t\t: 17\nmodel name\t: AMD EPYC 9454 48-Core "
     "Processor\n",
     "cpu:AMD EPYC 9454 48-Core Processor, family 25 model 17");
  is("processor\t: 0\nBogoMIPS\t: 2000.00\nCPU implementer\t: 0x41\nCPU architecture: 8\n"
     "CPU part\t: 0xd4f\n",
     "cpu:implementer 0x41 part 0xd4f");
  is("processor\t: 0\nmodel name\t: Some/CPU|X\n", "cpu:Some CPU X");
  is("processor\t: 0\n", "cpu");
  is("", "cpu");
  is(NULL, "cpu");
  return mvtest_end();
}
