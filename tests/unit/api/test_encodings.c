/*
 * test_encodings.c — the value encodings of cspark.h: i64/f64 round trips and byte order equal
 * to numeric order (what sort_by_key relies on), and the list/pair decoders used for
 * group_by_key, cogroup and join values, including malformed input.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "cspark.h"

static const int64_t I64[] = {0, 1, -1, INT64_MIN, INT64_MAX, 123456789, -987654321, 255, 256};
static const double F64[] = {0.0, -0.5, 1.5, -1e300, 1e300, 3.14159, -2.0, 1e-300, -1e-300};
#define N(a) (sizeof(a) / sizeof((a)[0]))

static void i64_round_trip_and_order(void **state)
{
    uint8_t a[8], b[8];
    for (size_t i = 0; i < N(I64); i++) {
        cspark_i64_encode(I64[i], a);
        assert_true(cspark_i64_decode(a) == I64[i]);
        for (size_t j = 0; j < N(I64); j++) {
            cspark_i64_encode(I64[j], b);
            int c = memcmp(a, b, 8);
            assert_int_equal(c < 0, I64[i] < I64[j]);
            assert_int_equal(c == 0, I64[i] == I64[j]);
        }
    }
    cspark_i64_encode(1, a); /* big-endian, sign bit flipped */
    assert_int_equal(a[0], 0x80);
    assert_int_equal(a[7], 1);
    cspark_slice s = {a, 8}, short_slice = {a, 7};
    assert_true(cspark_slice_i64(s) == 1);
    assert_true(cspark_slice_i64(short_slice) == 0);
}

static void f64_round_trip_and_order(void **state)
{
    uint8_t a[8], b[8];
    for (size_t i = 0; i < N(F64); i++) {
        cspark_f64_encode(F64[i], a);
        assert_true(cspark_f64_decode(a) == F64[i]);
        for (size_t j = 0; j < N(F64); j++) {
            cspark_f64_encode(F64[j], b);
            assert_int_equal(memcmp(a, b, 8) < 0, F64[i] < F64[j]);
        }
    }
}

static void lists_and_pairs(void **state)
{
    /* list ["ab", "", "c"] */
    uint8_t list[] = {2, 0, 0, 0, 'a', 'b', 0, 0, 0, 0, 1, 0, 0, 0, 'c'};
    cspark_slice l = {list, sizeof list}, item;
    assert_true(cspark_list_next(&l, &item));
    assert_int_equal(item.len, 2);
    assert_memory_equal(item.ptr, "ab", 2);
    assert_true(cspark_list_next(&l, &item));
    assert_int_equal(item.len, 0);
    assert_true(cspark_list_next(&l, &item));
    assert_memory_equal(item.ptr, "c", 1);
    assert_false(cspark_list_next(&l, &item));
    /* a length running past the end is refused */
    uint8_t bad[] = {9, 0, 0, 0, 'x'};
    cspark_slice b = {bad, sizeof bad};
    assert_false(cspark_list_next(&b, &item));

    /* pair ("L", present "RR") and ("L", absent) */
    uint8_t pair[] = {1, 0, 0, 0, 'L', 1, 'R', 'R'};
    cspark_slice first, second;
    assert_true(cspark_pair_split((cspark_slice){pair, sizeof pair}, &first, &second));
    assert_memory_equal(first.ptr, "L", 1);
    assert_int_equal(second.len, 2);
    assert_memory_equal(second.ptr, "RR", 2);
    uint8_t half[] = {1, 0, 0, 0, 'L', 0};
    assert_false(cspark_pair_split((cspark_slice){half, sizeof half}, &first, &second));
    assert_int_equal(first.len, 1);
    assert_null(second.ptr);
    uint8_t broken[] = {200, 0, 0, 0, 'L', 1};
    assert_false(cspark_pair_split((cspark_slice){broken, sizeof broken}, &first, &second));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(i64_round_trip_and_order),
        cmocka_unit_test(f64_round_trip_and_order),
        cmocka_unit_test(lists_and_pairs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
