/* Numbers read whole, one parser for every input that is not JSON: command
 * line options, configuration files, environment variables. An integer is
 * decimal digits with an optional '-'; a number is [-]D[.D][(e|E)[+|-]D] (no
 * spaces, '+', hexadecimal, inf or nan); either must lie in [lo, hi]. */
#ifndef ENG_NUM_H
#define ENG_NUM_H

#ifdef __cplusplus
extern "C" {
#endif

/* 0 and *out, or -1 (out untouched). */
int eng_num_int(const char *s, long long lo, long long hi, long long *out);
int eng_num_real(const char *s, double lo, double hi, double *out);
/* Environment variable `name` as an integer in [lo, hi]: 0 with *out (def
 * when it is unset), -1 when it is set to anything else (*out = def). */
int eng_env_int(const char *name, long long lo, long long hi, long long def, long long *out);
/* A 0/1 switch: 1 only when `name` is set to 1. */
int eng_env_flag(const char *name);

#ifdef __cplusplus
}
#endif

#endif
