/* `--flows FILE`: an ns-3 HPCC flow file, an htsim connection matrix or a JSON
 * task graph, told apart by content (trf_detect), read into a task graph. */
#include <stdio.h>

#include "driver/drv.h"
#include "tg/tg_json.h"
#include "traffic/trf.h"

int drv_load_flows(const char *path, const topo_t *t, tg_t *g, int *format, char *err,
                   size_t errlen) {
  return drv_load_flows_counted(path, t, g, format, NULL, err, errlen);
}

int drv_load_flows_counted(const char *path, const topo_t *t, tg_t *g, int *format,
                           int32_t *ignored, char *err, size_t errlen) {
  int fmt = trf_detect(path, err, errlen);
  if (ignored) *ignored = 0;
  if (fmt < 0) return -1;
  if (fmt == TRF_FORMAT_NS3) {
    trf_flows_t fl;
    if (trf_read_ns3(path, t, &fl, err, errlen)) return -1;
    if (ignored) *ignored = fl.ignored_lines;
    int conv = trf_to_tg(&fl, g);
    trf_free(&fl);
    if (conv) {
      snprintf(err, errlen, "%s: out of memory", path);
      return -1;
    }
  } else if (fmt == TRF_FORMAT_CM) {
    if (trf_read_cm(path, t, g, err, errlen)) return -1;
  } else {
    if (tg_read_json(path, g, err, errlen)) return -1;
    tg_assign_ports(g);
    if (tg_check(g, t, path, err, errlen)) return -1;
  }
  *format = fmt;
  return 0;
}

int drv_read_flows(const char *cmd, const char *path, const topo_t *t, tg_t *g, int *format) {
  char err[1024];
  int32_t ignored;
  if (drv_load_flows_counted(path, t, g, format, &ignored, err, sizeof err))
    return drv_fail(2, "multiverse %s: %s\n", cmd, err);
  if (ignored) /* said once, by the command that reads its inputs before running */
    fprintf(stderr, "multiverse: %s: %d lines after the %d flows announced ignored, as ns-3 "
                    "ignores them\n",
            path, ignored, g->n);
  return 0;
}
