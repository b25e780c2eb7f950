// SPDX-License-Identifier: GPL-2.0
/* Untrusted names leave taod as valid UTF-8 and one record per line. */
#include <criterion/criterion.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

#include "common/json_fields.h"
#include "report/metrics/metrics.h"
#include "common/utf8.h"

Test(utf8, sequence_lengths)
{
	cr_assert_eq(utf8_sequence_len("a"), 1);
	cr_assert_eq(utf8_sequence_len("\xc3\xa9"), 2);
	cr_assert_eq(utf8_sequence_len("\xe2\x82\xac"), 3);
	cr_assert_eq(utf8_sequence_len("\xf0\x9f\x98\x80"), 4);
	cr_assert_eq(utf8_sequence_len("\xff"), 0);
	cr_assert_eq(utf8_sequence_len("\xc0\xaf"), 0);		/* overlong '/' */
	cr_assert_eq(utf8_sequence_len("\xed\xa0\x80"), 0);	/* surrogate */
	cr_assert_eq(utf8_sequence_len("\xf4\x90\x80\x80"), 0); /* above U+10FFFF */
	cr_assert_eq(utf8_sequence_len("\xe2\x82"), 0);		/* cut short */
}

Test(utf8, sanitize_replaces_only_bad_bytes)
{
	char *s = utf8_sanitize_dup("/a\xff\xc3\xa9\xc0");

	cr_assert_str_eq(s, "/a\xef\xbf\xbd\xc3\xa9\xef\xbf\xbd");
	free(s);
}

Test(utf8, json_text_is_valid_utf8_and_parses_back)
{
	struct json_object *o = json_object_new_object(), *back;
	char *text;

	json_add_str(o, "cgroup", "/evil\xff\"\n/x");
	text = json_to_text(o, JSON_C_TO_STRING_PLAIN);
	cr_assert_not_null(text);
	for (const char *p = text; *p; p += utf8_sequence_len(p))
		cr_assert_neq(utf8_sequence_len(p), 0, "ill-formed byte in %s", text);
	cr_assert_null(strchr(text, '\n'));
	back = json_tokener_parse(text);
	cr_assert_not_null(back);
	cr_assert_str_eq(json_object_get_string(json_object_object_get(back, "cgroup")),
			 "/evil\xef\xbf\xbd\"\n/x");
	json_object_put(back);
	json_object_put(o);
	free(text);
}

Test(utf8, log_escape_keeps_one_line_and_quotes)
{
	char out[128];

	text_escape("a\nb\"c\\\xff\xc3\xa9", out, sizeof(out), true);
	cr_assert_str_eq(out, "a\\x0ab\\\"c\\\\\\xff\xc3\xa9");
	text_escape("say \"hi\"\r", out, sizeof(out), false);
	cr_assert_str_eq(out, "say \"hi\"\\x0d");
	text_escape("abcdef", out, 4, false);
	cr_assert_str_eq(out, "abc");
}

/* C1 controls (U+0080..U+009F) are CSI, OSC... to a terminal: escaped byte by byte. */
Test(utf8, c1_controls_escaped_other_text_kept)
{
	char out[128];

	text_escape("a\xc2\x9b"
		    "31m\xc2\x85\xc2\xa0\xc3\xa9\x1b\t\x7f\x80",
		    out, sizeof(out), false);
	cr_assert_str_eq(out, "a\\xc2\\x9b31m\\xc2\\x85\xc2\xa0\xc3\xa9\\x1b\\x09\\x7f\\x80");
}

Test(utf8, prometheus_labels_are_utf8)
{
	char out[64];

	prom_escape_label("/a\xff\"\n\xc3\xa9", out, sizeof(out));
	cr_assert_str_eq(out, "/a\xef\xbf\xbd\\\"\\n\xc3\xa9");
}
