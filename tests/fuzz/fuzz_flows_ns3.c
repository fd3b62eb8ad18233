/* Fuzz target: the ns-3 flow reader (trf_parse_ns3) on arbitrary text, against a
 * small topology with hosts 0-2 and 6 on switches 4 and 5 and host 3 unlinked. A flow
 * set it accepts meets every limit of trf.h; one it rejects gets one line naming
 * the file. */
#include "fuzz.h"
#include "traffic/trf.h"

static topo_t topo;

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  static const char text[] = "7 2 5\n4 5\n0 4 100Gbps 1us 0\n1 4 100Gbps 1us 0\n"
                             "2 5 400Gbps 0.5us 0\n4 5 400Gbps 1us 0\n6 5 25Gbps 2us 0.001\n";
  char err[TOPO_ERR_LEN];
  FUZZ_ASSERT(topo_parse_ns3("topo.txt", text, sizeof text - 1, &topo, err, sizeof err) == 0, "%s",
              err);
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  trf_flows_t fl;
  char err[TOPO_ERR_LEN] = "";
  if (trf_parse_ns3("fuzz.txt", (const char *)data, size, &topo, &fl, err, sizeof err) == 0) {
    for (int32_t i = 0; i < fl.n; i++) {
      const trf_flow_t *f = &fl.f[i];
      FUZZ_ASSERT(f->src >= 0 && f->src < topo.n_nodes && !topo.is_switch[f->src], "src %d",
                  f->src);
      FUZZ_ASSERT(f->dst >= 0 && f->dst < topo.n_nodes && !topo.is_switch[f->dst], "dst %d",
                  f->dst);
      FUZZ_ASSERT(f->src != f->dst && topo_distance(&topo, f->src, f->dst) > 0, "flow %d", i);
      FUZZ_ASSERT(f->bytes >= 1 && f->bytes <= TRF_MAX_BYTES, "bytes %llu",
                  (unsigned long long)f->bytes);
      FUZZ_ASSERT(f->start_ps >= 0 && f->start_ps <= TRF_MAX_START_PS, "start %lld",
                  (long long)f->start_ps);
      FUZZ_ASSERT(f->prio >= TRF_PRIO_MIN && f->prio <= TRF_PRIO_MAX && f->dport <= 65535,
                  "prio %u dport %u", f->prio, f->dport);
      FUZZ_ASSERT(f->sport >= 10000 && f->sport <= 65535, "sport %u", f->sport);
      FUZZ_ASSERT(f->line >= 2 && (i == 0 || f->line > fl.f[i - 1].line), "line %d", f->line);
    }
    trf_free(&fl);
  } else {
    fuzz_check_error(err, "fuzz.txt:");
    FUZZ_ASSERT(fl.n == 0 && fl.f == NULL, "a rejected flow set keeps memory");
  }
  return 0;
}
