/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Module parameter checks: rust_module_parameters against its C twin,
 * rust_module_parameters_c (the same parameters with module_param()).
 */
#ifndef PARAMS_H
#define PARAMS_H

#include <stdbool.h>
#include <stddef.h>

/* param-twin ARGS: loading both with ARGS has the same outcome. */
bool probe_param_twin(const char *args, char *expected, char *seen, size_t size);
/* param-write-twin NAME VALUE: writing VALUE to NAME in sysfs has the same outcome. */
bool probe_param_write_twin(const char *args, char *expected, char *seen, size_t size);
/*
 * Decode an argument of these checks into out[size]: \xNN is that byte, \\ a
 * backslash, {c*N} the character c N times. Returns its length, or -1.
 */
int params_decode(const char *arg, char *out, size_t size);

#endif
