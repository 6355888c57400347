// SPDX-License-Identifier: GPL-2.0
#include "probes.h"
#include "module.h"
#include "params.h"
#include "semaphore.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <sched.h>
#include <time.h>
#include <unistd.h>

#define BLOCK_MS 100		/* how long a call must block before SIGALRM */
#define CALL_MS 5000		/* how long a call that must not block may take */
#define QUICK_MS 200		/* the longest timed check in quick mode */

static bool quick;

void probes_set_quick(void)
{
	quick = true;
}

static const struct { const char *name; int value; } errnos[] = {
	{ "0", 0 }, { "ENXIO", ENXIO }, { "ENODEV", ENODEV }, { "ENOENT", ENOENT },
	{ "EINVAL", EINVAL }, { "ENOTTY", ENOTTY }, { "EAGAIN", EAGAIN }, { "EBUSY", EBUSY },
	{ "EFAULT", EFAULT },
};

static const char *errno_name(int e)
{
	for (size_t i = 0; i < sizeof(errnos) / sizeof(errnos[0]); i++)
		if (errnos[i].value == e)
			return errnos[i].name;
	return strerror(e);
}

static void on_alarm(int sig)
{
	(void)sig;	/* only interrupts the blocked call */
}

/* SIGALRM after ms milliseconds (0: cancel); it interrupts, no SA_RESTART. */
static void alarm_ms(long ms)
{
	struct sigaction sa = { .sa_handler = on_alarm };
	struct itimerval t = { .it_value = { ms / 1000, (ms % 1000) * 1000 } };

	sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &t, NULL);
}

/*
 * One read or write of one byte (*byte) on a fresh open of path. If blocks,
 * the call must still be waiting after BLOCK_MS, when a signal must make it
 * fail with EINTR; otherwise it must transfer the byte (a read stores it in
 * *byte). Returns whether it did so; if not, seen says what happened.
 */
static bool transfer(const char *path, bool write_it, bool blocks, unsigned char *byte,
		     char *seen, size_t size)
{
	int fd = open(path, O_RDWR), err;
	ssize_t n;

	if (fd < 0) {
		snprintf(seen, size, "open %s: %s", path, strerror(errno));
		return false;
	}
	alarm_ms(blocks ? BLOCK_MS : CALL_MS);
	n = write_it ? write(fd, byte, 1) : read(fd, byte, 1);
	err = errno;
	alarm_ms(0);
	close(fd);
	if (blocks) {
		if (n < 0 && err == EINTR)
			return true;
		snprintf(seen, size, "%s did not block: returned %zd%s%s", write_it ? "write" : "read",
			 n, n < 0 ? ", " : "", n < 0 ? strerror(err) : "");
		return false;
	}
	if (n == 1)
		return true;
	snprintf(seen, size, "%s returned %zd%s%s", write_it ? "write" : "read", n,
		 n < 0 ? ": " : "", n < 0 ? strerror(err) : "");
	return false;
}

/*
 * A read blocked on an empty semaphore, then a signal whose handler has
 * SA_RESTART and writes the byte the read waits for: a driver that ends
 * the wait with ERESTARTSYS (the kernel's convention) has the read
 * restarted, and it returns the byte; with EINTR the read fails. Should
 * the restarted read block again, the next signals interrupt it.
 */
static int restart_fd = -1;
static volatile sig_atomic_t restart_signals;

static void on_alarm_post(int sig)
{
	static const unsigned char byte = 'x';
	struct sigaction plain = { .sa_handler = on_alarm };

	(void)sig;
	if (restart_signals++ == 0) {
		if (write(restart_fd, &byte, 1) != 1)
			restart_signals = -100;
	} else {
		sigaction(SIGALRM, &plain, NULL);
	}
}

