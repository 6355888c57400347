// SPDX-License-Identifier: GPL-2.0
/* Unit tests of the runner's parsing, run on the build host (make test). */
#include "kmsg.h"
#include "manifest.h"
#include "params.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int failures, count;

#define EXPECT(cond) do {						\
	count++;							\
	if (!(cond)) {							\
		failures++;						\
		fprintf(stderr, "%s:%d: FAILED: %s\n", __FILE__, __LINE__, #cond); \
	}								\
} while (0)

static void test_manifest_lines(void)
{
	struct step c;
	char v[64];

	EXPECT(manifest_parse_line("# a comment\n", &c) == 1);
	EXPECT(manifest_parse_line("   \n", &c) == 1);
	EXPECT(manifest_parse_line("rust_minimal\tload\n", &c) == 0);
	EXPECT(strcmp(c.test, "rust_minimal") == 0 && c.action == ACTION_LOAD && !c.arg[0]);
	EXPECT(manifest_parse_line("m@custom load a=1 b=\"x y\"\n", &c) == 0);
	EXPECT(strcmp(c.test, "m@custom") == 0 && strcmp(c.arg, "a=1 b=\"x y\"") == 0);
	EXPECT(manifest_parse_line("m\tdmesg\tm: Am I built-in? false\n", &c) == 0);
	EXPECT(c.action == ACTION_DMESG && strcmp(c.arg, "m: Am I built-in? false") == 0);
	EXPECT(strcmp(step_name(&c), "dmesg: m: Am I built-in? false") == 0);
	EXPECT(manifest_parse_line("m dmesg\n", &c) == -1);	/* needs an argument */
	EXPECT(manifest_parse_line("m_builtin bootlog m_builtin: Am I built-in? true\n", &c) == 0);
	EXPECT(c.action == ACTION_BOOTLOG && strcmp(c.test, "m_builtin") == 0);
	EXPECT(strcmp(step_name(&c), "bootlog: m_builtin: Am I built-in? true") == 0);
	EXPECT(manifest_parse_line("m bootlog\n", &c) == -1);	/* needs an argument */
	EXPECT(manifest_parse_line("m@dt arch riscv64\n", &c) == 0);
	EXPECT(c.action == ACTION_ARCH && strcmp(c.arg, "riscv64") == 0);
	EXPECT(manifest_parse_line("m@dt arch\n", &c) == -1);
	EXPECT(manifest_parse_line("m@dt arch riscv64,aarch64\n", &c) == 0);
	EXPECT(machine_listed(c.arg, "riscv64", v, sizeof(v)) && !v[0]);
	EXPECT(machine_listed(c.arg, "aarch64", v, sizeof(v)) && !v[0]);
	EXPECT(!machine_listed(c.arg, "x86_64", v, sizeof(v)));
	EXPECT(!machine_listed(c.arg, "aarch6", v, sizeof(v)));
	EXPECT(!machine_listed(c.arg, "riscv", v, sizeof(v)));
	EXPECT(!machine_listed("", "riscv64", v, sizeof(v)));
	EXPECT(machine_listed("x86_64=pcspkr,loongarch64=100d0100.rtc", "loongarch64", v, sizeof(v)));
	EXPECT(strcmp(v, "100d0100.rtc") == 0);
	EXPECT(machine_listed("x86_64=pcspkr,um", "x86_64", v, sizeof(v)) && !strcmp(v, "pcspkr"));
	EXPECT(!machine_listed("x86_64=pcspkr", "pcspkr", v, sizeof(v)));
	EXPECT(!machine_listed("!armv7l,um", "armv7l", v, sizeof(v)));
	EXPECT(!machine_listed("!armv7l,um", "um", v, sizeof(v)));
	EXPECT(machine_listed("!armv7l,um", "x86_64", v, sizeof(v)) && !v[0]);
	EXPECT(machine_listed("!armv7l", "armv7", v, sizeof(v)));
	snprintf(v, sizeof(v), "echo {} >/sys/{}/x {");
	EXPECT(expand_value(v, sizeof(v), "dev") && strcmp(v, "echo dev >/sys/dev/x {") == 0);
	snprintf(v, sizeof(v), "{}{}{}{}");
	EXPECT(!expand_value(v, 8, "abc"));	/* too long: left as it was */
	EXPECT(strcmp(v, "{}{}{}{}") == 0);
	EXPECT(manifest_parse_line("m frobnicate x\n", &c) == -1);
	EXPECT(manifest_parse_line("lonely\n", &c) == -1);
}

