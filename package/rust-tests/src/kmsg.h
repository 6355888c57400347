/* SPDX-License-Identifier: GPL-2.0 */
/* The kernel log, read as records from /dev/kmsg. */
#ifndef KMSG_H
#define KMSG_H

#include <stdbool.h>
#include <stddef.h>

struct kmsg_log {
	char **lines;		/* messages, without the "pri,seq,ts,flags;" header */
	size_t count;
	size_t capacity;
};

/* Open the log positioned after its last record. Returns fd or -1. */
int kmsg_open_at_end(void);
/* Open the log at its first record still in the buffer. Returns fd or -1. */
int kmsg_open_at_start(void);
/* Append every record since the last read to log (ours, "rust-tests: ", skipped). */
void kmsg_read_new(int fd, struct kmsg_log *log);
void kmsg_free(struct kmsg_log *log);
/* The first message containing text, or NULL. */
const char *kmsg_find(const struct kmsg_log *log, const char *text);
/* The kind of kernel problem ("warning", "bug", ...: kernel-problems) a message reports, or NULL. */
const char *kmsg_problem_kind(const char *message);
/* The first message that reports a kernel problem and contains text, or NULL. */
const char *kmsg_find_report(const struct kmsg_log *log, const char *text);
/*
 * The first message that reports a kernel problem, but for the expected
 * ones: a message that contains one of the n texts of expected, and a call
 * trace after such a message. *excused: whether one was left out. NULL if none.
 */
const char *kmsg_find_problem(const struct kmsg_log *log, const char *const *expected, size_t n,
			      bool *excused);
/* Parse one /dev/kmsg record into its message (\\xNN escapes decoded); false if malformed. */
bool kmsg_parse_record(const char *record, char *message, size_t size);

#endif
