// SPDX-License-Identifier: GPL-2.0
#include "params.h"
#include "hex.h"
#include "module.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define RUST_MODULE "rust_module_parameters"
#define C_MODULE "rust_module_parameters_c"
#define VALUE_MAX 4096		/* a sysfs read returns at most a page */

/* The parameters both modules show in sysfs (the others have permissions 0). */
static const char *const readable[] = { "my_i32", "my_str", "my_usize" };
#define READABLE (sizeof(readable) / sizeof(readable[0]))

struct load_state {
	int err;		/* of the load or the sysfs write: 0 or an errno */
	bool half_loaded;	/* the load failed, yet /sys/module/<module> exists */
	char values[READABLE][VALUE_MAX + 1];
	int lengths[READABLE];
};

int params_decode(const char *arg, char *out, size_t size)
{
	size_t len = 0;

	for (const char *p = arg; *p; p++) {
		char c = *p, rc;
		int n = 1, rn, used = 0;

		if (p[0] == '\\' && p[1] == 'x' && hex_digit(p[2]) >= 0 && hex_digit(p[3]) >= 0) {
			c = (char)(hex_digit(p[2]) << 4 | hex_digit(p[3]));
			p += 3;
		} else if (p[0] == '\\' && p[1] == '\\') {
			p++;
		} else if (p[0] == '{' && sscanf(p, "{%c*%d}%n", &rc, &rn, &used) == 2 && used > 0) {
			c = rc;
			n = rn;
			p += used - 1;
		}
		if (n < 0 || len + n >= size)
			return -1;
		memset(out + len, c, n);
		len += n;
	}
	out[len] = '\0';
	return (int)len;
}

/* The whole content of /sys/module/<module>/parameters/<name>; its length or -1. */
static int read_param(const char *module, const char *name, char *buf)
{
	char path[200];
	int fd, n;

	snprintf(path, sizeof(path), "/sys/module/%s/parameters/%s", module, name);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	n = read(fd, buf, VALUE_MAX);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	return n;
}

static void read_params(const char *module, struct load_state *o)
{
	for (size_t i = 0; i < READABLE; i++)
		o->lengths[i] = read_param(module, readable[i], o->values[i]);
}

static int write_param(const char *module, const char *name, const char *value, int len)
{
	char path[200];
	int fd, err = 0;

	snprintf(path, sizeof(path), "/sys/module/%s/parameters/%s", module, name);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return errno;
	if (write(fd, value, len) != len)
		err = errno ? errno : EIO;
	close(fd);
	return err;
}

/* Start from module not loaded. */
static bool unloaded(const char *module, char *seen, size_t size)
{
	int err = module_loaded(module) ? module_unload(module) : 0;

	if (err)
		snprintf(seen, size, "%s was loaded and cannot be unloaded: %s", module, strerror(err));
	return err == 0;
}

/* Unload module after a check; false (and why in seen) if it cannot be. */
static bool unload(const char *module, char *seen, size_t size)
{
	int err = module_unload(module);

	if (err)
		snprintf(seen, size, "unload %s: %s", module, strerror(err));
	return err == 0;
}

/* Load module with params, note the outcome and the values, unload it. */
static bool load_outcome(const char *module, const char *params, struct load_state *o,
			 char *seen, size_t size)
{
	memset(o, 0, sizeof(*o));
	if (!unloaded(module, seen, size))
		return false;
	o->err = module_load(module, params);
	if (o->err) {
		o->half_loaded = module_loaded(module);
		return true;
	}
	read_params(module, o);
	return unload(module, seen, size);
}

/* "refused: <errno>" or "loaded: my_i32=..., ..." (values escaped, shortened). */
static void describe(const struct load_state *o, const char *what, char *out, size_t size)
{
	size_t len;

	if (o->err) {
		snprintf(out, size, "%s refused: %s%s", what, strerror(o->err),
			 o->half_loaded ? ", but the module is still there" : "");
		return;
	}
	len = snprintf(out, size, "%s done:", what);
	for (size_t i = 0; i < READABLE && len < size; i++) {
		len += snprintf(out + len, size - len, " %s=", readable[i]);
		for (int j = 0; j < o->lengths[i] && j < 40 && len + 5 < size; j++) {
			unsigned char c = o->values[i][j];

			len += snprintf(out + len, size - len, c >= ' ' && c < 0x7f ? "%c" : "\\x%02x", c);
		}
		if (o->lengths[i] > 40 && len + 20 < size)
			len += snprintf(out + len, size - len, "...(%d bytes)", o->lengths[i]);
	}
}

static bool same(const struct load_state *a, const struct load_state *b)
{
	if (a->err != b->err || a->half_loaded || b->half_loaded)
		return false;
	for (size_t i = 0; i < READABLE; i++)
		if (a->lengths[i] != b->lengths[i] ||
		    (a->lengths[i] > 0 && memcmp(a->values[i], b->values[i], a->lengths[i]) != 0))
			return false;
	return true;
}

static bool compare(const struct load_state *c, const struct load_state *rust, const char *what,
		    char *expected, char *seen, size_t size)
{
	char desc[400];

	describe(c, what, desc, sizeof(desc));
	snprintf(expected, size, "as " C_MODULE ": %s", desc);
	describe(rust, what, desc, sizeof(desc));
	snprintf(seen, size, RUST_MODULE ": %s", desc);
	return same(c, rust);
}

bool probe_param_twin(const char *args, char *expected, char *seen, size_t size)
{
	static struct load_state c, rust;
	static char params[8192];

	if (params_decode(args, params, sizeof(params)) < 0) {
		snprintf(seen, size, "bad arguments '%s'", args);
		return false;
	}
	if (!load_outcome(C_MODULE, params, &c, seen, size) ||
	    !load_outcome(RUST_MODULE, params, &rust, seen, size))
		return false;
	return compare(&c, &rust, "load", expected, seen, size);
}

/* Load module with its defaults, write value to name, note the outcome, unload it. */
static bool write_outcome(const char *module, const char *name, const char *value, int len,
			  struct load_state *o, char *seen, size_t size)
{
	int err;

	memset(o, 0, sizeof(*o));
	if (!unloaded(module, seen, size))
		return false;
	err = module_load(module, "");
	if (err) {
		snprintf(seen, size, "load %s: %s", module, strerror(err));
		return false;
	}
	o->err = write_param(module, name, value, len);
	read_params(module, o);
	return unload(module, seen, size);
}

bool probe_param_write_twin(const char *args, char *expected, char *seen, size_t size)
{
	static struct load_state c, rust;
	static char value[8192];
	char name[64];
	int n = 0, len;

	if (sscanf(args, "%63s %n", name, &n) != 1 || n == 0 ||
	    (len = params_decode(args + n, value, sizeof(value))) < 0) {
		snprintf(seen, size, "bad arguments '%s'", args);
		return false;
	}
	if (!write_outcome(C_MODULE, name, value, len, &c, seen, size) ||
	    !write_outcome(RUST_MODULE, name, value, len, &rust, seen, size))
		return false;
	return compare(&c, &rust, "write", expected, seen, size);
}
