/*
 * test_encodings.c — the value encodings of cspark.h: i64/f64 round trips and byte order equal
 * to numeric order (what sort_by_key relies on), and the list/pair decoders used for
 * group_by_key, cogroup and join values, including malformed input; tuples (round trips, memcmp
 * order equal to field-by-field order over random tuples, sizes past the buffer, malformed
 * input), list building and the sides of outer-join values.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
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

typedef struct tup {
    int64_t a;
    uint8_t s[6];
    size_t slen;
    double d;
} tup;

static size_t tup_write(const tup *t, uint8_t *buf, size_t cap)
{
    cspark_tuple_writer w;
    cspark_tuple_init(&w, buf, cap);
    cspark_tuple_put_i64(&w, t->a);
    cspark_tuple_put_bytes(&w, t->s, t->slen);
    cspark_tuple_put_f64(&w, t->d);
    assert_true(cspark_tuple_ok(&w) == (w.len <= cap));
    return w.len;
}

/* field order: a, then s (bytes, shorter prefix first), then d */
static int tup_cmp(const tup *x, const tup *y)
{
    if (x->a != y->a) return x->a < y->a ? -1 : 1;
    size_t n = x->slen < y->slen ? x->slen : y->slen;
    int c = memcmp(x->s, y->s, n);
    if (c) return c < 0 ? -1 : 1;
    if (x->slen != y->slen) return x->slen < y->slen ? -1 : 1;
    return x->d < y->d ? -1 : x->d > y->d;
}

static void random_tup(tup *t, unsigned *seed)
{
    t->a = (int64_t)(rand_r(seed) % 5) - 2;
    t->slen = (size_t)(rand_r(seed) % 7);
    for (size_t i = 0; i < t->slen; i++)
        t->s[i] = (uint8_t) "\0\1a\xff"[rand_r(seed) % 4]; /* zero bytes and their neighbours */
    t->d = (double)(rand_r(seed) % 5) - 2.5;
}

static void tuples_round_trip_and_order(void **state)
{
    unsigned seed = 1313;
    for (int iter = 0; iter < 20000; iter++) {
        tup x, y;
        random_tup(&x, &seed);
        random_tup(&y, &seed);
        uint8_t bx[64], by[64], scratch[16];
        size_t lx = tup_write(&x, bx, sizeof bx), ly = tup_write(&y, by, sizeof by);
        /* round trip */
        cspark_tuple_reader r = cspark_tuple_read((cspark_slice){bx, (uint32_t)lx});
        int64_t a = 0;
        cspark_slice s;
        double d = 0;
        assert_true(cspark_tuple_get_i64(&r, &a));
        assert_true(cspark_tuple_get_bytes(&r, &s, scratch, sizeof scratch));
        assert_true(cspark_tuple_get_f64(&r, &d));
        assert_int_equal(r.rest.len, 0);
        assert_true(a == x.a && d == x.d);
        assert_int_equal(s.len, x.slen);
        if (x.slen) assert_memory_equal(s.ptr, x.s, x.slen);
        /* memcmp order (shorter prefix first) == field order */
        size_t n = lx < ly ? lx : ly;
        int c = memcmp(bx, by, n);
        if (!c) c = lx < ly ? -1 : lx > ly;
        assert_int_equal(c < 0 ? -1 : c > 0, tup_cmp(&x, &y));
    }
}

static void tuple_sizes_and_malformed(void **state)
{
    uint8_t small[4];
    cspark_tuple_writer w;
    cspark_tuple_init(&w, small, sizeof small);
    cspark_tuple_put_i64(&w, 7);
    cspark_tuple_put_str(&w, "a\0b");
    assert_false(cspark_tuple_ok(&w));
    assert_int_equal(w.len, 8 + 1 + 2); /* "a" and its terminator: strlen stops at \0 */
    uint8_t zeros[3] = {0, 0, 0};
    cspark_tuple_init(&w, NULL, 0);
    cspark_tuple_put_bytes(&w, zeros, 3);
    assert_int_equal(w.len, 3 * 2 + 2); /* each 0x00 escaped, then the terminator */

    /* a field without its terminator, a bad escape, too short numbers */
    uint8_t bad1[] = {'a', 'b'}, bad2[] = {'a', 0, 7, 0, 1}, esc[] = {0, 0xFF, 0, 1};
    cspark_slice s;
    uint8_t scratch[1];
    cspark_tuple_reader r = cspark_tuple_read((cspark_slice){bad1, 2});
    assert_false(cspark_tuple_get_bytes(&r, &s, NULL, 0));
    r = cspark_tuple_read((cspark_slice){bad2, 5});
    assert_false(cspark_tuple_get_bytes(&r, &s, NULL, 0));
    r = cspark_tuple_read((cspark_slice){esc, 4});
    assert_false(cspark_tuple_get_bytes(&r, &s, NULL, 0)); /* needs scratch for the 0x00 */
    assert_true(cspark_tuple_get_bytes(&r, &s, scratch, 1));
    assert_int_equal(s.len, 1);
    assert_int_equal(s.ptr[0], 0);
    int64_t v;
    r = cspark_tuple_read((cspark_slice){bad1, 2});
    assert_false(cspark_tuple_get_i64(&r, &v));
}

static void list_building_and_join_sides(void **state)
{
    uint8_t buf[32], *p = buf;
    p = cspark_list_put(p, "ab", 2);
    p = cspark_list_put(p, "", 0);
    p = cspark_list_put(p, "c", 1);
    cspark_slice list = {buf, (uint32_t)(p - buf)}, item;
    assert_int_equal(cspark_list_count(list), 3);
    assert_true(cspark_list_next(&list, &item));
    assert_memory_equal(item.ptr, "ab", 2);

    /* both sides, right absent, left absent, malformed */
    uint8_t both[] = {1, 0, 0, 0, 'L', 1, 'R', 'R'};
    uint8_t left_only[] = {1, 0, 0, 0, 'L', 0};
    uint8_t right_only[] = {0xFF, 0xFF, 0xFF, 0xFF, 1, 'R'};
    uint8_t bad[] = {9, 0, 0, 0, 'L', 1};
    cspark_slice l, r;
    assert_int_equal(cspark_join_sides((cspark_slice){both, 8}, &l, &r),
                     CSPARK_LEFT | CSPARK_RIGHT);
    assert_int_equal(l.len, 1);
    assert_int_equal(r.len, 2);
    assert_int_equal(cspark_join_sides((cspark_slice){left_only, 6}, &l, &r), CSPARK_LEFT);
    assert_null(r.ptr);
    assert_int_equal(cspark_join_sides((cspark_slice){right_only, 6}, &l, &r), CSPARK_RIGHT);
    assert_null(l.ptr);
    assert_int_equal(r.ptr[0], 'R');
    assert_int_equal(cspark_join_sides((cspark_slice){bad, 6}, &l, &r), 0);
    /* an inner join's pair reads the same way */
    assert_true(cspark_pair_split((cspark_slice){both, 8}, &l, &r));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(i64_round_trip_and_order),  cmocka_unit_test(f64_round_trip_and_order),
        cmocka_unit_test(lists_and_pairs),           cmocka_unit_test(tuples_round_trip_and_order),
        cmocka_unit_test(tuple_sizes_and_malformed), cmocka_unit_test(list_building_and_join_sides),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
