/* SPDX-License-Identifier: GPL-2.0 */
/* A scratch directory of config files for one test. */
#ifndef TAOD_TEST_TMP_CONF_H
#define TAOD_TEST_TMP_CONF_H

/* Creates the directory; returns its path. */
const char *tmp_conf_setup(void);
void tmp_conf_teardown(void);
/* Writes @text to @name (may contain a subdirectory made before); returns the path. */
const char *tmp_conf_write(const char *name, const char *text);

#endif
