/* SPDX-License-Identifier: GPL-2.0 */
/* What kind of file a mode names, for errors that say what is at a path. */
#ifndef TAOD_FILE_KIND_H
#define TAOD_FILE_KIND_H

#include <sys/types.h>

/* "a regular file", "a directory", "a FIFO"...: never NULL. */
const char *file_kind_name(mode_t mode);

#endif
