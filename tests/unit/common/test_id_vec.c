// SPDX-License-Identifier: GPL-2.0
/*
 * The id vector: sorted by id, one element per id. Callers guarantee that
 * (account and decide look an id up before they insert it), and the
 * asserts hold them to it: the test build keeps assert() on (the Makefile
 * refuses NDEBUG), so a broken contract aborts here instead of leaving a
 * table with two entries for a cgroup.
 */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>

#include "common/id_vec.h"

#ifdef NDEBUG
#error "the unit tests need assert() on: build them without -DNDEBUG (docs/contributing.md)"
#endif

struct item {
	uint64_t id;
};

static int keep_odd(void *ctx, void *item)
{
	(void)ctx;
	return ((struct item *)item)->id % 2;
}

static void count_drop(void *ctx, void *item)
{
	(void)item;
	++*(int *)ctx;
}

Test(id_vec, insert_keeps_ids_sorted_and_filter_drops)
{
	struct item it[] = {{5}, {1}, {4}, {2}, {3}};
	struct id_vec iv = {0};
	int dropped = 0;

	for (size_t i = 0; i < sizeof(it) / sizeof(*it); i++)
		cr_assert_eq(id_vec_insert(&iv, &it[i]), 0);
	for (size_t i = 0; i < iv.n; i++)
		cr_assert_eq(((struct item *)iv.v[i])->id, i + 1);
	cr_assert_eq(id_vec_find(&iv, 4), &it[2]);
	cr_assert_null(id_vec_find(&iv, 6));
	id_vec_filter(&iv, keep_odd, count_drop, &dropped);
	cr_assert_eq(iv.n, 3);
	cr_assert_eq(dropped, 2);
	free(iv.v);
}

Test(id_vec, id_vec_insert_of_a_present_id_aborts, .signal = SIGABRT)
{
	struct item a = {7}, b = {7};
	struct id_vec iv = {0};

	cr_assert_eq(id_vec_insert(&iv, &a), 0);
	id_vec_insert(&iv, &b);
}

Test(id_vec, id_vec_filter_without_drop_aborts, .signal = SIGABRT)
{
	struct id_vec iv = {0};

	id_vec_filter(&iv, keep_odd, NULL, NULL);
}
