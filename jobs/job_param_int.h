/* Internal to jobs/job_param*.c, job_canon*.c, job_id*.c: the key table
 * generated from ENG_PARAMS and CC_PARAMS, exact decimals, a growing text
 * buffer. */
#ifndef JOB_PARAM_INT_H
#define JOB_PARAM_INT_H

#include "jobs/job.h"

/* How a user's value becomes the stored one (the unit column of ENG_PARAMS). */
typedef enum job_unit_t {
  JOB_U_COUNT,     /* int32, an integer */
  JOB_U_BOOL,      /* int32 0/1: true/false (--set also on/off, 1/0) */
  JOB_U_KIB,       /* int64 bytes given in KiB, to the nearest byte; negative: -1 */
  JOB_U_MIB,       /* int64 bytes given in MiB, to the nearest byte */
  JOB_U_US,        /* int64 ps given in us, exactly */
  JOB_U_S,         /* int64 ps given in s, exactly */
  JOB_U_REAL,      /* double */
  JOB_U_MBPS,      /* double bit/s given in Mb/s; negative: -1 */
  JOB_U_Q16,       /* int64 value * 2^16, to the nearest */
  JOB_U_LB,        /* int32 eng_lb_t by name */
  JOB_U_MODEL,     /* int32 eng_model_t by name */
  JOB_U_CC,        /* cc_params_t: "none" or a preset's name */
  JOB_U_ECN_TABLE, /* eng_ecn_table_t: {"GBPS": [kmin_KB, kmax_KB, pmax], ...} */
} job_unit_t;

typedef struct job_key_t {
  const char *name;
  job_unit_t unit;
  size_t off;      /* of its storage in eng_params_t */
  int32_t cc_kind; /* CC_NONE: a network key; else the kind whose presets set it */
} job_key_t;

extern const job_key_t job_keys[];
extern const int job_n_keys;
/* Names of the values of `cc` (cc_kind_t), `lb` (eng_lb_t) and `model`
 * (eng_model_t). */
#define JOB_CC_KINDS (CC_HPCC + 1)
extern const char *const job_cc_names[JOB_CC_KINDS];
#define JOB_LBS (ENG_LB_ADAPTIVE + 1)
extern const char *const job_lb_names[JOB_LBS];
#define JOB_MODELS (ENG_MODEL_FLOW + 1)
extern const char *const job_model_names[JOB_MODELS];
const job_key_t *job_key_find(const char *name);

/* The pseudo-key of network presets (not a parameter). */
#define JOB_PRESET_KEY "preset"
/* job_param_netpre.c: the `presets` member of the presets file into ps->net
 * (obj NULL: none). 0 or -1 with a message naming the file and JSON path. */
int job_net_presets_load(const char *path, const json_t *obj, job_presets_t *ps, char *err,
                         size_t errlen);

/* Stores `text` (--set) or `json` (a job file) into key k; 0, or -1 with the
 * bare reason in `why`. */
int job_key_apply(const job_presets_t *ps, eng_params_t *p, const job_key_t *k, const char *text,
                  const json_t *json, char *why, size_t len);

/* Makes a message one line: control characters (from quoted input) become '?'.
 * Returns -1, for `return job_oneline(err);`. */
int job_oneline(char *err);

/* A decimal number: (neg ? -1 : 1) * digits * 10^exp, digits without leading
 * or trailing zeros ("" is zero). */
#define JOB_DEC_DIGITS 36
typedef struct job_dec_t {
  int neg;
  int n; /* digits */
  char digits[JOB_DEC_DIGITS + 1];
  int exp;
} job_dec_t;

/* Parses [-]D[.D][(e|E)[+|-]D]; 0, or -1 if malformed or longer than
 * JOB_DEC_DIGITS significant digits. */
int job_dec_parse(const char *s, job_dec_t *d);
/* The shortest decimal that reads back (strtod) as x; -1 if not finite. */
int job_dec_from_double(double x, job_dec_t *d);
/* round(d * 2^pow2 * 10^scale10) into *out; `exact`: a remainder is an error
 * instead of rounding (half away from zero). 0 or -1 (inexact, overflow). */
int job_dec_to_int(const job_dec_t *d, int pow2, int scale10, int exact, int64_t *out);
/* The double nearest d * 10^scale10. */
double job_dec_to_double(const job_dec_t *d, int scale10);
/* The exact decimal of v / (2^pow2 * 10^scale10). */
void job_dec_of_int(int64_t v, int pow2, int scale10, job_dec_t *d);
/* Writes d as a JSON number (plain notation unless very large or small) into
 * buf (80 bytes suffice). */
void job_dec_format(const job_dec_t *d, char *buf, size_t len);

/* A row of ecn_by_link_gbps, in words (messages and docs). */
#define JOB_ECN_ROW_RANGE                                                                          \
  "a speed of 1 to 1000000 Gb/s, 0 <= kmin_KB <= kmax_KB <= 2097152 (2 GiB), pmax 0 to 1"

/* The range of a numeric key in its user's unit (its row's, eng_params.h);
 * NULL for a key that is not a number or not a key. */
const eng_range_t *job_range_find(const char *key);

/* Checks the decimal d given for key k of parameters p, written `text`
 * (--set; NULL: JSON); a key of another congestion control than p's may also
 * be 0 (what presets leave there). 0 in range, 1 the derived -1, -1 out of
 * range with "VALUE is out of range: RANGE" in why. */
int job_range_check(const job_key_t *k, const eng_params_t *p, const job_dec_t *d, const char *text,
                    char *why, size_t len);
/* For a value that rounded to 0 in its stored unit: -1 with the reason when
 * the key's range excludes 0, else 0. */
int job_range_zero(const job_key_t *k, const eng_params_t *p, char *why, size_t len);

/* A growing string; `oom` once an allocation failed (the text is then lost). */
typedef struct job_buf_t {
  char *s;
  size_t n, cap;
  int oom;
} job_buf_t;

void job_buf_add(job_buf_t *b, const char *s, size_t n);
void job_buf_puts(job_buf_t *b, const char *s);
void job_buf_printf(job_buf_t *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* s as a JSON string literal. */
void job_buf_json_string(job_buf_t *b, const char *s);
/* v in canonical form: sorted keys, compact, shortest exact numbers. */
void job_buf_json(job_buf_t *b, const json_t *v);
/* The text (malloc'd, NUL-terminated), or NULL after an allocation failure;
 * the buffer is emptied either way. */
char *job_buf_take(job_buf_t *b);

/* Members of a JSON object being written canonically: key and value text. */
typedef struct job_member_t {
  const char *key;
  char *value; /* malloc'd JSON text */
} job_member_t;

/* The parameters' members (every key, value in the user's units), appended
 * to m (room for job_n_keys); returns how many, -1 when out of memory. */
int job_params_members(const eng_params_t *p, job_member_t *m);
/* Appends member `key` with the canonical text of v (v consumed; NULL: out of
 * memory) at m[*n]; 0 or -1. */
int job_member_json(job_member_t *m, int *n, const char *key, json_t *v);
/* {"k":v,...} of n members in sorted key order; frees the values. */
char *job_members_object(job_member_t *m, int n);

#endif
