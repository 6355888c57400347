// SPDX-License-Identifier: GPL-2.0
#include "manifest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const names[] = {
	[ACTION_KUNIT] = "kunit", [ACTION_CONFIG] = "config", [ACTION_LOAD] = "load",
	[ACTION_UNLOAD] = "unload", [ACTION_CYCLE] = "cycle", [ACTION_DMESG] = "dmesg",
	[ACTION_BOOTLOG] = "bootlog", [ACTION_EXISTS] = "exists", [ACTION_ABSENT] = "absent",
	[ACTION_READ] = "read", [ACTION_RUN] = "run", [ACTION_CHECK] = "check",
	[ACTION_ARCH] = "arch",
};

const char *action_name(enum action a)
{
	return names[a];
}

const char *check_name(const struct check *c)
{
	static char name[600];

	snprintf(name, sizeof(name), "%s%s%s", names[c->action], c->arg[0] ? ": " : "", c->arg);
	return name;
}

int manifest_parse_line(const char *line, struct check *c)
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

int manifest_load(const char *path, struct manifest *m)
{
	char line[1024];
	int number = 0;
	FILE *f = fopen(path, "r");

	memset(m, 0, sizeof(*m));
	if (!f) {
		perror(path);
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		struct check c, *checks;
		int rc = manifest_parse_line(line, &c);

		number++;
		if (rc > 0)
			continue;
		if (rc < 0) {
			fprintf(stderr, "%s:%d: not '<test> <action> [argument]': %s", path, number, line);
			fclose(f);
			manifest_free(m);
			return -1;
		}
		c.line = number;
		checks = realloc(m->checks, (m->count + 1) * sizeof(*checks));
		if (!checks) {
			fclose(f);
			manifest_free(m);
			return -1;
		}
		m->checks = checks;
		m->checks[m->count++] = c;
	}
	fclose(f);
	return 0;
}

size_t manifest_group_end(const struct manifest *m, size_t start)
{
	size_t end = start + 1;

	while (end < m->count && strcmp(m->checks[end].test, m->checks[start].test) == 0)
		end++;
	return end;
}

void manifest_free(struct manifest *m)
{
	free(m->checks);
	m->checks = NULL;
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
