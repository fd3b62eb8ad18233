/* Fuzz target: trf_parse_seconds (flow start times). An accepted number is exact:
 * it prints back to the same ps and agrees with strtod; a number strtod reads as
 * more than INT64_MAX ps is refused as too large. */
#include <math.h>

#include "fuzz.h"
#include "traffic/trf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *s = fuzz_cstr(data, size), back[64];
  int64_t ps = trf_parse_seconds(s);
  FUZZ_ASSERT(ps >= 0 || ps == -1 || ps == BASE_DEC_TOO_LARGE, "%lld", (long long)ps);
  /* strtod's view, for plain decimal text only (no sign, hex, inf, spaces). */
  int plain = (s[0] >= '0' && s[0] <= '9') || s[0] == '.';
  for (const char *p = s; *p && plain; p++)
    plain = strchr("0123456789.eE+-", *p) != NULL;
  char *end;
  double v = plain ? strtod(s, &end) : 0;
  int whole = plain && *end == '\0';
  if (ps >= 0) {
    snprintf(back, sizeof back, "%lld.%012lld", (long long)(ps / 1000000000000LL),
             (long long)(ps % 1000000000000LL));
    FUZZ_ASSERT(trf_parse_seconds(back) == ps, "'%s' -> %lld, printed '%s'", s, (long long)ps,
                back);
    FUZZ_ASSERT(whole, "'%s' -> %lld ps, but strtod does not read it all", s, (long long)ps);
    FUZZ_ASSERT(fabs(v * 1e12 - (double)ps) <= 1e-12 * (double)ps + 1e-3,
                "'%s': %lld ps, strtod %.17g", s, (long long)ps, v);
  }
  if (whole && isfinite(v) && v * 1e12 > 9.3e18) FUZZ_ASSERT(ps == BASE_DEC_TOO_LARGE, "'%s'", s);
  if (ps == BASE_DEC_TOO_LARGE) FUZZ_ASSERT(whole && !(v * 1e12 < 9.2e18), "'%s': %.17g", s, v);
  free(s);
  return 0;
}