static bool restarted_read(const char *path, char *seen, size_t size)
{
	struct sigaction sa = { .sa_handler = on_alarm_post, .sa_flags = SA_RESTART };
	struct itimerval t = { .it_interval = { 0, BLOCK_MS * 1000 },
			       .it_value = { 0, BLOCK_MS * 1000 } };
	unsigned char byte = 'x';
	int fd = open(path, O_RDWR), err;
	ssize_t n;

	restart_fd = open(path, O_RDWR);
	if (fd < 0 || restart_fd < 0) {
		snprintf(seen, size, "open %s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return false;
	}
	restart_signals = 0;
	sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &t, NULL);
	n = read(fd, &byte, 1);
	err = errno;
	alarm_ms(0);
	close(restart_fd);
	close(fd);
	if (n == 1 && byte == 0 && restart_signals > 0)
		return true;
	snprintf(seen, size, "a read blocked on the empty semaphore, signal with SA_RESTART "
		 "(its handler wrote 1 byte%s): read returned %zd%s%s after %d signal(s)",
		 restart_signals < 0 ? ": failed" : "", n, n < 0 ? ", " : "",
		 n < 0 ? errno_name(err) : "", restart_signals < 0 ? 1 : (int)restart_signals);
	return false;
}

/* tokens PATH MAX: a bucket of MAX tokens (rust_miscdev) */
static bool probe_tokens(const char *args, char *expected, char *seen, size_t size)
{
	char path[256];
	int max = 0;
	unsigned char byte = 'x';

	if (sscanf(args, "%255s %d", path, &max) != 2 || max <= 0) {
		snprintf(seen, size, "bad arguments '%s'", args);
		return false;
	}
	snprintf(expected, size, "%d writes succeed, the next blocks until a signal (EINTR); "
		 "%d reads return 0x01, the next blocks until a signal (EINTR)", max, max);
	for (int i = 0; i < max; i++)
		if (!transfer(path, true, false, &byte, seen, size))
			return false;
	if (!transfer(path, true, true, &byte, seen, size))
		return false;
	for (int i = 0; i < max; i++) {
		byte = 0;
		if (!transfer(path, false, false, &byte, seen, size))
			return false;
		if (byte != 0x01) {
			snprintf(seen, size, "read %d returned 0x%02x", i + 1, byte);
			return false;
		}
	}
	return transfer(path, false, true, &byte, seen, size);
}

static bool ioctl_u64(int fd, unsigned long cmd, uint64_t *value, int want_errno,
		      char *seen, size_t size)
{
	int rc = ioctl(fd, cmd, value);

	if ((want_errno == 0 && rc == 0) || (want_errno != 0 && rc < 0 && errno == want_errno))
		return true;
	snprintf(seen, size, "ioctl(0x%lx) returned %d%s%s", cmd, rc, rc < 0 ? ", " : "",
		 rc < 0 ? errno_name(errno) : "");
	return false;
}

/* semaphore PATH: rust_semaphore and its C twin */
static bool probe_semaphore(const char *path, char *expected, char *seen, size_t size)
{
	uint64_t value = 0;
	unsigned char byte = 'x';
	ssize_t n;
	bool ok;
	int fd;

	snprintf(expected, size, "write 1 byte, then a read on another open file returns 0x00; "
		 "its GET_READ_COUNT = 1; SET 5 then GET = 5; unknown ioctl ENOTTY; "
		 "read on an empty semaphore blocks until a signal (EINTR); "
		 "with SA_RESTART it is restarted (ERESTARTSYS) and gets the byte the handler wrote");
	if (!transfer(path, true, false, &byte, seen, size))
		return false;
	fd = open(path, O_RDWR);
	if (fd < 0) {
		snprintf(seen, size, "open %s: %s", path, strerror(errno));
		return false;
	}
	alarm_ms(CALL_MS);
	n = read(fd, &byte, 1);
	alarm_ms(0);
	if (n != 1 || byte != 0) {
		if (n == 1)
			snprintf(seen, size, "read returned 0x%02x", byte);
		else
			snprintf(seen, size, "read returned %zd%s%s", n, n < 0 ? ": " : "",
				 n < 0 ? strerror(errno) : "");
		close(fd);
		return false;
	}
	ok = ioctl_u64(fd, IOCTL_GET_READ_COUNT, &value, 0, seen, size);
	if (ok && value != 1) {
		snprintf(seen, size, "GET_READ_COUNT = %llu after one read", (unsigned long long)value);
		ok = false;
	}
	ok = ok && semaphore_ioctls(fd, semaphore_native_ioctl, &value, seen, size) == 0;
	close(fd);
	return ok && transfer(path, false, true, &byte, seen, size) &&
	       restarted_read(path, seen, size);
}

