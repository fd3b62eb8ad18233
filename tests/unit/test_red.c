/* RED's draw between the thresholds (eng_red_draw, eng_step.h) marks exactly
 * where docs/model.md's division says: u < floor(pmax_q32 (q - lo) / (hi - lo)),
 * computed here in 128 bits. Every (u, q) of small bands, exhaustively; then
 * draws at and beside each threshold floor(...) - 1, floor(...) for large
 * bands up to kmax = 2^31 bytes and pmax from 0 to 1 (2^32). A strict `<` in
 * place of the engine's `<=` fails at the boundary draws, which random draws
 * almost never meet (so test_exact's marks do not see it). */
#include "mvtest.h"
#include "sim/eng_step.h"

/* The specification's test, by division. */
static int spec(uint32_t u, int64_t q, int64_t lo, int64_t hi, uint64_t pmax_q32) {
  unsigned __int128 thr = (unsigned __int128)pmax_q32 * (uint64_t)(q - lo) / (uint64_t)(hi - lo);
  return (unsigned __int128)u < thr;
}

static void small_bands(void) {
  const uint64_t pmaxes[] = {0, 1, 3, 1000, 1ull << 31, (1ull << 32) - 1, 1ull << 32};
  for (size_t i = 0; i < sizeof pmaxes / sizeof *pmaxes; i++)
    for (int64_t lo = 0; lo < 3; lo++)
      for (int64_t hi = lo + 1; hi < lo + 9; hi++)
        for (int64_t q = lo + 1; q <= hi; q++) {
          uint64_t thr = pmaxes[i] * (uint64_t)(q - lo) / (uint64_t)(hi - lo);
          for (int64_t d = -2; d <= 2; d++) { /* draws beside the threshold */
            int64_t u = (int64_t)thr + d;
            if (u < 0 || u > (int64_t)UINT32_MAX) continue;
            CHECK_EQ_I64(eng_red_draw((uint32_t)u, q, lo, hi, pmaxes[i]),
                         spec((uint32_t)u, q, lo, hi, pmaxes[i]));
          }
          for (uint32_t u = 0; u < 64; u++)
            CHECK_EQ_I64(eng_red_draw(u, q, lo, hi, pmaxes[i]), spec(u, q, lo, hi, pmaxes[i]));
        }
}

static void large_bands(void) {
  uint64_t s = 12345;
  for (int i = 0; i < 200000; i++) {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    int64_t hi = 1 + (int64_t)((s >> 20) % (1ull << 31)); /* kmax <= 2^31 bytes */
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    int64_t lo = (int64_t)((s >> 20) % (uint64_t)hi);
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    int64_t q = lo + 1 + (int64_t)((s >> 20) % (uint64_t)(hi - lo));
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    uint64_t pmax = i % 7 == 0 ? 1ull << 32 : (s >> 20) % ((1ull << 32) + 1);
    uint64_t thr = (uint64_t)(((unsigned __int128)pmax * (uint64_t)(q - lo)) / (uint64_t)(hi - lo));
    for (int64_t d = -1; d <= 1; d++) {
      int64_t u = (int64_t)thr + d;
      if (u < 0 || u > (int64_t)UINT32_MAX) continue;
      CHECK_EQ_I64(eng_red_draw((uint32_t)u, q, lo, hi, pmax), spec((uint32_t)u, q, lo, hi, pmax));
    }
  }
}

int main(void) {
  small_bands();
  large_bands();
  return mvtest_end();
}
