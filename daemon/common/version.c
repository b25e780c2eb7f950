// SPDX-License-Identifier: GPL-2.0
#include "taod/version.h"

#ifndef TAOD_VERSION
#define TAOD_VERSION "0.1"
#endif

const char *taod_version(void)
{
	return TAOD_VERSION;
}
