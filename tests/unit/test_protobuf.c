// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* output/protobuf.c against byte sequences from the protobuf encoding guide. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "output/protobuf.h"

static void expect_bytes(const struct pb_buf *b, const uint8_t *want, size_t n)
{
	assert_int_equal(b->err, 0);
	assert_int_equal(b->len, n);
	assert_memory_equal(b->data, want, n);
}

static void varints_use_seven_bits_per_byte_low_group_first(void **state)
{
	static const struct {
		uint64_t v;
		uint8_t bytes[10];
		size_t n;
	} cases[] = {
		{ 0, { 0x00 }, 1 },
		{ 1, { 0x01 }, 1 },
		{ 127, { 0x7f }, 1 },
		{ 128, { 0x80, 0x01 }, 2 },
		{ 150, { 0x96, 0x01 }, 2 },
		{ 300, { 0xac, 0x02 }, 2 },
		{ UINT64_MAX, { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01 }, 10 },
	};
	struct pb_buf b;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		pb_buf__init(&b);
		pb_put_varint(&b, cases[i].v);
		expect_bytes(&b, cases[i].bytes, cases[i].n);
		assert_int_equal(pb_varint_len(cases[i].v), cases[i].n);
		pb_buf__release(&b);
	}
}

static void a_varint_field_is_key_then_value(void **state)
{
	static const uint8_t want[] = { 0x08, 0x96, 0x01 };	/* field 1 = 150 */
	struct pb_buf b;

	(void)state;
	pb_buf__init(&b);
	pb_put_uint64(&b, 1, 150);
	expect_bytes(&b, want, sizeof(want));
	pb_buf__release(&b);
}

static void a_negative_int64_takes_ten_bytes(void **state)
{
	static const uint8_t want[] = { 0x18, 0xff, 0xff, 0xff, 0xff, 0xff,
					0xff, 0xff, 0xff, 0xff, 0x01 };
	struct pb_buf b;

	(void)state;
	pb_buf__init(&b);
	pb_put_int64(&b, 3, -1);
	expect_bytes(&b, want, sizeof(want));
	pb_buf__release(&b);
}

static void a_string_is_length_delimited_without_its_nul(void **state)
{
	static const uint8_t want[] = { 0x12, 0x07, 't', 'e', 's', 't', 'i', 'n', 'g' };
	struct pb_buf b;

	(void)state;
	pb_buf__init(&b);
	pb_put_string(&b, 2, "testing");
	expect_bytes(&b, want, sizeof(want));
	pb_buf__release(&b);
}

static void an_empty_string_is_key_and_zero_length(void **state)
{
	static const uint8_t want[] = { 0x32, 0x00 };
	struct pb_buf b;

	(void)state;
	pb_buf__init(&b);
	pb_put_string(&b, 6, "");
	expect_bytes(&b, want, sizeof(want));
	pb_buf__release(&b);
}

static void an_embedded_message_is_length_delimited(void **state)
{
	static const uint8_t want[] = { 0x1a, 0x03, 0x08, 0x96, 0x01 };
	struct pb_buf b, m;

	(void)state;
	pb_buf__init(&b);
	pb_buf__init(&m);
	pb_put_uint64(&m, 1, 150);
	pb_put_message(&b, 3, &m);
	expect_bytes(&b, want, sizeof(want));
	pb_buf__release(&b);
	pb_buf__release(&m);
}

static void packed_varints_share_one_length_prefix(void **state)
{
	static const uint8_t want[] = { 0x22, 0x06, 0x03, 0x8e, 0x02, 0x9e, 0xa7, 0x05 };
	static const uint64_t v[] = { 3, 270, 86942 };
	static const int64_t sv[] = { 3, 270, 86942 };
	struct pb_buf b;

	(void)state;
	pb_buf__init(&b);
	pb_put_packed_uint64(&b, 4, v, 3);
	expect_bytes(&b, want, sizeof(want));
	pb_buf__reset(&b);
	pb_put_packed_int64(&b, 4, sv, 3);
	expect_bytes(&b, want, sizeof(want));
	pb_buf__release(&b);
}

static void an_empty_packed_field_is_omitted(void **state)
{
	struct pb_buf b;

	(void)state;
	pb_buf__init(&b);
	pb_put_packed_uint64(&b, 1, NULL, 0);
	assert_int_equal(b.len, 0);
	pb_buf__release(&b);
}

static void large_field_numbers_and_bools_encode(void **state)
{
	static const uint8_t want[] = { 0x70, 0x01, 0x80, 0x01, 0x00 };	/* 14: true; 16: false */
	struct pb_buf b;

	(void)state;
	pb_buf__init(&b);
	pb_put_bool(&b, 14, true);
	pb_put_bool(&b, 16, false);
	expect_bytes(&b, want, sizeof(want));
	pb_buf__release(&b);
}

static void a_failed_sub_message_fails_its_parent(void **state)
{
	struct pb_buf b, m;

	(void)state;
	pb_buf__init(&b);
	pb_buf__init(&m);
	m.err = -12;
	pb_put_message(&b, 1, &m);
	assert_int_equal(b.err, -12);
	pb_put_uint64(&b, 1, 1);	/* dropped: the error is sticky */
	assert_int_equal(b.len, 0);
	pb_buf__release(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(varints_use_seven_bits_per_byte_low_group_first),
		cmocka_unit_test(a_varint_field_is_key_then_value),
		cmocka_unit_test(a_negative_int64_takes_ten_bytes),
		cmocka_unit_test(a_string_is_length_delimited_without_its_nul),
		cmocka_unit_test(an_empty_string_is_key_and_zero_length),
		cmocka_unit_test(an_embedded_message_is_length_delimited),
		cmocka_unit_test(packed_varints_share_one_length_prefix),
		cmocka_unit_test(an_empty_packed_field_is_omitted),
		cmocka_unit_test(large_field_numbers_and_bools_encode),
		cmocka_unit_test(a_failed_sub_message_fails_its_parent),
	};

	return cmocka_run_group_tests_name("protobuf", tests, NULL, NULL);
}