#ifdef __x86_64__
/*
 * ioctl(2) through the 32-bit system call entry, which calls the driver's
 * .compat_ioctl: `int $0x80` is that entry on x86_64, also from a 64-bit
 * task (CONFIG_IA32_EMULATION; without it the task gets SIGSEGV). 54 is
 * ioctl in arch/x86/entry/syscalls/syscall_32.tbl; arg is 32 bits.
 */
static int ioctl32(int fd, unsigned int cmd, uint32_t arg)
{
	long rc = 54;

	asm volatile ("int $0x80" : "+a" (rc) : "b" ((long)fd), "c" ((long)cmd), "d" ((long)arg)
		      : "memory", "r8", "r9", "r10", "r11");
	if (rc < 0 && rc >= -4095) {
		errno = (int)-rc;
		return -1;
	}
	return (int)rc;
}

static int ioctl32_u64(int fd, unsigned long cmd, uint64_t *value)
{
	return ioctl32(fd, (unsigned int)cmd, (uint32_t)(uintptr_t)value);
}

/* The compat ioctls of probe_compat_ioctl, in a child; shared: the u64, then seen */
static int compat_ioctls(const char *path, uint64_t *shared, size_t size)
{
	char *seen = (char *)(shared + 1);
	int fd = open(path, O_RDWR);

	if (fd < 0) {
		snprintf(seen, size, "open %s: %s", path, strerror(errno));
		return 1;
	}
	return semaphore_ioctls(fd, ioctl32_u64, shared, seen, size) == 0 ? 0 : 1;
}

/* compat-ioctl PATH: the semaphore samples' ioctls from a 32-bit caller */
static bool probe_compat_ioctl(const char *path, char *expected, char *seen, size_t size)
{
	/* below 4 GiB, so that a 32-bit argument can point to it */
	uint64_t *shared = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
				MAP_SHARED | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
	size_t room = 4096 - sizeof(*shared);
	int status = 0;
	bool ok = false;
	pid_t pid;

	snprintf(expected, size, "through the 32-bit system call entry (.compat_ioctl): "
		 "SET 5 then GET = 5; unknown ioctl ENOTTY");
	if (shared == MAP_FAILED) {
		snprintf(seen, size, "mmap(MAP_32BIT): %s", strerror(errno));
		return false;
	}
	pid = fork();
	if (pid == 0)
		_exit(compat_ioctls(path, shared, room < size ? room : size));
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		snprintf(seen, size, "fork/waitpid: %s", strerror(errno));
	else if (WIFSIGNALED(status))
		snprintf(seen, size, "the caller died of signal %d in int $0x80 "
			 "(CONFIG_IA32_EMULATION off?)", WTERMSIG(status));
	else if (WEXITSTATUS(status) != 0)
		snprintf(seen, size, "%s", (char *)(shared + 1));
	else
		ok = true;
	munmap(shared, 4096);
	return ok;
}
#elif defined(__aarch64__)
/*
 * On aarch64, a 32-bit ARM program makes the calls (the kernel's AArch32
 * entry, CONFIG_COMPAT): compat32, built with the runner.
 */
#define COMPAT32 "/usr/libexec/rust-tests/compat32"

/* compat-ioctl PATH: the semaphore samples' ioctls from a 32-bit caller */
static bool probe_compat_ioctl(const char *path, char *expected, char *seen, size_t size)
{
	char command[600];
	FILE *p;
	int status;

	snprintf(expected, size, "from a 32-bit ARM program (" COMPAT32 ", .compat_ioctl): "
		 "SET 5 then GET = 5; unknown ioctl ENOTTY");
	snprintf(command, sizeof(command), COMPAT32 " %s 2>&1", path);
	*seen = '\0';
	p = popen(command, "r");
	if (!p) {
		snprintf(seen, size, "popen: %s", strerror(errno));
		return false;
	}
	if (fgets(seen, (int)size, p))
		seen[strcspn(seen, "\n")] = '\0';
	status = pclose(p);
	if (status == 0)
		return true;
	if (!*seen)
		snprintf(seen, size, "%s: status 0x%x (no AArch32 at EL0, CONFIG_COMPAT off?)",
			 COMPAT32, status);
	return false;
}
#else
static bool probe_compat_ioctl(const char *path, char *expected, char *seen, size_t size)
{
	(void)path;
	snprintf(expected, size, "an arch whose 64-bit tasks can make 32-bit system calls");
	snprintf(seen, size, "not this one (the manifest runs compat-ioctl on x86_64 and aarch64)");
	return false;
}
#endif

