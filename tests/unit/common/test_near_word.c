// SPDX-License-Identifier: GPL-2.0
#include <criterion/criterion.h>
#include <string.h>

#include "common/near_word.h"

static const char *near(const char *word, const char *const *cands)
{
	struct near_word n;

	near_word_init(&n, word);
	for (; *cands; cands++)
		near_word_offer(&n, *cands);
	return near_word_best(&n);
}

static const char *const sections[] = {"daemon", "control", "kernel", "history", "enforce", NULL};

Test(near_word, a_swap_of_neighbours_is_one_typo)
{
	cr_assert_str_eq(near("deamon", sections), "daemon");
	cr_assert_str_eq(near("contrl", sections), "control");
	cr_assert_str_eq(near("histroy", sections), "history");
}

Test(near_word, far_words_suggest_nothing)
{
	cr_assert_null(near("frobnicate", sections));
	cr_assert_null(near("pol", sections));
	cr_assert_null(near("daemon", sections), "the word itself is no suggestion");
	const char *const short_words[] = {"tao", "mode", NULL};

	cr_assert_null(near("xyz", short_words), "two edits in a short word: a guess");
	cr_assert_str_eq(near("tau", short_words), "tao");
}

Test(near_word, long_words_are_bounded)
{
	char big[200];

	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	cr_assert_null(near(big, sections));
}
