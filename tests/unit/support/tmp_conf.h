/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A scratch directory of config files for one test (support/scratch.h's
 * tree): every test that loads a config it wrote writes it here.
 */
#ifndef TAOD_TEST_TMP_CONF_H
#define TAOD_TEST_TMP_CONF_H

#include <stddef.h>

/* Creates the directory; returns its path. */
const char *tmp_conf_setup(void);
/* The same as a suite's .init: TestSuite(s, .init = tmp_conf_init, .fini = tmp_conf_teardown). */
void tmp_conf_init(void);
/* Removes the directory and everything in it; fails the test if it cannot. */
void tmp_conf_teardown(void);
/*
 * Writes @text to @name under the directory, making @name's missing parent
 * directories ("main.conf.d/10-a.conf"); returns the path, valid until the
 * next write.
 */
const char *tmp_conf_write(const char *name, const char *text);
/* The same for @len bytes of @data, NULs too. */
const char *tmp_conf_write_bytes(const char *name, const void *data, size_t len);

#endif
