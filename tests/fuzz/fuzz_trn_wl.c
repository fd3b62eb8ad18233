/* Fuzz target: ASTRA-sim 1.0 / SimAI layer-wise workloads (trn_wl_read) from
 * arbitrary bytes. An accepted file has a known policy and per layer a name,
 * known collectives and groups, times >= 0; a refused one gets one line
 * naming the file. */
#define _DEFAULT_SOURCE /* mkstemps */
#include "fuzz_file.h"
#include "train/trn_wl.h"

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  fuzz_file_init("wl", ".txt");
  return 0;
}

static void check_phase(const trn_wl_phase_t *ph, int line) {
  FUZZ_ASSERT(ph->compute_ps >= 0, "line %d: compute %lld ps", line, (long long)ph->compute_ps);
  FUZZ_ASSERT(ph->comm >= 0 && ph->comm < TRN_WL_COMM_COUNT, "line %d: comm %d", line, ph->comm);
  FUZZ_ASSERT(ph->group >= TRN_WL_TP && ph->group <= TRN_WL_DP_EP, "line %d: group %d", line,
              ph->group);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *path = fuzz_file_write(data, size);
  trn_wl_t wl;
  char err[1024] = "";
  memset(&wl, 0, sizeof wl);
  if (trn_wl_read(path, 0, &wl, err, sizeof err) == 0) {
    FUZZ_ASSERT(wl.policy >= 0 && wl.policy < TRN_WL_POLICY_COUNT, "policy %d", wl.policy);
    FUZZ_ASSERT(wl.n_layers >= 1 && wl.layers != NULL, "%d layers", wl.n_layers);
    for (int32_t i = 0; i < wl.n_layers; i++) {
      const trn_wl_layer_t *l = &wl.layers[i];
      FUZZ_ASSERT(l->name != NULL && l->name[0] != '\0', "layer %d: no name", i);
      FUZZ_ASSERT(l->policy >= 0 && l->policy < TRN_WL_POLICY_COUNT, "layer %d: policy", i);
      FUZZ_ASSERT(l->update_ps >= 0, "layer %d: update %lld ps", i, (long long)l->update_ps);
      check_phase(&l->fwd, l->line);
      check_phase(&l->ig, l->line);
      check_phase(&l->wg, l->line);
    }
    trn_wl_free(&wl);
  } else {
    fuzz_check_error(err, path);
  }
  return 0;
}
