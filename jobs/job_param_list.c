/* A list of `KEY=VALUE` texts (--set, one --sweep combination) applied so that
 * a preset never overrides an explicit key: presets first, then the rest. */
#include <string.h>

#include "jobs/job_param_int.h"

/* Keys that apply a preset of several keys, in the order they apply (as
 * job_params_apply: a network preset's keys follow the CC kind in effect). */
static const char *const list_presets[] = {"cc", JOB_PRESET_KEY};
#define LIST_PRESETS ((int)(sizeof list_presets / sizeof list_presets[0]))

/* Which pass applies kv: the index of its preset key, else LIST_PRESETS. */
static int list_pass(const char *kv) {
  size_t n = strcspn(kv, "=");
  for (int i = 0; i < LIST_PRESETS; i++)
    if (strlen(list_presets[i]) == n && strncmp(kv, list_presets[i], n) == 0) return i;
  return LIST_PRESETS;
}

int job_params_set_list(const job_presets_t *ps, eng_params_t *p, const char *const *kvs, int n,
                        int *bad, char *err, size_t errlen) {
  for (int pass = 0; pass <= LIST_PRESETS; pass++)
    for (int i = 0; i < n; i++)
      if (list_pass(kvs[i]) == pass && job_param_set(ps, p, kvs[i], err, errlen)) {
        if (bad) *bad = i;
        return -1;
      }
  return 0;
}