static void test_manifest_groups(void)
{
	struct step steps[4];
	struct manifest m = { steps, 4 };

	manifest_parse_line("a load", &steps[0]);
	manifest_parse_line("a unload", &steps[1]);
	manifest_parse_line("b load", &steps[2]);
	manifest_parse_line("a load", &steps[3]);
	EXPECT(manifest_group_end(&m, 0) == 2);
	EXPECT(manifest_group_end(&m, 2) == 3);
	EXPECT(manifest_group_end(&m, 3) == 4);
	EXPECT(manifest_parse_line("a expect BUG: x", &steps[0]) == 0 &&
	       steps[0].action == ACTION_EXPECT && strcmp(step_name(&steps[0]), "expect: BUG: x") == 0);
	EXPECT(manifest_parse_line("a expect", &steps[0]) == -1);
}

static void test_kmsg(void)
{
	char msg[64], *lines[] = { "rust_minimal: Rust minimal sample (init)",
				   "------------[ cut here ]------------",
				   "WARNING: CPU: 0 PID: 1 at lib/foo.c:1 bar+0x1/0x2" };
	struct kmsg_log log = { lines, 2, 2 };
	bool excused;

	EXPECT(kmsg_parse_record("6,1234,5678,-;hello world\n SUBSYSTEM=x\n", msg, sizeof(msg)));
	EXPECT(strcmp(msg, "hello world") == 0);
	EXPECT(!kmsg_parse_record("no header", msg, sizeof(msg)));
	EXPECT(kmsg_parse_record("6,1,2,-;m:   my_str:     \\xf0\\x9f\\xa6\\x80mod \\x5cx41\n", msg, sizeof(msg)));
	EXPECT(strcmp(msg, "m:   my_str:     \xf0\x9f\xa6\x80mod \\x41") == 0);
	EXPECT(kmsg_find(&log, "minimal sample (init)") == lines[0]);
	EXPECT(kmsg_find(&log, "(exit)") == NULL);
	EXPECT(kmsg_find_problem(&log, NULL, 0, &excused) == NULL && !excused);
	log.count = 3;
	EXPECT(kmsg_find_problem(&log, NULL, 0, &excused) == lines[2] && !excused);
	EXPECT(kmsg_find_report(&log, "lib/foo.c") == lines[2]);
	EXPECT(kmsg_find_report(&log, "minimal sample") == NULL);
	EXPECT(strcmp(kmsg_problem_kind(lines[2]), "warning") == 0);
	EXPECT(strcmp(kmsg_problem_kind("WARNING: possible circular locking dependency detected"),
		      "lockdep") == 0);
	EXPECT(strcmp(kmsg_problem_kind("  Oops[#1] SMP"), "oops") == 0);
	EXPECT(kmsg_problem_kind("rust_oops: Oops[#1] is only a name here") == NULL);
	EXPECT(strcmp(kmsg_problem_kind("BUG: KASAN: slab-use-after-free in f+0x1/0x2"), "bug") == 0);
	EXPECT(kmsg_problem_kind("Run /sbin/init as init process") == NULL);
	EXPECT(strcmp(kmsg_problem_kind("kmemleak: 1 new suspected memory leaks (see "
					"/sys/kernel/debug/kmemleak)"), "leak") == 0);
}

