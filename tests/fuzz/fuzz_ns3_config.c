/* Fuzz target: ns-3 HPCC simulator configurations (`multiverse net
 * --ns3-config`, drv_ns3_config, driver/drv_ns3cfg.c) from arbitrary bytes. A
 * refused file gets one line naming it; an accepted one names its topology,
 * flow and FCT files, and its settings are KEY=VALUE texts that the parameter
 * parser applies (job_params_set_list over the shipped presets) or refuses in
 * one line naming the key; applied ones read back from their canonical text. */
#define _DEFAULT_SOURCE /* mkstemps */
#include "driver/drv.h"
#include "fuzz_file.h"
#include "fuzz_params.h"

static job_presets_t ps;

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  fuzz_presets_shipped(&ps);
  fuzz_file_init("ns3cfg", ".txt");
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static drv_ns3_config_t cfg; /* large: not on the stack */
  static eng_params_t p;
  const char *path = fuzz_file_write(data, size);
  char err[2048] = "";
  if (drv_ns3_config(path, size && (data[0] & 1) ? &ps : NULL, &cfg, err, sizeof err) != 0) {
    fuzz_check_error(err, path);
    return 0;
  }
  FUZZ_ASSERT(cfg.fct[0], "accepted without an FCT file (its topology and flows: the caller's)");
  FUZZ_ASSERT(cfg.n_sets >= 1 && cfg.n_sets <= DRV_NS3_SETS, "%d settings", cfg.n_sets);
  const char *kvs[DRV_NS3_SETS];
  for (int i = 0; i < cfg.n_sets; i++) {
    FUZZ_ASSERT(strchr(cfg.sets[i], '=') != NULL, "setting '%s'", cfg.sets[i]);
    kvs[i] = cfg.sets[i];
  }
  p = ps.defaults;
  int bad = -1;
  if (job_params_set_list(&ps, &p, kvs, cfg.n_sets, &bad, err, sizeof err) == 0)
    fuzz_params_roundtrip(&ps, &p);
  else
    fuzz_check_error(err, "--set ");
  return 0;
}
