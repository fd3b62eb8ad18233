/* Fuzz target: one rank's Chakra execution trace (trn_et_read on a set of one file)
 * from arbitrary bytes. An accepted trace has nodes of known kinds, dependencies that
 * name nodes of the file, durations within a task's longest wait; a refused one gets
 * one line naming the file. Built only where protobuf-c is. */
#define _DEFAULT_SOURCE /* mkstemps */
#include "fuzz_file.h"
#include "train/trn_et.h"

static char prefix[96];

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  fuzz_file_init("et", ".0.et");
  snprintf(prefix, sizeof prefix, "%.*s", (int)(strlen(fuzz_path) - 5), fuzz_path);
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_file_write(data, size);
  trn_et_t et;
  char err[1024] = "";
  if (trn_et_read(prefix, 1, NULL, &et, err, sizeof err) == 0) {
    const trn_et_rank_t *r = &et.ranks[0];
    for (int32_t i = 0; i < r->n_nodes; i++) {
      const trn_et_node_t *n = &r->nodes[i];
      FUZZ_ASSERT(n->kind >= 0 && n->kind < TRN_ET_KIND_COUNT, "node %d: kind %d", i, n->kind);
      FUZZ_ASSERT(n->kind != TRN_ET_MEM_LOAD && n->kind != TRN_ET_MEM_STORE, "node %d: memory", i);
      FUZZ_ASSERT(n->dur_ps >= 0 && n->dur_ps <= TRN_ET_MAX_US * 1000000, "node %d: %lld ps", i,
                  (long long)n->dur_ps);
      FUZZ_ASSERT(n->kind != TRN_ET_COLL || (n->coll >= 0 && n->coll < TRN_ET_COLL_COUNT),
                  "node %d: collective %d", i, n->coll);
      FUZZ_ASSERT(n->kind != TRN_ET_SEND && n->kind != TRN_ET_RECV, "node %d: a peer in a set of 1",
                  i);
      for (int32_t k = 0; k < n->n_deps; k++) {
        int found = 0;
        for (int32_t j = 0; j < r->n_nodes && !found; j++)
          found = r->nodes[j].id == r->deps[n->deps + k] && j != i;
        FUZZ_ASSERT(found, "node %d: dependency %llu not in the file", i,
                    (unsigned long long)r->deps[n->deps + k]);
      }
    }
    trn_et_free(&et);
  } else {
    fuzz_check_error(err, prefix);
  }
  return 0;
}
