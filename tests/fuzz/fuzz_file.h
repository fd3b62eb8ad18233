/* Shared by the targets whose parser reads a file: a temporary file (in memory
 * where /dev/shm exists) that each input is written to. */
#ifndef FUZZ_FILE_H
#define FUZZ_FILE_H

#include <unistd.h>

#include "fuzz.h"

static char fuzz_path[96];

static void fuzz_file_remove(void) {
  unlink(fuzz_path);
}

/* Creates the file once: /dev/shm/mv-fuzz-NAME-XXXXXX`suffix`. */
static inline void fuzz_file_init(const char *name, const char *suffix) {
  int len = (int)strlen(suffix), fd = -1;
  for (int i = 0; i < 2 && fd < 0; i++) {
    snprintf(fuzz_path, sizeof fuzz_path, "%s/mv-fuzz-%s-XXXXXX%s", i ? "/tmp" : "/dev/shm", name,
             suffix);
    fd = mkstemps(fuzz_path, len);
  }
  FUZZ_ASSERT(fd >= 0, "cannot create %s", fuzz_path);
  close(fd);
  atexit(fuzz_file_remove);
}

/* Writes the input to the file and returns its path. */
static inline const char *fuzz_file_write(const uint8_t *data, size_t size) {
  FILE *fp = fopen(fuzz_path, "wb");
  FUZZ_ASSERT(fp && fwrite(data, 1, size, fp) == size && fclose(fp) == 0, "cannot write %s",
              fuzz_path);
  return fuzz_path;
}

#endif
