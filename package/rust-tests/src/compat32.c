// SPDX-License-Identifier: GPL-2.0
/*
 * compat32 PATH: the semaphore samples' ioctls from a 32-bit program, so
 * that a 64-bit kernel calls the driver's .compat_ioctl. Built as a static
 * 32-bit ARM program for the aarch64 images (the kernel's AArch32 entry,
 * CONFIG_COMPAT); the runner's compat-ioctl check runs it. Prints what it
 * saw and exits 1 on a failure.
 */
#include "semaphore.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <errno.h>

int main(int argc, char **argv)
{
	char seen[300];
	uint64_t value;
	int fd;

	if (argc != 2) {
		fprintf(stderr, "usage: %s DEVICE\n", argv[0]);
		return 2;
	}
	fd = open(argv[1], O_RDWR);
	if (fd < 0) {
		printf("open %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	if (semaphore_ioctls(fd, semaphore_native_ioctl, &value, seen, sizeof(seen)) < 0) {
		printf("32-bit %s\n", seen);
		return 1;
	}
	return 0;
}