/* open PATH ERRNO: opening PATH fails with ERRNO, or succeeds for "0" */
static bool probe_open(const char *args, char *expected, char *seen, size_t size)
{
	char path[256], want[32];
	int fd, err;

	if (sscanf(args, "%255s %31s", path, want) != 2) {
		snprintf(seen, size, "bad arguments '%s'", args);
		return false;
	}
	snprintf(expected, size, "open %s: %s", path, strcmp(want, "0") ? want : "succeeds");
	fd = open(path, O_RDONLY);
	err = fd < 0 ? errno : 0;
	if (fd >= 0)
		close(fd);
	snprintf(seen, size, "open %s: %s", path, fd >= 0 ? "succeeds" : errno_name(err));
	return strcmp(errno_name(err), want) == 0;
}

/* read-exact PATH N: blocking and O_NONBLOCK reads both return exactly N bytes */
static bool probe_read_exact(const char *args, char *expected, char *seen, size_t size)
{
	char path[256], buf[4096];
	int n = 0;

	if (sscanf(args, "%255s %d", path, &n) != 2 || n <= 0 || n > (int)sizeof(buf)) {
		snprintf(seen, size, "bad arguments '%s'", args);
		return false;
	}
	snprintf(expected, size, "read(%d) returns %d bytes, blocking then O_NONBLOCK", n, n);
	for (int nonblock = 0; nonblock <= 1; nonblock++) {
		int fd = open(path, O_RDONLY | (nonblock ? O_NONBLOCK : 0));
		ssize_t got;

		if (fd < 0) {
			snprintf(seen, size, "open %s: %s", path, strerror(errno));
			return false;
		}
		alarm_ms(CALL_MS);
		got = read(fd, buf, n);
		alarm_ms(0);
		close(fd);
		if (got != n) {
			snprintf(seen, size, "%s read returned %zd%s%s", nonblock ? "O_NONBLOCK" : "blocking",
				 got, got < 0 ? ": " : "", got < 0 ? strerror(errno) : "");
			return false;
		}
	}
	return true;
}

/*
 * busy MODULE PATH: while PATH is open, MODULE cannot be unloaded (EAGAIN, "in
 * use": the open file pins the module that owns its file operations).
 */
static bool probe_busy(const char *args, char *expected, char *seen, size_t size)
{
	char module[64], path[256];
	int fd, err;

	if (sscanf(args, "%63s %255s", module, path) != 2) {
		snprintf(seen, size, "bad arguments '%s'", args);
		return false;
	}
	snprintf(expected, size, "unload %s fails with EAGAIN while %s is open", module, path);
	fd = open(path, O_RDONLY | O_NONBLOCK);
	if (fd < 0) {
		snprintf(seen, size, "open %s: %s", path, strerror(errno));
		return false;
	}
	err = module_unload(module);
	close(fd);
	snprintf(seen, size, "unload %s while open: %s", module, err ? errno_name(err) : "succeeded");
	return err == EAGAIN;
}

/*
 * efault PATH OP[,OP...]: each OP with a NULL and with a kernel address as
 * its buffer fails with EFAULT. OPs: read, write, fill-read (a good one-byte
 * write first, on another open file, so that the read has something to
 * return), ioctl-get and ioctl-set (the semaphore samples' ioctls).
 */
static bool efault_op(const char *path, int fd, const char *op, void *bad, char *seen, size_t size)
{
	unsigned char byte = 'x';
	long rc;

	/* the good write on another open file: it moves that file's offset */
	if (strcmp(op, "fill-read") == 0 && !transfer(path, true, false, &byte, seen, size))
		return false;
	alarm_ms(CALL_MS);
	if (strcmp(op, "read") == 0 || strcmp(op, "fill-read") == 0)
		rc = read(fd, bad, 1);
	else if (strcmp(op, "write") == 0)
		rc = write(fd, bad, 1);
	else if (strcmp(op, "ioctl-get") == 0)
		rc = ioctl(fd, IOCTL_GET_READ_COUNT, bad);
	else if (strcmp(op, "ioctl-set") == 0)
		rc = ioctl(fd, IOCTL_SET_READ_COUNT, bad);
	else {
		alarm_ms(0);
		snprintf(seen, size, "unknown operation '%s'", op);
		return false;
	}
	alarm_ms(0);
	if (rc < 0 && errno == EFAULT)
		return true;
	snprintf(seen, size, "%s(%p) returned %ld%s%s", op, bad, rc, rc < 0 ? ", " : "",
		 rc < 0 ? errno_name(errno) : "");
	return false;
}

