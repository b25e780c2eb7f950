// SPDX-License-Identifier: GPL-2.0
#include <criterion/criterion.h>
#include <errno.h>

#include "common/parse.h"

Test(parse, durations)
{
	uint64_t ms;

	cr_assert_eq(parse_duration_ms("250ms", &ms), 0);
	cr_assert_eq(ms, 250);
	cr_assert_eq(parse_duration_ms("2", &ms), 0);
	cr_assert_eq(ms, 2000);
	cr_assert_eq(parse_duration_ms("5m", &ms), 0);
	cr_assert_eq(ms, 300000);
	cr_assert_eq(parse_duration_ms("7d", &ms), 0);
	cr_assert_eq(ms, 7ULL * 86400000);
	cr_assert_eq(parse_duration_ms("1x", &ms), -EINVAL);
	cr_assert_eq(parse_duration_ms("-1s", &ms), -EINVAL);
	cr_assert_eq(parse_duration_ms("", &ms), -EINVAL);
	cr_assert_eq(parse_duration_ms("99999999999999999999s", &ms), -ERANGE);
}

Test(parse, sizes)
{
	uint64_t b;

	cr_assert_eq(parse_size_bytes("4096", &b), 0);
	cr_assert_eq(b, 4096);
	cr_assert_eq(parse_size_bytes("2M", &b), 0);
	cr_assert_eq(b, 2 << 20);
	cr_assert_eq(parse_size_bytes("1GiB", &b), 0);
	cr_assert_eq(b, 1ULL << 30);
	cr_assert_eq(parse_size_bytes("3k", &b), 0);
	cr_assert_eq(b, 3072);
	cr_assert_eq(parse_size_bytes("2Q", &b), -EINVAL);
	cr_assert_eq(parse_size_bytes("20000P", &b), -ERANGE);
}

Test(parse, bools_percents_modes)
{
	bool v;
	double p;
	unsigned m;

	cr_assert_eq(parse_bool("Yes", &v), 0);
	cr_assert(v);
	cr_assert_eq(parse_bool("off", &v), 0);
	cr_assert_not(v);
	cr_assert_eq(parse_bool("maybe", &v), -EINVAL);
	cr_assert_eq(parse_percent("12.5%", &p), 0);
	cr_assert_float_eq(p, 12.5, 1e-9);
	cr_assert_eq(parse_percent("101", &p), -ERANGE);
	cr_assert_eq(parse_percent("x", &p), -EINVAL);
	cr_assert_eq(parse_mode("0660", &m), 0);
	cr_assert_eq(m, 0660);
	cr_assert_eq(parse_mode("0999", &m), -EINVAL);
}

Test(parse, ranges_and_their_text)
{
	char buf[32];

	cr_assert_eq(check_range(5, 5, 9), 0);
	cr_assert_eq(check_range(9, 5, 9), 0);
	cr_assert_eq(check_range(10, 5, 9), -ERANGE);
	cr_assert_eq(check_range(4, 5, 9), -ERANGE);
	format_duration_ms(buf, sizeof(buf), 600000);
	cr_assert_str_eq(buf, "10m");
	format_duration_ms(buf, sizeof(buf), 366ULL * 86400000);
	cr_assert_str_eq(buf, "366d");
	format_duration_ms(buf, sizeof(buf), 1500);
	cr_assert_str_eq(buf, "1500ms");
	format_duration_ms(buf, sizeof(buf), 0);
	cr_assert_str_eq(buf, "0ms");
	format_size_bytes(buf, sizeof(buf), 1ULL << 50);
	cr_assert_str_eq(buf, "1P");
	format_size_bytes(buf, sizeof(buf), 4096);
	cr_assert_str_eq(buf, "4K");
	format_size_bytes(buf, sizeof(buf), 4097);
	cr_assert_str_eq(buf, "4097");
	format_size_bytes(buf, sizeof(buf), 0);
	cr_assert_str_eq(buf, "0");
}
