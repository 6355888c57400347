/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The ioctls of the semaphore samples (rust_semaphore, rust_semaphore_c):
 * shared by the runner and by compat32, its 32-bit helper.
 */
#ifndef SEMAPHORE_H
#define SEMAPHORE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/ioctl.h>

/* The samples' ioctls, in this architecture's encoding */
#define IOCTL_GET_READ_COUNT _IOR('c', 1, uint64_t)
#define IOCTL_SET_READ_COUNT _IOW('c', 1, uint64_t)
#define IOCTL_UNKNOWN 0x1234u

/* An ioctl with a pointer to a u64: ioctl(2), or one through a 32-bit entry. */
typedef int (*ioctl_u64_fn)(int fd, unsigned long cmd, uint64_t *value);
/* ioctl(2) itself, as an ioctl_u64_fn */
int semaphore_native_ioctl(int fd, unsigned long cmd, uint64_t *value);

/*
 * SET_READ_COUNT 5, then GET_READ_COUNT is 5, then an unknown ioctl fails
 * with ENOTTY, through call; value is the u64 the calls point to. 0, or -1
 * with what was seen in seen[size].
 */
int semaphore_ioctls(int fd, ioctl_u64_fn call, uint64_t *value, char *seen, size_t size);

#endif
