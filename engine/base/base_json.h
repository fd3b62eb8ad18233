/* base: what every JSON reader shares: a file loaded with one-line messages
 * (and refused when it is not a regular file: base_file.h), and a value
 * described for a message. */
#ifndef BASE_JSON_H
#define BASE_JSON_H

#include <jansson.h>
#include <stddef.h>

/* The JSON document in the regular file `path`, decoded with jansson's
 * `flags` (JSON_REJECT_DUPLICATES, or 0; the caller decrefs it), or NULL with
 * "PATH:LINE: why" (a syntax error) or "PATH: why" (not a regular file, or it
 * cannot be read) in err. */
json_t *base_json_load(const char *path, size_t flags, char *err, size_t errlen);
/* A short description of v for messages: 5, 4.5, "x" (40 bytes at most),
 * true, null, an array, an object; numbers and strings are written in buf. */
const char *base_json_describe(const json_t *v, char *buf, size_t len);

#endif
