/* base: input files are regular files: a device, a pipe or a folder named as a
 * topology, flow file, workload or log is refused when it is opened (a
 * /dev/zero topology grew without bound, a /dev/zero flow file spun
 * forever; experiment ids read a file twice, which a pipe cannot give). */
#ifndef BASE_FILE_H
#define BASE_FILE_H

#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* fopen(path, mode) of a regular file; NULL with the reason in `why` (the
 * system's, or "a device, not a regular file", ...). */
FILE *base_fopen_input(const char *path, const char *mode, char *why, size_t len);
/* 0 if `path` is a regular file or does not exist (its reader then says
 * so), else -1 with the reason in `why` (for readers that open it
 * themselves, such as jansson's). */
int base_input_regular(const char *path, char *why, size_t len);
/* A text read line by line, from a private, NUL-terminated copy. */
typedef struct base_text_t {
  const char *path;
  char *buf; /* the caller frees it */
  size_t len, pos;
  int line; /* of the line last read, 1-based */
} base_text_t;
/* *f: a private, NUL-terminated copy of the text[0..len) read from `path`,
 * at its start (free f->buf); -1 with "PATH:LINE: a NUL byte: this is not a
 * text file" (a NUL inside the text) or "PATH: out of memory" in err. */
int base_text_open(base_text_t *f, const char *path, const char *text, size_t len, char *err,
                   size_t errlen);
/* Splits the next non-blank line into at most max tokens (in place); returns
 * the number of tokens on it (which may exceed max), or -1 at the end of the
 * text. */
int base_text_tokens(base_text_t *f, char **tok, int max);

#ifdef __cplusplus
}
#endif

#endif
