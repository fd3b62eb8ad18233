/* base: messages of one line (base_err.h). */
#include <stdio.h>

#include "base/base_err.h"

void base_oneline(char *s, long n) {
  for (long i = 0; s && (n < 0 ? s[i] != '\0' : i < n); i++)
    if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f) s[i] = '?';
}

void base_verrf(char *err, size_t errlen, const char *fmt, va_list ap) {
  if (!err || !errlen) return;
  vsnprintf(err, errlen, fmt, ap);
  base_oneline(err, -1);
}

void base_errf(char *err, size_t errlen, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  base_verrf(err, errlen, fmt, ap);
  va_end(ap);
}
