/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel command-line drop-in `taoctl zones --apply` writes for the
 * next boot: a shell fragment that Debian's grub configuration sources
 * (/etc/default/grub.d/NAME.cfg), appending to GRUB_CMDLINE_LINUX.
 */
#ifndef TAOD_CMDLINE_DROPIN_H
#define TAOD_CMDLINE_DROPIN_H

#include <stddef.h>

/*
 * The drop-in's text for @params ("nosplit=512M,4 nomerge=1536M,9").
 * 0, or -EINVAL when @params holds a character the shell would read
 * (only [A-Za-z0-9=,.% _-] pass) or is empty, -ENOSPC when @len is short.
 */
int cmdline_dropin_text(const char *params, char *buf, size_t len);
/*
 * Writes the drop-in at @path (under the root prefix) whole: a fresh
 * mkostemp file, synced and renamed over it, so grub never reads half of
 * one and nothing planted beside it (a FIFO, a hard link) is written
 * through. Creates the missing last directory. 0, or -errno.
 */
int cmdline_dropin_write(const char *path, const char *params);

#endif
