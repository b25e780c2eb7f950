// SPDX-License-Identifier: GPL-2.0
#include "version.h"

#ifndef TAOD_VERSION
#error "TAOD_VERSION is set by the Makefile (git describe, or 0.1 outside git)"
#endif

const char *taod_version(void)
{
	return TAOD_VERSION;
}
