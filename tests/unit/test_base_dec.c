/* The one decimal grammar (engine/base: base_dec_scan) and its readers: job
 * files' exact decimals (job_dec_parse), floating-point numbers of options,
 * configuration and topology files and nccl-tests logs (base_dec_real, under
 * eng_num_real's range), exact times (base_dec_scaled). Each string below is
 * a number for all of them or for none (base_dec_scaled also refuses a sign),
 * and the parts the scan gives are the ones written. */
#include <math.h>
#include <string.h>

#include "base/base_dec.h"
#include "jobs/job_param_int.h"
#include "mvtest.h"
#include "sim/eng_num.h"

static const char *const numbers[] = {"0",   "5.", ".5",    "-.5",       "1e3",  "1E+3", "1.5e-2",
                                      "007", "-0", "0.000", "12.340e-5", "1e-0", "9.9E9"};
static const char *const not_numbers[] = {"",      ".",  "-",    "+1",  "1e",    "1e+", "1.2.3",
                                          " 1",    "1 ", "0x10", "inf", "nan",   "1,5", "--1",
                                          "1e1.5", "e5", "-e5",  "1-",  "1e--1", ".e1"};

int main(void) {
  base_dec_text_t t;
  job_dec_t d;
  double x;
  for (size_t i = 0; i < sizeof numbers / sizeof *numbers; i++) {
    const char *s = numbers[i];
    CHECK(base_dec_scan(s, &t) == 0);
    CHECK(job_dec_parse(s, &d) == 0);
    CHECK(eng_num_real(s, -1e300, 1e300, &x) == 0);
    CHECK(base_dec_real(s) == x);
    if (s[0] != '-') CHECK(base_dec_scaled(s, 12) != -1); /* 9.9E9 s: too large */
  }
  for (size_t i = 0; i < sizeof not_numbers / sizeof *not_numbers; i++) {
    const char *s = not_numbers[i];
    if (base_dec_scan(s, &t) == 0 || job_dec_parse(s, &d) == 0 ||
        eng_num_real(s, -1e300, 1e300, &x) == 0 || !isnan(base_dec_real(s)) ||
        base_dec_scaled(s, 12) != -1) {
      fprintf(stderr, "'%s' read as a number\n", s);
      mvtest_failures++;
    }
  }
  /* the parts as written */
  CHECK(base_dec_scan("-12.340e-5", &t) == 0);
  CHECK(t.neg == 1 && t.n_whole == 2 && strncmp(t.whole, "12", 2) == 0 && t.n_frac == 3 &&
        strncmp(t.frac, "340", 3) == 0 && t.exp == -5);
  CHECK(base_dec_scan(".5", &t) == 0 && t.n_whole == 0 && t.n_frac == 1 && t.exp == 0);
  CHECK(base_dec_scan("5.", &t) == 0 && t.n_whole == 1 && t.n_frac == 0 && !t.neg);
  CHECK(base_dec_scan("1e99999999999", &t) == 0 && t.exp >= BASE_DEC_EXP_CAP); /* capped */
  /* one number, four readers: -12.340e-5 = -1.234e-4 */
  CHECK(job_dec_parse("-12.340e-5", &d) == 0 && d.neg && strcmp(d.digits, "1234") == 0 &&
        d.exp == -7);
  CHECK(eng_num_real("-12.340e-5", -1, 1, &x) == 0 && x == -1.234e-4);
  CHECK(base_dec_real("-12.340e-5") == -1.234e-4);
  CHECK_EQ_I64(base_dec_scaled("12.340e-5", 12), 123400000); /* ps */
  CHECK_EQ_I64(base_dec_scaled("-12.340e-5", 12), -1);
  return mvtest_end();
}
