/* SPDX-License-Identifier: GPL-2.0 */
/* The build's version (git describe), set once by the Makefile. */
#ifndef TAOD_VERSION_H
#define TAOD_VERSION_H

const char *taod_version(void);

#endif
