/* The one decimal grammar (engine/base: base_dec_scan) and its readers: job
 * files' exact decimals (job_dec_parse), floating-point numbers of options,
 * configuration and topology files and nccl-tests logs (base_dec_real, under
 * eng_num_real's range), exact times (base_dec_scaled). Each string below is
 * a number for all of them or for none (base_dec_scaled also refuses a sign),
 * and the parts the scan gives are the ones written; base_dec_shortest prints
 * a double back as the fewest digits that read as it. */
#include <math.h>
#include <stdio.h>
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

/* strings and the doubles the compiler reads them as: exact equality */
static const struct {
  const char *s;
  double x;
} reals[] = {{"0.1", 0.1},
             {"1e-3", 1e-3},
             {"-12.340e-5", -1.234e-4},
             {"2.5", 2.5},
             {"5.", 5.0},
             {".5", 0.5},
             {"-.5", -0.5},
             {"1E+3", 1e3},
             {"1.5e-2", 1.5e-2},
             {"007", 7.0},
             {"9.9E9", 9.9e9},
             {"0.3", 0.3},
             {"123456789.123456789", 123456789.123456789},
             {"1e-300", 1e-300}};

int main(void) {
  base_dec_text_t t;
  job_dec_t d;
  double x;
  for (size_t i = 0; i < sizeof numbers / sizeof *numbers; i++) {
    const char *s = numbers[i];
    CHECK(base_dec_scan(s, &t) == 0);
    CHECK(job_dec_parse(s, &d) == 0);
    CHECK(eng_num_real(s, -1e300, 1e300, &x) == 0);
    if (s[0] != '-') CHECK(base_dec_scaled(s, 12) != -1); /* 9.9E9 s: too large */
  }
  for (size_t i = 0; i < sizeof reals / sizeof *reals; i++) {
    if (base_dec_real(reals[i].s) != reals[i].x ||
        eng_num_real(reals[i].s, -1e300, 1e300, &x) != 0 || x != reals[i].x) {
      fprintf(stderr, "'%s' not read as %.17g\n", reals[i].s, reals[i].x);
      mvtest_failures++;
    }
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
  /* the shortest decimal of a double: an integer's digits, else the fewest
   * significant digits that read back, for 0.1 + 0.2 all 17 */
  char buf[64];
  base_dec_shortest(5.0, buf, sizeof buf);
  CHECK_STR_EQ(buf, "5");
  base_dec_shortest(-0.0, buf, sizeof buf);
  CHECK_STR_EQ(buf, "0");
  base_dec_shortest(0.1, buf, sizeof buf);
  CHECK_STR_EQ(buf, "1e-01");
  base_dec_shortest(0.1 + 0.2, buf, sizeof buf);
  CHECK_STR_EQ(buf, "3.0000000000000004e-01");
  base_dec_shortest(1e300, buf, sizeof buf);
  CHECK_STR_EQ(buf, "1e+300");
  base_dec_shortest(9007199254740993.0 * 4, buf, sizeof buf); /* 2^55 + 4: past 2^53 */
  CHECK_STR_EQ(buf, "3.602879701896397e+16");
  for (int i = 1; i < 2000; i++) { /* reads back, and one digit fewer would not */
    double v = 1.0 / i * (i % 7 + 1) * pow(10, i % 40 - 20);
    base_dec_shortest(v, buf, sizeof buf);
    CHECK(base_dec_real(buf) == v);
    const char *e = strchr(buf, 'e');
    int digits = e ? (int)(e - buf) - (strchr(buf, '.') != NULL) : 0;
    if (digits > 1) {
      char fewer[64];
      snprintf(fewer, sizeof fewer, "%.*e", digits - 2, v);
      CHECK(base_dec_real(fewer) != v);
    }
  }
  return mvtest_end();
}
