// SPDX-License-Identifier: GPL-2.0
#include "kmsg.h"
#include "hex.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The kernel-problem patterns (kernel-problems, data shared with the
 * harness), made into { kind, pattern } lines by the Makefile. */
static const struct {
	const char *kind, *pattern;
} problems[] = {
#include "kernel-problems.h"
};

int kmsg_open_at_end(void)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);

	if (fd >= 0)
		lseek(fd, 0, SEEK_END);
	return fd;
}

int kmsg_open_at_start(void)
{
	return open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
}

bool kmsg_parse_record(const char *record, char *message, size_t size)
{
	const char *p = strchr(record, ';');
	size_t len = 0;

	if (!p || size == 0)
		return false;
	/* the message ends at the newline; /dev/kmsg writes the bytes of
	 * non-printable and non-ASCII characters (and '\\') as \xNN */
	for (p++; *p && *p != '\n' && len + 1 < size; p++) {
		int hi, lo;

		if (p[0] == '\\' && p[1] == 'x' && (hi = hex_digit(p[2])) >= 0 &&
		    (lo = hex_digit(p[3])) >= 0) {
			message[len++] = (char)(hi << 4 | lo);
			p += 3;
		} else {
			message[len++] = *p;
		}
	}
	message[len] = '\0';
	return true;
}

static void log_append(struct kmsg_log *log, const char *message)
{
	char *copy = strdup(message);

	if (!copy)
		return;
	if (log->count == log->capacity) {
		size_t capacity = log->capacity ? 2 * log->capacity : 64;
		char **lines = realloc(log->lines, capacity * sizeof(*lines));

		if (!lines) {
			free(copy);
			return;
		}
		log->lines = lines;
		log->capacity = capacity;
	}
	log->lines[log->count++] = copy;
}

void kmsg_read_new(int fd, struct kmsg_log *log)
{
	char record[8192], message[8192];
	ssize_t n;

	for (;;) {
		n = read(fd, record, sizeof(record) - 1);
		if (n < 0 && errno == EPIPE)
			continue;	/* records overwritten before we read them */
		if (n <= 0)
			return;
		record[n] = '\0';
		if (kmsg_parse_record(record, message, sizeof(message)) &&
		    strncmp(message, "rust-tests: ", 12) != 0)
			log_append(log, message);
	}
}

void kmsg_free(struct kmsg_log *log)
{
	for (size_t i = 0; i < log->count; i++)
		free(log->lines[i]);
	free(log->lines);
	memset(log, 0, sizeof(*log));
}

const char *kmsg_find(const struct kmsg_log *log, const char *text)
{
	for (size_t i = 0; i < log->count; i++)
		if (strstr(log->lines[i], text))
			return log->lines[i];
	return NULL;
}

const char *kmsg_problem_kind(const char *message)
{
	const char *start = message + strspn(message, " \t");

	for (size_t p = 0; p < sizeof(problems) / sizeof(problems[0]); p++) {
		const char *pattern = problems[p].pattern;

		if (pattern[0] == '^' ?
		    strncmp(start, pattern + 1, strlen(pattern + 1)) == 0 :
		    strstr(message, pattern) != NULL)
			return problems[p].kind;
	}
	return NULL;
}

const char *kmsg_find_report(const struct kmsg_log *log, const char *text)
{
	for (size_t i = 0; i < log->count; i++)
		if (kmsg_problem_kind(log->lines[i]) && strstr(log->lines[i], text))
			return log->lines[i];
	return NULL;
}

const char *kmsg_find_problem(const struct kmsg_log *log, const char *const *expected, size_t n,
			      bool *excused)
{
	*excused = false;
	for (size_t i = 0; i < log->count; i++) {
		const char *kind = kmsg_problem_kind(log->lines[i]);
		bool listed = false;

		if (!kind)
			continue;
		for (size_t e = 0; e < n && !listed; e++)
			listed = strstr(log->lines[i], expected[e]) != NULL;
		if (listed)
			*excused = true;
		else if (!*excused || strcmp(kind, "call-trace") != 0)
			return log->lines[i];
	}
	return NULL;
}
