/* Fuzz target: intra-server model files (`multiverse collective --calibration
 * FILE.json`, coll_model_from_json) from arbitrary JSON text, loaded over the
 * shipped presets as the option does. A refused file gets one line naming it;
 * an accepted one answers every collective among 1..8 GPUs of each GPU type it
 * names with a time >= 0 at every size, or one line saying why not. */
#include "coll/coll.h"
#include "fuzz.h"

static const uint64_t sizes[] = {1, 1024, 1 << 20, 1ULL << 30, 1ULL << 40, UINT64_MAX >> 2};

static void answers(const coll_model_t *m, const char *gpu) {
  char err[1024];
  for (int k = 0; k < COLL_N_KINDS; k++)
    for (int32_t n = 1; n <= 8; n++)
      for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        int64_t ps = -1;
        err[0] = '\0';
        if (coll_model_time(m, gpu, (coll_kind_t)k, n, sizes[i], &ps, err, sizeof err) == 0)
          FUZZ_ASSERT(ps >= 0, "%s %d GPUs %llu bytes: %lld ps", gpu, n,
                      (unsigned long long)sizes[i], (long long)ps);
        else
          fuzz_check_error(err, "");
      }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = fuzz_cstr(data, size);
  json_error_t je;
  json_t *root = strlen(text) == size ? json_loads(text, 0, &je) : NULL;
  free(text);
  if (!root) return 0;
  coll_model_t m = {0};
  char err[1024] = "";
  FUZZ_ASSERT(coll_model_load(&m, MV_PRESET_DIR "/nccl_intra.json", err, sizeof err) == 0, "%s",
              err);
  if (coll_model_from_json(&m, root, "fuzz.json", err, sizeof err) == 0) {
    for (int32_t i = 0; i < m.n_fits; i++) {
      const coll_fit_t *f = &m.fits[i];
      FUZZ_ASSERT(f->n_ranges >= 1 && f->n_ranges <= COLL_MAX_RANGES, "%d ranges", f->n_ranges);
      for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        FUZZ_ASSERT(coll_fit_time_ps(f, sizes[s]) >= 0, "fit %d: a negative time", i);
    }
    for (int32_t i = 0; i < m.n_gpus; i++)
      answers(&m, m.gpus[i].gpu);
    if (m.n_fits) answers(&m, m.fits[m.n_fits - 1].gpu);
  } else {
    fuzz_check_error(err, "fuzz.json");
  }
  coll_model_free(&m);
  json_decref(root);
  return 0;
}
