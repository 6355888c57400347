/* SPDX-License-Identifier: GPL-2.0 */
/* Kernel modules of the running kernel, with the system calls (no modprobe). */
#ifndef MODULE_H
#define MODULE_H

#include <stdbool.h>
#include <stddef.h>

/* The path of module's .ko, from modules.dep of the running kernel. */
bool module_path(const char *module, char *path, size_t size);
/* Load module with params ("a=1 b=2", as modprobe passes them): 0 or an errno. */
int module_load(const char *module, const char *params);
/* The same for the .ko at path (module_path()'s), when loading it many times. */
int module_load_path(const char *path, const char *params);
/* Unload module without waiting (O_NONBLOCK, as rmmod): 0 or an errno. */
int module_unload(const char *module);
/* Whether /sys/module/<module> exists. */
bool module_loaded(const char *module);

#endif
