/* base: messages of one line. Every parser's error text is formatted here, so
 * whatever an input quotes in it (a key "a\nb") cannot break the line. */
#ifndef BASE_ERR_H
#define BASE_ERR_H

#include <stdarg.h>
#include <stddef.h>

/* printf into err (errlen bytes; nothing when err is NULL or errlen 0), then
 * base_oneline. */
void base_errf(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void base_verrf(char *err, size_t errlen, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));
/* Control characters of s[0..n) (n < 0: up to its '\0') become '?'. */
void base_oneline(char *s, long n);

#endif
