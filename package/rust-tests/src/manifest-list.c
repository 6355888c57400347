// SPDX-License-Identifier: GPL-2.0
/*
 * The manifest as the runner reads it, for the build host: the runner's own
 * parser (manifest.c), so that no other reader of the manifest's grammar
 * is needed at build time.
 *   manifest-list MANIFEST [MACHINE]
 * prints one line per item (manifest.h, manifest_list): each top-level
 * test (with MACHINE: whether it runs there), each of its lines (action,
 * origin), the modules it loads and the words it expects on the kernel
 * command line. The build writes it into the image for its machine
 * (check-modules.sh), where the harness reads it; the harness runs it on a
 * manifest file given to it. Exit 1 (with the parser's message) if the
 * manifest is invalid.
 */
#include "manifest.h"

#include <stdio.h>

int main(int argc, char **argv)
{
	struct manifest m;

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: %s MANIFEST [MACHINE]\n", argv[0]);
		return 2;
	}
	if (manifest_load(argv[1], &m) < 0)
		return 1;
	manifest_list(&m, argc == 3 ? argv[2] : NULL, stdout);
	manifest_free(&m);
	return 0;
}