/* An expected report (expect): its line and the call trace after it only */
static void test_kmsg_expected(void)
{
	char *lines[] = { "BUG: sleeping function called from invalid context at mm/slub.c:4126",
			  "in_atomic(): 1, irqs_disabled(): 0, non_block: 0, pid: 90, name: modprobe",
			  "Call Trace:",
			  "WARNING: CPU: 0 PID: 90 at lib/foo.c:1 bar+0x1/0x2",
			  "Call Trace:" };
	const char *expected[] = { "BUG: sleeping function called from invalid context" };
	const char *other[] = { "BUG: scheduling while atomic" };
	struct kmsg_log log = { lines, 3, 3 };
	bool excused;

	EXPECT(kmsg_find_problem(&log, expected, 1, &excused) == NULL && excused);
	EXPECT(kmsg_find_problem(&log, other, 1, &excused) == lines[0] && !excused);
	EXPECT(kmsg_find_problem(&log, NULL, 0, &excused) == lines[0]);
	log.count = 5;	/* another report after it is a problem, with its trace */
	EXPECT(kmsg_find_problem(&log, expected, 1, &excused) == lines[3] && excused);
	log.lines = lines + 2;	/* a trace before any expected report is one too */
	log.count = 1;
	EXPECT(kmsg_find_problem(&log, expected, 1, &excused) == lines[2] && !excused);
}

static void test_params_decode(void)
{
	char out[32];

	EXPECT(params_decode("my_i32=1", out, sizeof(out)) == 8 && strcmp(out, "my_i32=1") == 0);
	EXPECT(params_decode("s=\\xff\\x0a", out, sizeof(out)) == 4 && memcmp(out, "s=\xff\n", 4) == 0);
	EXPECT(params_decode("a\\\\b", out, sizeof(out)) == 3 && strcmp(out, "a\\b") == 0);
	EXPECT(params_decode("s={x*5}!", out, sizeof(out)) == 8 && strcmp(out, "s=xxxxx!") == 0);
	EXPECT(params_decode("{x*40}", out, sizeof(out)) == -1);	/* does not fit */
	EXPECT(params_decode("{}", out, sizeof(out)) == 2 && strcmp(out, "{}") == 0);
	EXPECT(params_decode("\\xg0", out, sizeof(out)) == 4);	/* not an escape */
}

/* arguments checked when the manifest is read */
static void test_manifest_arguments(void)
{
	struct step c;

	EXPECT(manifest_parse_line("m cycle 100\n", &c) == 0 && !manifest_step_error(&c));
	EXPECT(manifest_parse_line("m cycle x\n", &c) == 0 && manifest_step_error(&c));
	EXPECT(manifest_parse_line("m cycle 0\n", &c) == 0 && manifest_step_error(&c));
	EXPECT(manifest_parse_line("m read /p v\n", &c) == 0 && !manifest_step_error(&c));
	EXPECT(manifest_parse_line("m read /p\n", &c) == 0 && manifest_step_error(&c));
	EXPECT(manifest_parse_line("m check busy m /dev/m\n", &c) == 0 && !manifest_step_error(&c));
	EXPECT(manifest_parse_line("m check bussy m /dev/m\n", &c) == 0 && manifest_step_error(&c));
	EXPECT(manifest_parse_line("m load\n", &c) == 0 && !manifest_step_error(&c));
}

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	EXPECT(f && fputs(text, f) >= 0 && fclose(f) == 0);
}

