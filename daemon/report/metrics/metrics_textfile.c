// SPDX-License-Identifier: GPL-2.0
/*
 * The node_exporter textfile: written to a fresh temporary file in the
 * same directory and renamed over the old one, so the collector never
 * reads a half-written file.
 */
#include "metrics.h"
#include "common/state_files.h"

static int write_metrics(FILE *f, const void *in)
{
	return metrics_write(f, in);
}

int metrics_textfile_write(const char *path, const struct metrics_input *in)
{
	/* Read by node_exporter, which runs as another user: world-readable. */
	return replace_file_atomically(path, 0644, write_metrics, in);
}
