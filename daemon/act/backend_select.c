// SPDX-License-Identifier: GPL-2.0
/* Which backend acts, and the outcome helper every backend uses. */
#include <stdarg.h>
#include <stdio.h>

#include "act_backend.h"

const struct act_backend_ops *act_backend_pick(enum act_backend_choice choice,
					       enum kernel_kind kind)
{
	switch (choice) {
	case BACKEND_TAO:
		return &backend_tao_ops;
	case BACKEND_STOCK:
		return &backend_stock_ops;
	case BACKEND_DRY_RUN:
		return &backend_dry_run_ops;
	case BACKEND_AUTO:
		break;
	}
	return kind == KERNEL_TAO ? &backend_tao_ops : &backend_stock_ops;
}

const char *act_backend_choice_name(enum act_backend_choice c)
{
	static const char *const names[] = {"auto", "tao", "stock", "dry-run"};

	return (unsigned)c < sizeof(names) / sizeof(names[0]) ? names[c] : "?";
}

void act_outcome_set(struct act_outcome *o, enum action_result r, int err, const char *fmt, ...)
{
	va_list ap;

	o->result = r;
	o->err = err;
	va_start(ap, fmt);
	vsnprintf(o->detail, sizeof(o->detail), fmt, ap);
	va_end(ap);
}