/* include DIR: its files in name order, dot files and backups left out */
static void test_manifest_include(void)
{
	char dir[] = "/tmp/rust-tests-unit-XXXXXX", path[128];
	const char *order[] = { "a", "b", "b", "c", "z" };
	struct manifest m;

	EXPECT(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/d", dir);
	EXPECT(mkdir(path, 0755) == 0);
	snprintf(path, sizeof(path), "%s/d/20-c", dir);
	write_text(path, "c load\n");
	snprintf(path, sizeof(path), "%s/d/10-b", dir);
	write_text(path, "# b\nb load\nb unload\n");
	snprintf(path, sizeof(path), "%s/d/.hidden", dir);
	write_text(path, "hidden load\n");
	snprintf(path, sizeof(path), "%s/d/10-b~", dir);
	write_text(path, "backup load\n");
	snprintf(path, sizeof(path), "%s/m", dir);
	write_text(path, "a load\ninclude d\ninclude none\nz load\n");
	EXPECT(manifest_load(path, &m) == 0 && m.count == 5);
	for (size_t i = 0; i < m.count && i < 5; i++)
		EXPECT(strcmp(m.steps[i].test, order[i]) == 0);
	manifest_free(&m);
	snprintf(path, sizeof(path), "%s/d/30-bad", dir);
	write_text(path, "bad nosuchaction\n");
	snprintf(path, sizeof(path), "%s/m", dir);
	EXPECT(manifest_load(path, &m) == -1 && m.count == 0);	/* an included error */
	snprintf(path, sizeof(path), "rm -r %s", dir);
	EXPECT(system(path) == 0);
}

/* The manifest grammar's conformance fixture (testdata/conformance/): the
 * listing of manifest is expected's, every file of invalid/ is refused. The
 * harness's tests read expected as listings and run manifest-list on the
 * same files. */
static void test_conformance(void)
{
	const char *dir = "testdata/conformance";
	char path[256], section[64] = "", line[512], *got = NULL, *want = NULL;
	size_t got_size = 0, want_len = 0;
	struct manifest m;
	FILE *expected, *out = NULL;
	struct dirent **names;
	int n;

	snprintf(path, sizeof(path), "%s/manifest", dir);
	EXPECT(manifest_load(path, &m) == 0);
	snprintf(path, sizeof(path), "%s/expected", dir);
	expected = fopen(path, "r");
	EXPECT(expected != NULL);
	/* each "[machine]" section against manifest_list()'s lines */
	want = calloc(1, 1 << 16);
	while (expected && want) {
		bool end = !fgets(line, sizeof(line), expected);

		if (line[0] == '#' && !end)
			continue;
		if ((end || line[0] == '[') && section[0]) {
			out = open_memstream(&got, &got_size);
			manifest_list(&m, strcmp(section, "all") ? section : NULL, out);
			fclose(out);
			EXPECT(strcmp(got, want) == 0);
			if (strcmp(got, want) != 0)
				fprintf(stderr, "[%s]: got\n%s\nexpected\n%s\n", section, got, want);
			free(got);
			got = NULL;
		}
		if (end)
			break;
		if (line[0] == '[') {
			snprintf(section, sizeof(section), "%.*s", (int)strcspn(line + 1, "]"), line + 1);
			want_len = 0;
			want[0] = '\0';
		} else if (want_len + strlen(line) < (1 << 16)) {
			strcpy(want + want_len, line);
			want_len += strlen(line);
		}
	}
	EXPECT(section[0] != '\0');
	free(want);
	if (expected)
		fclose(expected);
	manifest_free(&m);

	snprintf(path, sizeof(path), "%s/invalid", dir);
	n = scandir(path, &names, NULL, alphasort);
	EXPECT(n > 2);
	for (int i = 0; i < n; i++) {
		if (names[i]->d_name[0] != '.') {
			snprintf(path, sizeof(path), "%s/invalid/%.64s", dir, names[i]->d_name);
			EXPECT(manifest_load(path, &m) == -1 && m.count == 0);
		}
		free(names[i]);
	}
	free(names);
}

int main(void)
{
	struct manifest m;

	test_manifest_lines();
	test_manifest_groups();
	test_manifest_include();
	test_conformance();
	test_manifest_arguments();
	test_kmsg();
	test_kmsg_expected();
	test_params_decode();
	/* the shipped manifest parses */
	EXPECT(manifest_load("manifest", &m) == 0 && m.count > 10);
	manifest_free(&m);
	printf("%d passed, %d failed\n", count - failures, failures);
	return failures ? 1 : 0;
}
