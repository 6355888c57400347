// SPDX-License-Identifier: GPL-2.0
#include "semaphore.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static const char *name(int e)
{
	return e == ENOTTY ? "ENOTTY" : e == EINVAL ? "EINVAL" : e == EFAULT ? "EFAULT" : strerror(e);
}

int semaphore_native_ioctl(int fd, unsigned long cmd, uint64_t *value)
{
	return ioctl(fd, cmd, value);
}

int semaphore_ioctls(int fd, ioctl_u64_fn call, uint64_t *value, char *seen, size_t size)
{
	int rc;

	*value = 5;
	rc = call(fd, IOCTL_SET_READ_COUNT, value);
	if (rc == 0) {
		*value = 0;
		rc = call(fd, IOCTL_GET_READ_COUNT, value);
	}
	if (rc != 0) {
		snprintf(seen, size, "ioctl returned %d, %s", rc, name(errno));
		return -1;
	}
	if (*value != 5) {
		snprintf(seen, size, "GET_READ_COUNT = %llu after SET 5", (unsigned long long)*value);
		return -1;
	}
	rc = call(fd, IOCTL_UNKNOWN, value);
	if (rc != -1 || errno != ENOTTY) {
		snprintf(seen, size, "unknown ioctl returned %d%s%s", rc, rc < 0 ? ", " : "",
			 rc < 0 ? name(errno) : "");
		return -1;
	}
	return 0;
}
