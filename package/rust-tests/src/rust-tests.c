// SPDX-License-Identifier: GPL-2.0
/*
 * rust-tests: the on-target runner of the boot tests.
 *
 * Reads a manifest (data: one step per line, "<test> <action> [argument]";
 * consecutive lines with the same <test> form one top-level KTAP test) and
 * prints KTAP results. For a test that loads a module (or runs a behaviour
 * check, which may load one itself), a final subtest checks that the kernel
 * stayed clean: no new WARN/BUG/Oops/lockdep report in the
 * kernel log, taint unchanged, but for the report its "expect" lines
 * name. See docs/test-protocol.md.
 */
#include "probes.h"
#include "kmsg.h"
#include "ktap.h"
#include "manifest.h"
#include "module.h"
#include "params.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#define DEFAULT_MANIFEST "/usr/share/rust-tests/manifest"
#define KUNIT_DEBUGFS "/sys/kernel/debug/kunit"
/* With --quick, load/unload cycles run this many times at most. */
#define QUICK_CYCLES 3
/* What the test image says it is (post-build.sh writes it in every image) */
#define TEST_IMAGE_RELEASE "/etc/rust-qemu-release"

static bool quick;

struct group {
	const char *test;	/* top-level test name */
	char module[128];	/* module of "<module>[@variant]" */
	const struct step *steps;
	size_t count;
	struct kmsg_log log;	/* kernel log since the group started */
	int kmsg_fd;
	bool loaded;
	bool load_failed;
	char value[64];		/* this machine's value of the "arch" line, for "{}" */
};

static void diag(int depth, const char *expected, const char *seen)
{
	ktap_line(depth, "# expected: %s", expected);
	ktap_line(depth, "# seen: %s", seen);
}

/*
 * What one check of a module group found: ok; else what was expected and
 * what was seen; or a KTAP "SKIP ..." reason. The actions fill it, and
 * report() alone prints it, as every result line of the runner.
 */
struct outcome {
	bool ok;
	char skip[600];
	char expected[800];	/* as large as seen: probe_run() fills both */
	char seen[800];
};

static void fail(struct outcome *o, const char *expected, const char *seen)
{
	o->ok = false;
	snprintf(o->expected, sizeof(o->expected), "%s", expected);
	snprintf(o->seen, sizeof(o->seen), "%s", seen);
}

/* Prints one KTAP result line and, if it failed, what was expected and seen. */
static bool report(int depth, int number, const char *name, const struct outcome *o)
{
	ktap_result(depth, o->ok, number, name, o->skip[0] ? o->skip : NULL);
	if (!o->ok && (o->expected[0] || o->seen[0]))
		diag(depth, o->expected, o->seen);
	return o->ok;
}

/* An outcome of ok alone, or a SKIP with its reason. */
static struct outcome passed(const char *skip)
{
	struct outcome o = { .ok = true };

	snprintf(o.skip, sizeof(o.skip), "%s", skip ? skip : "");
	return o;
}

/* A failure, or (with NULL) a result that is what its subtests made it. */
static struct outcome result(bool ok, const char *expected, const char *seen)
{
	struct outcome o = { .ok = ok };

	if (!ok && expected)
		fail(&o, expected, seen);
	return o;
}