static bool probe_efault(const char *args, char *expected, char *seen, size_t size)
{
	/* NULL is a user address the driver must not write; the last page is the kernel's */
	void *const bad[] = { NULL, (void *)(uintptr_t)-4096 };
	char path[256], ops[128], *op, *save;

	if (sscanf(args, "%255s %127s", path, ops) != 2) {
		snprintf(seen, size, "bad arguments '%s'", args);
		return false;
	}
	snprintf(expected, size, "%s on %s with a NULL and a kernel buffer: EFAULT", ops, path);
	for (op = strtok_r(ops, ",", &save); op; op = strtok_r(NULL, ",", &save)) {
		for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			int fd = open(path, O_RDWR);
			bool ok;

			if (fd < 0) {
				snprintf(seen, size, "open %s: %s", path, strerror(errno));
				return false;
			}
			ok = efault_op(path, fd, op, bad[i], seen, size);
			close(fd);
			if (!ok)
				return false;
		}
	}
	return true;
}

/* Open and close PATH until killed; counts the opens. */
static void open_loop(const char *path, volatile unsigned long *opens)
{
	for (;;) {
		int fd = open(path, O_RDONLY | O_NONBLOCK);

		if (fd < 0)
			continue;	/* the module is being unloaded, or not loaded */
		close(fd);
		++*opens;
	}
}

/*
 * unload-race MODULE PATH MS: for MS milliseconds, one process opens and
 * closes PATH in a loop while this one loads and unloads MODULE in a loop
 * (the window between a file's release and the VFS's last use of its file
 * operations); both must make progress, and the kernel-clean check that ends
 * the test looks for a splat. At the end the module is unloaded.
 */
