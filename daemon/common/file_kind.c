// SPDX-License-Identifier: GPL-2.0
#include "file_kind.h"

#include <sys/stat.h>

const char *file_kind_name(mode_t m)
{
	return S_ISREG(m)    ? "a regular file"
	       : S_ISDIR(m)  ? "a directory"
	       : S_ISLNK(m)  ? "a symbolic link"
	       : S_ISFIFO(m) ? "a FIFO"
	       : S_ISCHR(m)  ? "a character device"
	       : S_ISBLK(m)  ? "a block device"
	       : S_ISSOCK(m) ? "a socket"
			     : "a file of unknown kind";
}
