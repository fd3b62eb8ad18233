/* driver: a results table (NetCDF) written by the output rule: ana_write
 * on the temporary copy, then renamed over the path. */
#include <stdio.h>

#include "driver/drv.h"

int drv_out_table(const ana_table_t *t, const char *path, char *err, size_t errlen) {
  drv_out_t o;
  if (drv_out_open(&o, path, err, errlen)) return -1;
  fclose(o.f); /* NetCDF writes the copy by its name */
  o.f = NULL;
  if (ana_write(t, o.tmp, err, errlen)) {
    drv_out_abort(&o);
    return -1;
  }
  return drv_out_commit(&o, err, errlen);
}