static bool probe_unload_race(const char *args, char *expected, char *seen, size_t size)
{
	char module[64], path[256];
	unsigned long unloads = 0, done, *opens;
	struct timespec start, now;
	int ms = 0, err = 0;
	long elapsed;
	pid_t pid;

	if (sscanf(args, "%63s %255s %d", module, path, &ms) != 3 || ms <= 0) {
		snprintf(seen, size, "bad arguments '%s'", args);
		return false;
	}
	if (quick && ms > QUICK_MS)
		ms = QUICK_MS;
	snprintf(expected, size, "%d ms of load/unload of %s against open/close of %s, "
		 "both looping", ms, module, path);
	opens = mmap(NULL, sizeof(*opens), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (opens == MAP_FAILED) {
		snprintf(seen, size, "mmap: %s", strerror(errno));
		return false;
	}
	*opens = 0;
	pid = fork();
	if (pid == 0)
		open_loop(path, opens);
	clock_gettime(CLOCK_MONOTONIC, &start);
	do {
		err = module_loaded(module) ? 0 : module_load(module, "");
		sched_yield();	/* one CPU (UML): let the opener run while it is loaded */
		if (!err && module_unload(module) == 0)
			unloads++;
		clock_gettime(CLOCK_MONOTONIC, &now);
		elapsed = (now.tv_sec - start.tv_sec) * 1000 + (now.tv_nsec - start.tv_nsec) / 1000000;
		/* MS at least, and on until both sides got in once: an unload
		 * and an open (CALL_MS more at most; a loaded host may starve
		 * one side for a short MS, as in quick mode) */
	} while (!err && (elapsed < ms || ((*opens == 0 || unloads == 0) && elapsed < ms + CALL_MS)));
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
	for (int i = 0; i < 100 && module_loaded(module) && module_unload(module) == EAGAIN; i++)
		usleep(10000);
	done = *opens;
	munmap(opens, sizeof(*opens));
	snprintf(seen, size, "%lu unloads, %lu opens%s%s%s", unloads, done,
		 pid < 0 ? ", fork failed" : "", err ? ", load: " : "", err ? strerror(err) : "");
	return pid > 0 && !err && unloads > 0 && done > 0 && !module_loaded(module);
}

#define KMEMLEAK "/sys/kernel/debug/kmemleak"

static bool kmemleak_do(const char *command, char *seen, size_t size)
{
	int fd = open(KMEMLEAK, O_WRONLY);
	bool ok = fd >= 0 && write(fd, command, strlen(command)) == (ssize_t)strlen(command);

	if (!ok)
		snprintf(seen, size, "echo %s >" KMEMLEAK ": %s", command, strerror(errno));
	if (fd >= 0)
		close(fd);
	return ok;
}

/*
 * kmemleak start|report: "start" reports (two scans: kmemleak reports an
 * object unreferenced in two of them) and forgets what leaked before the
 * tests; "report", after them, scans twice again and fails on any new leak,
 * showing the first report's allocation backtrace.
 */
static bool probe_kmemleak(const char *args, char *expected, char *seen, size_t size)
{
	bool start = strcmp(args, "start") == 0;
	char report[2048] = "";
	ssize_t n;
	int fd;

	if (!start && strcmp(args, "report") != 0) {
		snprintf(seen, size, "bad arguments '%s'", args);
		return false;
	}
	snprintf(expected, size, start ? "kmemleak scans and clears its reports" :
		 "no kmemleak report since the tests started");
	if (!kmemleak_do("scan", seen, size) || !kmemleak_do("scan", seen, size))
		return false;
	if (start)
		return kmemleak_do("clear", seen, size);
	fd = open(KMEMLEAK, O_RDONLY);
	if (fd < 0) {
		snprintf(seen, size, KMEMLEAK ": %s", strerror(errno));
		return false;
	}
	n = read(fd, report, sizeof(report) - 1);
	close(fd);
	report[n > 0 ? n : 0] = '\0';
	for (char *p = report; (p = strchr(p, '\n')); )
		*p = ';';	/* one diagnostic line */
	snprintf(seen, size, "%.*s", (int)size - 1, *report ? report : "no report");
	return n == 0;
}

typedef bool (*probe_fn)(const char *args, char *expected, char *seen, size_t size);

/* needs: a path the check needs; where it is absent, the check is a SKIP */
static const struct { const char *name; probe_fn run; const char *needs; } probes[] = {
	{ "tokens", probe_tokens, NULL },
	{ "semaphore", probe_semaphore, NULL },
	{ "compat-ioctl", probe_compat_ioctl, NULL },
	{ "open", probe_open, NULL },
	{ "read-exact", probe_read_exact, NULL },
	{ "busy", probe_busy, NULL },
	{ "efault", probe_efault, NULL },
	{ "unload-race", probe_unload_race, NULL },
	{ "kmemleak", probe_kmemleak, KMEMLEAK },
	{ "param-twin", probe_param_twin, NULL },
	{ "param-write-twin", probe_param_write_twin, NULL },
};

/* The index of the check a "check" argument names, or -1. */
static int find_probe(const char *name_and_args)
{
	size_t len = strcspn(name_and_args, " \t");

	for (size_t i = 0; i < sizeof(probes) / sizeof(probes[0]); i++)
		if (strlen(probes[i].name) == len && strncmp(name_and_args, probes[i].name, len) == 0)
			return (int)i;
	return -1;
}

bool probe_known(const char *name_and_args)
{
	return find_probe(name_and_args) >= 0;
}

bool probe_skipped(const char *name_and_args, char *why, size_t size)
{
	int i = find_probe(name_and_args);

	if (i < 0 || !probes[i].needs || access(probes[i].needs, F_OK) == 0)
		return false;
	snprintf(why, size, "SKIP this kernel has no %s", probes[i].needs);
	return true;
}

bool probe_run(const char *name_and_args, char *expected, char *seen, size_t size)
{
	char name[32];
	int n = 0;

	if (sscanf(name_and_args, "%31s %n", name, &n) != 1) {
		snprintf(seen, size, "no probe name");
		return false;
	}
	*expected = *seen = '\0';
	for (size_t i = 0; i < sizeof(probes) / sizeof(probes[0]); i++)
		if (strcmp(name, probes[i].name) == 0)
			return probes[i].run(name_and_args + n, expected, seen, size);
	snprintf(expected, size, "a probe this runner knows (probes.c)");
	snprintf(seen, size, "'%s'", name);
	return false;
}
