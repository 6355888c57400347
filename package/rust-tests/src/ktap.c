// SPDX-License-Identifier: GPL-2.0
#include "ktap.h"

#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int kmsg_fd = -1;

int ktap_use_kmsg(void)
{
	int fd;

	/* Lift the /dev/kmsg rate limit, unless printk.devkmsg=on did (which
	 * also locks the setting: writing it then fails with EINVAL). */
	fd = open("/proc/sys/kernel/printk_devkmsg", O_RDWR);
	if (fd >= 0) {
		char now[8] = "";

		if ((read(fd, now, sizeof(now) - 1) < 0 || strncmp(now, "on\n", 3) != 0) &&
		    write(fd, "on\n", 3) < 0)
			perror("rust-tests: printk_devkmsg");
		close(fd);
	}
	kmsg_fd = open("/dev/kmsg", O_WRONLY);
	return kmsg_fd < 0 ? -1 : 0;
}

void ktap_line(int depth, const char *fmt, ...)
{
	char line[900];
	int n;
	va_list ap;

	n = snprintf(line, sizeof(line), "%s%*s", kmsg_fd >= 0 ? "rust-tests: " : "",
		     4 * depth, "");
	va_start(ap, fmt);
	vsnprintf(line + n, sizeof(line) - n - 1, fmt, ap);
	va_end(ap);
	n = strlen(line);
	line[n++] = '\n';
	/* One write per line: a kmsg record is never torn by other output. */
	if (kmsg_fd >= 0 && write(kmsg_fd, line, n) == n)
		return;
	fwrite(line, 1, n, stdout);
	fflush(stdout);
}

void ktap_result(int depth, bool ok, int number, const char *name, const char *directive)
{
	ktap_line(depth, "%s %d %s%s%s", ok ? "ok" : "not ok", number, name,
		  directive ? " # " : "", directive ? directive : "");
}
