// SPDX-License-Identifier: GPL-2.0
#include "tmp_conf.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TEMPLATE "/tmp/taod-config-XXXXXX"

static char dir[] = TEMPLATE;

const char *tmp_conf_setup(void)
{
	strcpy(dir, TEMPLATE);
	cr_assert_not_null(mkdtemp(dir));
	return dir;
}

void tmp_conf_teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	cr_assert_eq(system(cmd), 0);
	strcpy(dir, TEMPLATE);
}

const char *tmp_conf_write(const char *name, const char *text)
{
	static char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs(text, f);
	fclose(f);
	return path;
}
