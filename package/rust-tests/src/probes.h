/* SPDX-License-Identifier: GPL-2.0 */
/* Probes: behaviour checks that need system calls, named from the manifest:
 * "<test> check <name> [arguments]". */
#ifndef PROBES_H
#define PROBES_H

#include <stdbool.h>
#include <stddef.h>

/* Quick mode: timed checks (unload-race) run QUICK_MS at most. */
void probes_set_quick(void);
/* Whether "<name> [arguments]" names a check of this runner. */
bool probe_known(const char *name_and_args);
/* Whether the named check cannot run on this kernel; why (a KTAP "SKIP ...") in why. */
bool probe_skipped(const char *name_and_args, char *why, size_t size);
/* Run the named check with its arguments; on failure fill expected/seen. */
bool probe_run(const char *name_and_args, char *expected, char *seen, size_t size);

#endif
