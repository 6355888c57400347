/* SPDX-License-Identifier: GPL-2.0 */
/* The value of a hex digit of a \xNN escape, either case; -1 if none. */
#ifndef HEX_H
#define HEX_H

static inline int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

#endif
