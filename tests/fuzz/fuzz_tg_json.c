/* Fuzz target: JSON task graphs (tg_from_json, then tg_check) from arbitrary
 * bytes, against a star of hosts 0-7 around switch 8 (host 9 unlinked). A graph tg_check accepts
 * meets the task limits of tg.h; refusals are one line naming the file. */
#include "fuzz.h"
#include "tg/tg_json.h"

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
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  json_error_t je;
  json_t *root = json_loadb((const char *)data, size, 0, &je);
  if (!root) return 0; /* jansson's own syntax errors */
  tg_t g = {0};
  char err[1024] = "";
  if (tg_from_json(root, "fuzz.json", &g, err, sizeof err) != 0) {
    fuzz_check_error(err, "fuzz.json");
  } else if (tg_check(&g, &topo, "fuzz.json", err, sizeof err) != 0) {
    fuzz_check_error(err, "fuzz.json");
  } else {
    for (int32_t i = 0; i < g.n; i++) {
      const tg_task_t *k = &g.t[i];
      FUZZ_ASSERT(k->start >= 0 && k->start <= TG_MAX_START_PS, "task %d start %lld", i,
                  (long long)k->start);
      FUZZ_ASSERT(k->delay >= 0 && k->dur >= 0 && k->delay + k->dur <= TG_MAX_WAIT_PS,
                  "task %d delay %lld dur %lld", i, (long long)k->delay, (long long)k->dur);
      FUZZ_ASSERT(k->kind != TG_FLOW || (k->bytes >= 1 && k->bytes <= TG_MAX_BYTES),
                  "task %d bytes %llu", i, (unsigned long long)k->bytes);
    }
  }
  tg_free(&g);
  json_decref(root);
  return 0;
}
