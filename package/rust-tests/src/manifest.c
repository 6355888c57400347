// SPDX-License-Identifier: GPL-2.0
#include "manifest.h"
#include "probes.h"
#include "params.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const names[] = {
	[ACTION_KUNIT] = "kunit", [ACTION_CONFIG] = "config", [ACTION_LOAD] = "load",
	[ACTION_UNLOAD] = "unload", [ACTION_CYCLE] = "cycle", [ACTION_DMESG] = "dmesg",
	[ACTION_BOOTLOG] = "bootlog", [ACTION_EXISTS] = "exists", [ACTION_ABSENT] = "absent",
	[ACTION_READ] = "read", [ACTION_RUN] = "run", [ACTION_CHECK] = "check",
	[ACTION_CMDLINE] = "cmdline", [ACTION_ARCH] = "arch", [ACTION_EXPECT] = "expect",
};

const char *action_name(enum action a)
{
	return names[a];
}

const char *step_name(const struct step *c)
{
	static char name[600];

	snprintf(name, sizeof(name), "%s%s%s", names[c->action], c->arg[0] ? ": " : "", c->arg);
	return name;
}

int manifest_parse_line(const char *line, struct step *c)
{
	char action[32];
	int n = 0;

	line += strspn(line, " \t");
	if (*line == '\0' || *line == '\n' || *line == '#')
		return 1;
	memset(c, 0, sizeof(*c));
	if (sscanf(line, "%127s %31s %n", c->test, action, &n) != 2)
		return -1;
	snprintf(c->arg, sizeof(c->arg), "%s", line + n);
	c->arg[strcspn(c->arg, "\n")] = '\0';
	for (size_t a = 0; a < sizeof(names) / sizeof(names[0]); a++) {
		if (strcmp(action, names[a]) == 0) {
			c->action = a;
			/* these need an argument */
			if (!c->arg[0] && a != ACTION_LOAD && a != ACTION_UNLOAD)
				return -1;
			return 0;
		}
	}
	return -1;
}

static int load_file(const char *path, struct manifest *m);

const char *manifest_step_error(const struct step *c)
{
	char params[4096], *end;

	switch (c->action) {
	case ACTION_LOAD:
		if (params_decode(c->arg, params, sizeof(params)) < 0)
			return "load arguments that do not decode (\\xNN, {c*N}) into 4096 bytes";
		break;
	case ACTION_CYCLE:
		if (strtol(c->arg, &end, 10) <= 0 || *end)
			return "cycle needs a positive number of times";
		break;
	case ACTION_READ:
		if (!strpbrk(c->arg, " \t"))
			return "read needs a path and the value of its first line";
		break;
	case ACTION_CHECK:
		if (!probe_known(c->arg))
			return "no such probe (probes.c)";
		break;
	default:
		break;
	}
	return NULL;
}

static int drop_in(const struct dirent *e)
{
	size_t n = strlen(e->d_name);

	return e->d_name[0] != '.' && e->d_name[n - 1] != '~';
}

/* include DIR: the files of DIR (relative to the including manifest's
 * directory), in name order; no DIR, no files. */
static int load_dir(const char *path, const char *dir, struct manifest *m)
{
	char full[1024];
	struct dirent **names;
	int n, rc = 0;
	const char *slash = strrchr(path, '/');
	int base = dir[0] != '/' && slash ? (int)(slash + 1 - path) : 0;

	snprintf(full, sizeof(full), "%.*s%s", base, path, dir);
	n = scandir(full, &names, drop_in, alphasort);
	if (n < 0)
		return errno == ENOENT ? 0 : (perror(full), -1);
	for (int i = 0; i < n; i++) {
		char file[1280];

		snprintf(file, sizeof(file), "%s/%s", full, names[i]->d_name);
		if (rc == 0)
			rc = load_file(file, m);
		free(names[i]);
	}
	free(names);
	return rc;
}

static int add_step(struct manifest *m, const struct step *c)
{
	struct step *steps = realloc(m->steps, (m->count + 1) * sizeof(*steps));

	if (!steps)
		return -1;
	m->steps = steps;
	m->steps[m->count++] = *c;
	return 0;
}

static int load_file(const char *path, struct manifest *m)
{
	char line[1024], dir[512];
	int number = 0, rc = 0;
	FILE *f = fopen(path, "r");

	if (!f) {
		perror(path);
		return -1;
	}
	while (rc == 0 && fgets(line, sizeof(line), f)) {
		struct step c;
		int parsed = manifest_parse_line(line, &c);

		number++;
		if (parsed > 0)
			continue;
		if (strncmp(line, "include", 7) == 0 && strchr(" \t", line[7]) &&
		    sscanf(line + 7, "%511s", dir) == 1) {
			rc = load_dir(path, dir, m);
			continue;
		}
		if (parsed < 0 || manifest_step_error(&c)) {
			fprintf(stderr, "%s:%d: %s: %s", path, number,
				parsed < 0 ? "not '<test> <action> [argument]'" : manifest_step_error(&c),
				line);
			rc = -1;
			break;
		}
		snprintf(c.origin, sizeof(c.origin), "%.150s:%d", path, number);
		rc = add_step(m, &c);
	}
	fclose(f);
	return rc;
}

