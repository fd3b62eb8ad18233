/* `--flows FILE`: an ns-3 HPCC flow file, an htsim connection matrix or a JSON
 * task graph, told apart by content (trf_detect), read into a task graph. */
#include <stdio.h>

#include "driver/drv.h"
#include "tg/tg_json.h"
#include "traffic/trf.h"

int drv_read_flows(const char *cmd, const char *path, const topo_t *t, tg_t *g, int *format) {
  char err[1024];
  int fmt = trf_detect(path, err, sizeof err);
  if (fmt < 0) return drv_fail(2, "multiverse %s: %s\n", cmd, err);
  if (fmt == TRF_FORMAT_NS3) {
    trf_flows_t fl;
    if (trf_read_ns3(path, t, &fl, err, sizeof err))
      return drv_fail(2, "multiverse %s: %s\n", cmd, err);
    int conv = trf_to_tg(&fl, g);
    trf_free(&fl);
    if (conv) return drv_fail(2, "multiverse %s: out of memory\n", cmd);
  } else if (fmt == TRF_FORMAT_CM) {
    if (trf_read_cm(path, t, g, err, sizeof err))
      return drv_fail(2, "multiverse %s: %s\n", cmd, err);
  } else {
    if (tg_read_json(path, g, err, sizeof err)) return drv_fail(2, "multiverse %s: %s\n", cmd, err);
    tg_assign_ports(g);
    if (tg_check(g, t, path, err, sizeof err)) return drv_fail(2, "multiverse %s: %s\n", cmd, err);
  }
  *format = fmt;
  return 0;
}
