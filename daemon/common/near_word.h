/* SPDX-License-Identifier: GPL-2.0 */
/*
 * "Did you mean": of the words a caller offers, the one a mistyped word
 * most likely was (edit distance, a swap of two neighbours counting one),
 * and only when it is close enough to be a typo.
 */
#ifndef TAOD_NEAR_WORD_H
#define TAOD_NEAR_WORD_H

struct near_word {
	const char *word; /* the mistyped word */
	const char *best; /* the closest offered so far, or NULL */
	unsigned dist;
};

void near_word_init(struct near_word *n, const char *word);
/* Offers @cand (kept, not copied: it must outlive @n). */
void near_word_offer(struct near_word *n, const char *cand);
/* The closest word offered when a typo could explain it, else NULL. */
const char *near_word_best(const struct near_word *n);

#endif