#define STRINGIFY_(x) #x
#define STRINGIFY(x) STRINGIFY_(x)

/* Why the test (group) from start to end is malformed, or NULL. */
static const char *group_error(const struct manifest *m, size_t start, size_t end, size_t *at)
{
	enum action first = m->steps[start].action;
	size_t expects = first == ACTION_EXPECT;

	for (size_t i = 0; i < start; i++) {
		*at = start;
		if (strcmp(m->steps[i].test, m->steps[start].test) == 0)
			return "a test's lines must be together (it has lines above)";
	}
	for (*at = start + 1; *at < end; (*at)++) {
		enum action a = m->steps[*at].action;

		if (a == ACTION_ARCH)
			return "arch must be the first line of its test";
		if (first == ACTION_KUNIT || a == ACTION_KUNIT)
			return "kunit must be alone in its test";
		if ((first == ACTION_CONFIG) != (a == ACTION_CONFIG))
			return "config lines form a test of their own";
		if (m->steps[*at - 1].action == ACTION_EXPECT && a != ACTION_EXPECT)
			return "expect lines end their test";
		if (a == ACTION_EXPECT && ++expects > MANIFEST_MAX_EXPECT)
			return "at most " STRINGIFY(MANIFEST_MAX_EXPECT) " expect lines in a test";
	}
	return NULL;
}

int manifest_load(const char *path, struct manifest *m)
{
	memset(m, 0, sizeof(*m));
	if (load_file(path, m) < 0) {
		manifest_free(m);
		return -1;
	}
	for (size_t s = 0, e, at; s < m->count; s = e) {
		const char *error;

		e = manifest_group_end(m, s);
		error = group_error(m, s, e, &at);
		if (error) {
			fprintf(stderr, "%s: %s: %s\n", m->steps[at].origin, error, m->steps[at].test);
			manifest_free(m);
			return -1;
		}
	}
	return 0;
}

void manifest_list(const struct manifest *m, const char *machine, FILE *out)
{
	char value[256];

	if (machine)
		fprintf(out, "machine %s\n", machine);
	for (size_t s = 0, e; s < m->count; s = e) {
		bool on = !machine || manifest_group_on(m, s, machine, value, sizeof(value));

		e = manifest_group_end(m, s);
		fprintf(out, "%s %s\n", on ? "test" : "skip", m->steps[s].test);
		for (size_t i = s; i < e; i++) {
			const struct step *c = &m->steps[i];

			fprintf(out, "line %zu %s %s\n", i - s + 1, names[c->action], c->origin);
			if (!on)
				continue;
			if (c->action == ACTION_LOAD || c->action == ACTION_CYCLE)
				fprintf(out, "module %.*s\n", (int)strcspn(c->test, "@"), c->test);
			else if (c->action == ACTION_CMDLINE)
				fprintf(out, "cmdline %s\n", c->arg);
		}
	}
}

bool manifest_group_on(const struct manifest *m, size_t start, const char *machine,
		       char *value, size_t size)
{
	const struct step *first = &m->steps[start];

	snprintf(value, size, "%s", "");
	return first->action != ACTION_ARCH || machine_listed(first->arg, machine, value, size);
}

size_t manifest_group_end(const struct manifest *m, size_t start)
{
	size_t end = start + 1;

	while (end < m->count && strcmp(m->steps[end].test, m->steps[start].test) == 0)
		end++;
	return end;
}

void manifest_free(struct manifest *m)
{
	free(m->steps);
	m->steps = NULL;
	m->count = 0;
}

bool machine_listed(const char *list, const char *machine, char *value, size_t size)
{
	size_t n = strlen(machine);

	if (*list == '!') {	/* every machine but those */
		snprintf(value, size, "%s", "");
		return !machine_listed(list + 1, machine, value, size);
	}
	for (const char *p = list; *p; p += strcspn(p, ",")) {
		p += *p == ',';
		if (strncmp(p, machine, n) != 0 || !strchr(",=", p[n]))
			continue;
		if (p[n] == '=')
			snprintf(value, size, "%.*s", (int)strcspn(p + n + 1, ","), p + n + 1);
		else
			snprintf(value, size, "%s", "");
		return true;
	}
	return false;
}

bool expand_value(char *s, size_t size, const char *value)
{
	char out[1024];
	size_t len = 0;

	for (const char *p = s; *p; p++) {
		bool token = p[0] == '{' && p[1] == '}';
		const char *piece = token ? value : p;
		size_t n = token ? strlen(value) : 1;

		if (len + n >= sizeof(out) || len + n >= size)
			return false;
		memcpy(out + len, piece, n);
		len += n;
		p += token;
	}
	out[len] = '\0';
	memcpy(s, out, len + 1);
	return true;
}
