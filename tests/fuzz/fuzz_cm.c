/* Fuzz target: htsim connection matrices (trf_read_cm) from arbitrary bytes,
 * against a star of hosts 0-7 around switch 8 (host 9 unlinked). An accepted matrix gives a task
 * graph tg_check accepts; a refused one gets one line naming the file. */
#define _DEFAULT_SOURCE /* mkstemps */
#include "fuzz.h"
#include "fuzz_file.h"
#include "traffic/trf.h"

static topo_t topo;
int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  static const char text[] = "10 1 8\n8\n0 8 100Gbps 1us 0\n1 8 100Gbps 1us 0\n"
                             "2 8 100Gbps 1us 0\n3 8 100Gbps 1us 0\n4 8 100Gbps 1us 0\n"
                             "5 8 400Gbps 1us 0\n6 8 25Gbps 2us 0.001\n7 8 100Gbps 1us 0\n";
  char err[TOPO_ERR_LEN];
  FUZZ_ASSERT(topo_parse_ns3("topo.txt", text, sizeof text - 1, &topo, err, sizeof err) == 0, "%s",
              err);
  fuzz_file_init("cm", "");
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *path = fuzz_file_write(data, size);
  tg_t g = {0};
  char err[1024] = "";
  if (trf_read_cm(path, &topo, &g, err, sizeof err) == 0) {
    FUZZ_ASSERT(tg_check(&g, &topo, path, err, sizeof err) == 0, "accepted, but: %s", err);
  } else {
    fuzz_check_error(err, path);
  }
  tg_free(&g);
  return 0;
}