/* Run argv; its exit status, and its first output line in out. */
static int run(char *const argv[], char *out, size_t size)
{
	int pipefd[2], status;
	char rest[256];
	pid_t pid;
	ssize_t n;

	out[0] = '\0';
	if (pipe(pipefd) < 0)
		return -1;
	pid = fork();
	if (pid < 0) {
		close(pipefd[0]);
		close(pipefd[1]);
		return -1;
	}
	if (pid == 0) {
		dup2(pipefd[1], 1);
		dup2(pipefd[1], 2);
		close(pipefd[0]);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(pipefd[1]);
	n = read(pipefd[0], out, size - 1);
	out[n > 0 ? n : 0] = '\0';
	out[strcspn(out, "\n")] = '\0';
	while (read(pipefd[0], rest, sizeof(rest)) > 0)	/* the rest, unread, would block it */
		;
	close(pipefd[0]);
	if (waitpid(pid, &status, 0) < 0)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static int run_shell(const char *command, char *out, size_t size)
{
	char *argv[] = { "sh", "-c", (char *)command, NULL };

	return run(argv, out, size);
}

/* "O": an out-of-tree module was loaded (package/rust-module-example): not a problem */
#define TAINT_OOT_MODULE (1UL << 12)
/* "W": a warning was issued (an expected report's, "expect") */
#define TAINT_WARN (1UL << 9)

/* The kernel's taint flags, but TAINT_OOT_MODULE. */
static unsigned long taint(void)
{
	unsigned long value = 0;
	FILE *f = fopen("/proc/sys/kernel/tainted", "r");

	if (f) {
		if (fscanf(f, "%lu", &value) != 1)
			value = 0;
		fclose(f);
	}
	return value & ~TAINT_OOT_MODULE;
}

static bool read_file(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return false;
	n = fread(buf, 1, size - 1, f);
	buf[n] = '\0';
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return true;
}

/*
 * Whether this machine is one of list's: `uname -m`, or "um" under
 * User-Mode Linux (whose `uname -m` is the host's); its value in value[size].
 */
static bool on_machine(const char *list, char *value, size_t size)
{
	char line[200];
	bool uml = false;
	struct utsname u;
	FILE *f = fopen("/proc/cpuinfo", "r");

	while (f && !uml && fgets(line, sizeof(line), f))
		uml = strncmp(line, "vendor_id", 9) == 0 && strstr(line, ": User Mode Linux");
	if (f)
		fclose(f);
	if (uml)
		return machine_listed(list, "um", value, size);
	return uname(&u) == 0 && machine_listed(list, u.machine, value, size);
}

/*
 * Load and unload module times, with the system calls (no process per
 * cycle: this is a stress check of the module's init and exit paths).
 */
static bool module_cycle(const char *module, int times, int *done, char *why, size_t size)
{
	char path[600];
	int err;

	if (!module_path(module, path, sizeof(path))) {
		snprintf(why, size, "%s is not in modules.dep", module);
		return false;
	}
	for (*done = 0; *done < times; ++*done) {
		err = module_load_path(path, "");
		if (err) {
			snprintf(why, size, "load %.400s: %s", path, strerror(err));
			return false;
		}
		err = module_unload(module);
		if (err) {
			snprintf(why, size, "unload %s: %s", module, strerror(err));
			return false;
		}
	}
	return true;
}

/*
 * load [PARAMS]: the module (found in modules.dep) with PARAMS, decoded as
 * the param checks' arguments (\xNN, {c*N}), by the system call: no
 * process per load.
 */
static void act_load(struct group *g, const struct step *c, struct outcome *o)
{
	char params[4096], what[700];
	int err = params_decode(c->arg, params, sizeof(params)) < 0 ? E2BIG : module_load(g->module, params);

	o->ok = err == 0;
	g->loaded = o->ok;
	g->load_failed = !o->ok;
	if (!o->ok) {
		snprintf(what, sizeof(what), "load %s %s", g->module, c->arg);
		fail(o, what, err == ENOENT ? "no such module in modules.dep" : strerror(err));
	}
}

/* unload: as rmmod, by the system call */
static void act_unload(struct group *g, const struct step *c, struct outcome *o)
{
	int err = module_unload(g->module);

	(void)c;
	o->ok = err == 0;
	g->loaded = g->loaded && !o->ok;
	if (!o->ok)
		fail(o, "the module unloads", strerror(err));
}

static void act_cycle(struct group *g, const struct step *c, struct outcome *o)
{
	int times = atoi(c->arg), done = 0;
	char why[512], expected[64], seen[600];

	if (quick && times > QUICK_CYCLES)
		times = QUICK_CYCLES;
	o->ok = module_cycle(g->module, times, &done, why, sizeof(why));
	if (!o->ok) {
		snprintf(expected, sizeof(expected), "%d loads and unloads", times);
		snprintf(seen, sizeof(seen), "cycle %d: %s", done + 1, why);
		fail(o, expected, seen);
	}
}

/* A dmesg or bootlog check: a line of log contains the check's text. */
static void log_check(const struct step *c, const struct kmsg_log *log, const char *missing,
		      struct outcome *o)
{
	char expected[600];

	o->ok = kmsg_find(log, c->arg) != NULL;
	if (!o->ok) {
		snprintf(expected, sizeof(expected), "a kernel log line containing '%s'", c->arg);
		fail(o, expected, missing);
	}
}

static void act_dmesg(struct group *g, const struct step *c, struct outcome *o)
{
	log_check(c, &g->log, "no such line since the test started", o);
}

static void act_expect(struct group *g, const struct step *c, struct outcome *o)
{
	char expected[600];

	o->ok = kmsg_find_report(&g->log, c->arg) != NULL;
	if (!o->ok) {
		snprintf(expected, sizeof(expected), "a kernel problem report containing '%s'", c->arg);
		fail(o, expected, "none since the test started");
	}
}

static void act_bootlog(struct group *g, const struct step *c, struct outcome *o)
{
	struct kmsg_log boot = { 0 };
	int fd = kmsg_open_at_start();

	(void)g;
	if (fd >= 0) {
		kmsg_read_new(fd, &boot);
		close(fd);
	}
	log_check(c, &boot, fd < 0 ? "cannot open /dev/kmsg" :
		  "no such line since boot (or the log buffer wrapped)", o);
	kmsg_free(&boot);
}

/* exists PATH, absent PATH */
static void act_path(struct group *g, const struct step *c, struct outcome *o)
{
	bool exists = access(c->arg, F_OK) == 0;

	(void)g;
	o->ok = exists == (c->action == ACTION_EXISTS);
	if (!o->ok)
		fail(o, step_name(c), exists ? "it exists" : "it does not exist");
}

static void act_read(struct group *g, const struct step *c, struct outcome *o)
{
	char path[256], want[256], out[512];
	bool readable;

	(void)g;
	if (sscanf(c->arg, "%255s %255[^\n]", path, want) != 2)
		want[0] = '\0';
	readable = read_file(path, out, sizeof(out));
	o->ok = readable && strcmp(out, want) == 0;
	if (!o->ok)
		fail(o, want, readable ? out : "(cannot read)");
}

static void act_run(struct group *g, const struct step *c, struct outcome *o)
{
	char out[512], seen[600];
	int rc = run_shell(c->arg, out, sizeof(out));

	(void)g;
	o->ok = rc == 0;
	if (!o->ok) {
		snprintf(seen, sizeof(seen), "exit status %d%s%s", rc, *out ? ": " : "", out);
		fail(o, "exit status 0", seen);
	}
}

static void act_cmdline(struct group *g, const struct step *c, struct outcome *o)
{
	char cmdline[4096];
	size_t n = strlen(c->arg);

	(void)g;
	o->ok = false;
	if (read_file("/proc/cmdline", cmdline, sizeof(cmdline)))
		for (char *w = cmdline; *w && !o->ok; w += strcspn(w, " "), w += strspn(w, " "))
			o->ok = strncmp(w, c->arg, n) == 0 && (w[n] == ' ' || w[n] == '\0');
	if (!o->ok)
		fail(o, c->arg, "not a word of /proc/cmdline (the harness puts it there)");
}

/* arch: first in its group (main() skips the group on other machines) */
static void act_arch(struct group *g, const struct step *c, struct outcome *o)
{
	o->ok = on_machine(c->arg, g->value, sizeof(g->value));
	if (!o->ok)
		fail(o, "this machine (uname -m, or um)", "another one");
}

static void act_check(struct group *g, const struct step *c, struct outcome *o)
{
	(void)g;
	if (probe_skipped(c->arg, o->skip, sizeof(o->skip))) {
		o->ok = true;
		return;
	}
	o->ok = probe_run(c->arg, o->expected, o->seen, sizeof(o->seen));
}

/* The actions of a module group (kunit and config form groups of their own). */
static void (*const actions[])(struct group *, const struct step *, struct outcome *) = {
	[ACTION_LOAD] = act_load,	[ACTION_UNLOAD] = act_unload,
	[ACTION_CYCLE] = act_cycle,	[ACTION_DMESG] = act_dmesg,
	[ACTION_BOOTLOG] = act_bootlog,	[ACTION_EXISTS] = act_path,
	[ACTION_ABSENT] = act_path,	[ACTION_READ] = act_read,
	[ACTION_RUN] = act_run,		[ACTION_ARCH] = act_arch,
	[ACTION_CHECK] = act_check,	[ACTION_CMDLINE] = act_cmdline,
	[ACTION_EXPECT] = act_expect,
};

/* One line of a module group: runs it, reports its result, true if ok. */
static bool run_line(struct group *g, const struct step *manifest_step, int number)
{
	struct step expanded = *manifest_step, *c = &expanded;
	struct outcome o = { 0 };
	const char *name;

	if (!expand_value(c->arg, sizeof(c->arg), g->value))
		fail(&o, "an argument that fits with {} replaced", g->value);
	else if (c->action >= sizeof(actions) / sizeof(actions[0]) || !actions[c->action])
		fail(&o, "an action this runner knows", "an action valid only alone in its test");
	else {
		kmsg_read_new(g->kmsg_fd, &g->log);
		actions[c->action](g, c, &o);
	}
	name = c->action == ACTION_LOAD || c->action == ACTION_UNLOAD ?
	       action_name(c->action) : step_name(c);
	return report(1, number, name, &o);
}

static bool run_module_group(struct group *g, int number)
{
	unsigned long taint_before = taint();
	bool ok = true, loads = false;	/* whether the test touches modules */
	struct outcome total;
	const char *problem;
	int n = 0;

	ktap_line(1, "KTAP version 1");
	ktap_line(1, "# Subtest: %s", g->test);
	for (size_t i = 0; i < g->count; i++)
		loads |= g->steps[i].action == ACTION_LOAD || g->steps[i].action == ACTION_CYCLE ||
			 g->steps[i].action == ACTION_CHECK;
	ktap_line(1, "1..%zu", g->count + (loads ? 1 : 0));
	for (size_t i = 0; i < g->count; i++) {
		const struct step *c = &g->steps[i];

		if (g->load_failed && c->action != ACTION_LOAD && c->action != ACTION_CYCLE) {
			/* The module did not load: its checks cannot run. */
			struct outcome skip = passed("SKIP the module did not load");

			report(1, ++n, step_name(c), &skip);
			continue;
		}
		ok &= run_line(g, c, ++n);
	}
	if (g->loaded)	/* leave nothing loaded behind */
		module_unload(g->module);
	if (loads) {
		unsigned long taint_after = taint(), same;
		const char *expected[MANIFEST_MAX_EXPECT];
		size_t n_expected = 0;
		char seen[700];
		struct outcome clean;
		bool excused;

		for (size_t i = 0; i < g->count && n_expected < MANIFEST_MAX_EXPECT; i++)
			if (g->steps[i].action == ACTION_EXPECT)
				expected[n_expected++] = g->steps[i].arg;
		kmsg_read_new(g->kmsg_fd, &g->log);
		problem = kmsg_find_problem(&g->log, expected, n_expected, &excused);
		same = excused ? ~TAINT_WARN : ~0UL;
		if (problem)
			snprintf(seen, sizeof(seen), "%s", problem);
		else
			snprintf(seen, sizeof(seen), "taint %lu -> %lu", taint_before, taint_after);
		clean = result(!problem && (taint_after & same) == (taint_before & same),
			       "no kernel problem reported", seen);
		ok &= report(1, ++n, "kernel clean (no new WARN/BUG/Oops/lockdep, taint unchanged)", &clean);
	}
	total = result(ok, NULL, NULL);
	return report(0, number, g->test, &total);
}

/* The results of a KUnit suite from debugfs, as a subtest. */
static bool run_kunit_group(const struct group *g, int number)
{
	char path[600], line[1024], last[1024] = "";
	struct outcome o;
	FILE *f;
	int n = 0;

	snprintf(path, sizeof(path), KUNIT_DEBUGFS "/%s/results", g->steps[0].arg);
	f = fopen(path, "r");
	if (!f) {
		o = result(false, path, "missing: is debugfs mounted, CONFIG_KUNIT_DEBUGFS set, the suite built in?");
		return report(0, number, g->test, &o);
	}
	/* Lines 1-2 ("KTAP version 1", "1..1") and the last (the suite's
	 * result) belong to debugfs' own top level: keep the indented part. */
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (++n <= 2)
			continue;
		if (*last)
			ktap_line(0, "%s", last);
		snprintf(last, sizeof(last), "%s", line);
	}
	fclose(f);
	o = result(strncmp(last, "ok ", 3) == 0, "the suite passes", *last ? last : "(empty results)");
	return report(0, number, g->test, &o);
}

static bool run_config_group(const struct group *g, int number)
{
	char config[64 * 1024] = "";
	struct outcome line;
	bool ok = true;
	FILE *p = popen("zcat /proc/config.gz", "r");

	if (p) {
		size_t n = fread(config, 1, sizeof(config) - 1, p);

		config[n] = '\0';
		pclose(p);
	}
	ktap_line(1, "KTAP version 1");
	ktap_line(1, "# Subtest: %s", g->test);
	ktap_line(1, "1..%zu", g->count);
	for (size_t i = 0; i < g->count; i++) {
		char want[600];

		snprintf(want, sizeof(want), "\n%s\n", g->steps[i].arg);
		line = result(strstr(config, want) != NULL, g->steps[i].arg,
			      *config ? "not in /proc/config.gz" : "no /proc/config.gz");
		ok &= report(1, (int)i + 1, g->steps[i].arg, &line);
	}
	line = result(ok, NULL, NULL);
	return report(0, number, g->test, &line);
}

static int usage(const char *prog)
{
	fprintf(stderr, "usage: %s [--kmsg] [--quick] [--force] [--manifest FILE] [TEST...]\n"
		"Runs the boot tests of the manifest (default " DEFAULT_MANIFEST "),\n"
		"or only the named top-level TESTs; KTAP on stdout, or with --kmsg\n"
		"in the kernel log. --quick: load/unload cycles at most 3 times,\n"
		"timed checks 200 ms at most.\n"
		"Exit status 0 if every test passed.\n", prog);
	return 2;
}

static bool selected(const char *test, int argc, char **argv, int first)
{
	if (first >= argc)
		return true;
	for (int i = first; i < argc; i++)
		if (strcmp(argv[i], test) == 0)
			return true;
	return false;
}

/* Modules are loaded into the test image's kernel only, never a host's. */
static bool on_test_image(void)
{
	return access(TEST_IMAGE_RELEASE, F_OK) == 0;
}

int main(int argc, char **argv)
{
	const char *manifest_path = DEFAULT_MANIFEST;
	struct manifest m;
	int i, total = 0, number = 0;
	bool ok = true, force = false;

	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		if (strcmp(argv[i], "--kmsg") == 0) {
			if (ktap_use_kmsg() < 0)
				perror("rust-tests: /dev/kmsg, using stdout");
		} else if (strcmp(argv[i], "--quick") == 0) {
			quick = true;
			probes_set_quick();
		} else if (strcmp(argv[i], "--force") == 0) {
			force = true;
		} else if (strcmp(argv[i], "--manifest") == 0 && i + 1 < argc) {
			manifest_path = argv[++i];
		} else {
			return usage(argv[0]);
		}
	}
	if (!force && !on_test_image()) {
		fprintf(stderr, "rust-tests: this is not the test image (no %s): it loads\n"
			"kernel modules, run it there (or use --force where that is safe).\n",
			TEST_IMAGE_RELEASE);
		return 2;
	}
	if (manifest_load(manifest_path, &m) < 0)
		return 2;

	for (size_t s = 0; s < m.count; s = manifest_group_end(&m, s))
		total += selected(m.steps[s].test, argc, argv, i);
	ktap_line(0, "KTAP version 1");
	ktap_line(0, "1..%d", total);
	for (size_t s = 0, e; s < m.count; s = e) {
		struct group g = { .test = m.steps[s].test, .steps = &m.steps[s] };

		e = manifest_group_end(&m, s);
		if (!selected(g.test, argc, argv, i))
			continue;
		g.count = e - s;
		snprintf(g.module, sizeof(g.module), "%.*s", (int)strcspn(g.test, "@"), g.test);
		g.kmsg_fd = kmsg_open_at_end();
		if (g.steps[0].action == ACTION_ARCH &&
		    !on_machine(g.steps[0].arg, g.value, sizeof(g.value))) {
			const char *arg = g.steps[0].arg;
			char why[200];
			struct outcome skip;

			if (*arg == '!')
				snprintf(why, sizeof(why), "SKIP not on %.64s", arg + 1);
			else
				snprintf(why, sizeof(why), "SKIP only on %.64s", arg);
			skip = passed(why);
			report(0, ++number, g.test, &skip);
		} else if (g.steps[0].action == ACTION_KUNIT)
			ok &= run_kunit_group(&g, ++number);
		else if (g.steps[0].action == ACTION_CONFIG)
			ok &= run_config_group(&g, ++number);
		else
			ok &= run_module_group(&g, ++number);
		if (g.kmsg_fd >= 0)
			close(g.kmsg_fd);
		kmsg_free(&g.log);
	}
	manifest_free(&m);
	return ok ? 0 : 1;
}
