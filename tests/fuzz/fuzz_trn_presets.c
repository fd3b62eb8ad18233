/* Fuzz target: the training presets (trn_presets_load: DIR/models.json and
 * DIR/gpus.json, which $MULTIVERSE_PRESETS can point at) from arbitrary bytes:
 * the first byte chooses which file the rest replaces, the other one is the
 * shipped file. Refused presets get one line; accepted ones name every model
 * and GPU, each found by its name. */
#define _POSIX_C_SOURCE 200809L /* mkdtemp */
#include <unistd.h>

#include "fuzz.h"
#include "train/trn.h"

static char dir[64], paths[2][96];
static char *shipped[2];
static size_t shipped_len[2];
static const char *const names[2] = {"models.json", "gpus.json"};

static void remove_dir(void) {
  for (int i = 0; i < 2; i++)
    unlink(paths[i]);
  rmdir(dir);
}

static void put(int i, const void *data, size_t size) {
  FILE *fp = fopen(paths[i], "wb");
  FUZZ_ASSERT(fp && fwrite(data, 1, size, fp) == size && fclose(fp) == 0, "cannot write %s",
              paths[i]);
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  snprintf(dir, sizeof dir, "/dev/shm/mv-fuzz-presets-XXXXXX");
  if (!mkdtemp(dir)) {
    snprintf(dir, sizeof dir, "/tmp/mv-fuzz-presets-XXXXXX");
    FUZZ_ASSERT(mkdtemp(dir) != NULL, "cannot create a folder");
  }
  atexit(remove_dir);
  for (int i = 0; i < 2; i++) {
    char src[512];
    snprintf(paths[i], sizeof paths[i], "%s/%s", dir, names[i]);
    snprintf(src, sizeof src, "%s/%s", MV_PRESET_DIR, names[i]);
    FILE *fp = fopen(src, "rb");
    FUZZ_ASSERT(fp != NULL, "cannot read %s", src);
    fseek(fp, 0, SEEK_END);
    shipped_len[i] = (size_t)ftell(fp);
    rewind(fp);
    shipped[i] = malloc(shipped_len[i]);
    FUZZ_ASSERT(shipped[i] && fread(shipped[i], 1, shipped_len[i], fp) == shipped_len[i],
                "cannot read %s", src);
    fclose(fp);
  }
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1) return 0;
  int which = data[0] & 1;
  put(which, data + 1, size - 1);
  put(!which, shipped[!which], shipped_len[!which]);
  trn_presets_t p;
  char err[1024] = "";
  memset(&p, 0, sizeof p);
  if (trn_presets_load(&p, dir, err, sizeof err) == 0) {
    for (int32_t i = 0; i < p.n_models; i++)
      FUZZ_ASSERT(trn_preset_model(&p, p.models[i].name) != NULL, "model %s not found",
                  p.models[i].name);
    for (int32_t i = 0; i < p.n_gpus; i++)
      FUZZ_ASSERT(trn_preset_gpu(&p, p.gpus[i].name) != NULL, "GPU %s not found", p.gpus[i].name);
    trn_presets_free(&p);
  } else {
    fuzz_check_error(err, "");
  }
  return 0;
}
