/* SPDX-License-Identifier: GPL-2.0 */
/* KTAP output, to standard output or to the kernel log (docs/test-protocol.md). */
#ifndef KTAP_H
#define KTAP_H

#include <stdbool.h>

/* Send lines to /dev/kmsg, prefixed "rust-tests: ", instead of stdout. */
int ktap_use_kmsg(void);
/* Print one KTAP line (no newline), indented by 4 * depth spaces. */
void ktap_line(int depth, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* "ok N name" / "not ok N name", with an optional directive ("SKIP reason"). */
void ktap_result(int depth, bool ok, int number, const char *name, const char *directive);

#endif
