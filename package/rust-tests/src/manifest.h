/* SPDX-License-Identifier: GPL-2.0 */
/* The test manifest: "<test> <action> [argument]" lines. */
#ifndef MANIFEST_H
#define MANIFEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

enum action {
	ACTION_KUNIT,	/* kunit SUITE: the suite's debugfs results (alone in its test) */
	ACTION_CONFIG,	/* config CONFIG_X=v: a line of /proc/config.gz */
	ACTION_LOAD,	/* load [PARAMS]: load the test's module (finit_module; PARAMS as params_decode()) */
	ACTION_UNLOAD,	/* unload: unload it (delete_module, as rmmod) */
	ACTION_CYCLE,	/* cycle N: load and unload it N times */
	ACTION_DMESG,	/* dmesg TEXT: a kernel log line since the test began contains TEXT */
	ACTION_BOOTLOG,	/* bootlog TEXT: a kernel log line since boot contains TEXT */
	ACTION_EXISTS,	/* exists PATH */
	ACTION_ABSENT,	/* absent PATH */
	ACTION_READ,	/* read PATH VALUE: the file's first line is VALUE */
	ACTION_RUN,	/* run COMMAND: sh -c COMMAND exits 0 */
	ACTION_CHECK,	/* check NAME [ARGS]: run the probe NAME of probes.c (a behaviour check) */
	ACTION_CMDLINE,	/* cmdline WORD: the kernel command line has WORD (the harness puts every
			 * cmdline line's WORD there: test inputs beside their expectations) */
	ACTION_ARCH,	/* arch M[=V][,M[=V]...] (first in its test): only on those `uname -m` ("um" under
			 * UML), else SKIP; "{}" in the test's later arguments is this machine's V;
			 * arch !M[,M...]: on every machine but those */
	ACTION_EXPECT,	/* expect TEXT (last in its test): a kernel problem report since the test
			 * began contains TEXT. That report (its line, then its call trace) is the
			 * test's outcome, not a problem: "kernel clean" and the harness, which reads
			 * this line's result, leave it out, with the W taint it adds */
};

/* The problem reports one test may expect ("expect" lines) */
#define MANIFEST_MAX_EXPECT 16

/* One line of the manifest: a step of a top-level test, its subtest N */
struct step {
	char test[128];		/* "<module>" or "<module>@<variant>" */
	enum action action;
	char arg[512];
	char origin[176];	/* "<file>:<line>", for messages */
};

struct manifest {
	struct step *steps;
	size_t count;
};

/*
 * Parse a manifest file, and the files of the directories its "include DIR"
 * lines name ("include" at the start of the line; relative to its own
 * directory; name order; a missing one is empty), then check the shape of
 * its tests: a test's lines are consecutive, "arch" only first in its test,
 * "kunit" alone in its test, "config" only with "config", "expect" only
 * after its test's other lines. Prints the
 * offending line and returns -1 on error. The one grammar of the manifest:
 * the harness's reader must agree with it on testdata/conformance/.
 */
int manifest_load(const char *path, struct manifest *m);
/*
 * Whether the test (group) at start runs on machine (its "arch" line, if
 * any); its value for "{}" (or "") in value[size].
 */
bool manifest_group_on(const struct manifest *m, size_t start, const char *machine,
		       char *value, size_t size);
/*
 * The manifest as the build host and the harness read it (manifest-list;
 * testdata/conformance/expected), one item per line:
 *   machine M		first, if listed for machine M (NULL: every test runs)
 *   test NAME		a top-level test that runs on the machine, or
 *   skip NAME		one its "arch" line skips there; then, for each of its lines:
 *   line N ACTION ORIGIN	its N-th line, the runner's subtest N: the action and
 *			"<file>:<line>" (the rest of the line)
 *   module NAME	(a test that runs) this line loads its module (load, cycle)
 *   cmdline WORD	(a test that runs) this line expects WORD on the kernel
 *			command line
 */
void manifest_list(const struct manifest *m, const char *machine, FILE *out);
/* Parse one line into a step; 0 if a step, 1 if blank or comment, -1 if invalid. */
int manifest_parse_line(const char *line, struct step *c);
/* Why a parsed step's argument is invalid for its action, or NULL. */
const char *manifest_step_error(const struct step *c);
/* Index after the group (a top-level test) of consecutive steps with the same test as start. */
size_t manifest_group_end(const struct manifest *m, size_t start);
void manifest_free(struct manifest *m);
const char *action_name(enum action a);
/* A subtest name for a step: "dmesg: TEXT", "load", ... */
const char *step_name(const struct step *c);
/*
 * Whether machine is one of list's comma-separated "name" or "name=value"
 * items ("arch" action); its value (or "") in value[size]. A list that
 * starts with '!' names the machines it excludes (no values).
 */
bool machine_listed(const char *list, const char *machine, char *value, size_t size);
/* s[size] with every "{}" replaced by value; false if it did not fit. */
bool expand_value(char *s, size_t size, const char *value);

#endif
