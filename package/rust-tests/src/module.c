// SPDX-License-Identifier: GPL-2.0
#include "module.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

bool module_path(const char *module, char *path, size_t size)
{
	char dep[300], line[1024], want[160];
	struct utsname u;
	bool found = false;
	FILE *f;

	uname(&u);
	snprintf(dep, sizeof(dep), "/lib/modules/%s/modules.dep", u.release);
	snprintf(want, sizeof(want), "/%s.ko:", module);
	f = fopen(dep, "r");
	while (f && !found && fgets(line, sizeof(line), f)) {
		char *colon = strstr(line, want);

		if (colon) {
			colon[strlen(want) - 1] = '\0';
			snprintf(path, size, "/lib/modules/%.64s/%.400s", u.release, line);
			found = true;
		}
	}
	if (f)
		fclose(f);
	return found;
}

int module_load(const char *module, const char *params)
{
	char path[600];

	if (!module_path(module, path, sizeof(path)))
		return ENOENT;
	return module_load_path(path, params);
}

int module_load_path(const char *path, const char *params)
{
	int fd, err = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	if (syscall(SYS_finit_module, fd, params, 0) != 0)
		err = errno;
	close(fd);
	return err;
}

int module_unload(const char *module)
{
	return syscall(SYS_delete_module, module, O_NONBLOCK) == 0 ? 0 : errno;
}

bool module_loaded(const char *module)
{
	char path[200];

	snprintf(path, sizeof(path), "/sys/module/%s", module);
	return access(path, F_OK) == 0;
}
