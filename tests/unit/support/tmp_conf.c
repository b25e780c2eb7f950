// SPDX-License-Identifier: GPL-2.0
#include "tmp_conf.h"

#include <criterion/criterion.h>

#include "scratch.h"

static char dir[SCRATCH_DIR_MAX];

const char *tmp_conf_setup(void)
{
	return scratch_make(dir, "config");
}

void tmp_conf_init(void)
{
	tmp_conf_setup();
}

void tmp_conf_teardown(void)
{
	cr_assert_eq(scratch_remove(dir), 0, "removing %s", dir);
	dir[0] = '\0';
}

const char *tmp_conf_write(const char *name, const char *text)
{
	return scratch_write(dir, name, text);
}

const char *tmp_conf_write_bytes(const char *name, const void *data, size_t len)
{
	return scratch_write_bytes(dir, name, data, len);
}
