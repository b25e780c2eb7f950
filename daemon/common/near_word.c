// SPDX-License-Identifier: GPL-2.0
#include "near_word.h"

#include <string.h>

/* Longer words are no typo of a setting's name; it also bounds the work. */
#define NEAR_MAX 64

/* Optimal string alignment distance of @a and @b (each at most NEAR_MAX bytes). */
static unsigned distance(const char *a, size_t la, const char *b, size_t lb)
{
	unsigned d[NEAR_MAX + 1][NEAR_MAX + 1];

	for (size_t i = 0; i <= la; i++)
		d[i][0] = (unsigned)i;
	for (size_t j = 0; j <= lb; j++)
		d[0][j] = (unsigned)j;
	for (size_t i = 1; i <= la; i++)
		for (size_t j = 1; j <= lb; j++) {
			unsigned cost = a[i - 1] != b[j - 1], best = d[i - 1][j - 1] + cost;

			if (d[i - 1][j] + 1 < best)
				best = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < best)
				best = d[i][j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    d[i - 2][j - 2] + 1 < best)
				best = d[i - 2][j - 2] + 1;
			d[i][j] = best;
		}
	return d[la][lb];
}

void near_word_init(struct near_word *n, const char *word)
{
	n->word = word;
	n->best = NULL;
	n->dist = ~0u;
}

void near_word_offer(struct near_word *n, const char *cand)
{
	size_t la = strlen(n->word), lb = strlen(cand);
	unsigned d;

	if (la > NEAR_MAX || lb > NEAR_MAX || !strcmp(n->word, cand))
		return;
	d = distance(n->word, la, cand, lb);
	if (d < n->dist) {
		n->dist = d;
		n->best = cand;
	}
}

const char *near_word_best(const struct near_word *n)
{
	size_t len = strlen(n->word);

	/* One edit in a short word, two in a longer one: past that, a guess. */
	return n->best && n->dist <= (len <= 4 ? 1u : 2u) ? n->best : NULL;
}
