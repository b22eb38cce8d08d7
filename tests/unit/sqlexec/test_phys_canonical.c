/*
 * test_phys_canonical.c — canonical forms of physical subtrees (src/sqlexec/phys_canonical.c),
 * which exchange reuse compares: two exchanges over the same rows computed the same way are
 * equal whatever their plan ids and output names; a different literal, partition count,
 * partitioning, shuffle origin or REPARTITION(n)'s fixed count makes them differ; operands
 * that commute compare in any order (Spark's Canonicalize: OR / AND chains, =, > as <); a
 * ReusedExchange leaf compares as the exchange it reads; and the map of forms finds a form again.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "phys_test_util.h"
#include "sqlexec/phys_canonical.h"

/* Exchange hashpartitioning(k, parts) <- Filter (k < bound) <- LocalTableScan of 20 rows, with
 * the plan ids from id and the columns named k, v. */
static cs_phys_node *exchange(const char *k, const char *v, int id, int64_t bound, int parts)
{
    cs_phys_node *scan = local_kv_named(k, v, 20, 7, 100);
    scan->id = id + 2;
    cs_phys_node *f = unary(CS_PH_FILTER, kv_schema_named(k, v), scan);
    f->id = id + 1;
    f->condition = call2("<", col(0), lit(bound));
    cs_phys_node *ex = unary(CS_PH_EXCHANGE, kv_schema_named(k, v), f);
    ex->id = id;
    ex->partitioning = CS_PART_HASH;
    ex->num_partitions = parts;
    ex->n_exprs = 1;
    ex->exprs = calloc(1, sizeof *ex->exprs);
    ex->exprs[0] = col(0);
    return ex;
}

static void test_ids_and_names_do_not_count(void **state)
{
    (void)state;
    cs_phys_node *a = exchange("k", "v", 10, 5, 4), *b = exchange("l_k", "l_v", 40, 5, 4);
    assert_true(cs_phys_canonical_equal(a, b));
    assert_true(cs_phys_canonical_equal(a->children[0], b->children[0]));
    cs_sbuf ca = CS_SBUF_INIT, cb = CS_SBUF_INIT;
    cs_error err = {0};
    assert_int_equal(cs_phys_canonical(a, &ca, &err), 0);
    assert_int_equal(cs_phys_canonical(b, &cb, &err), 0);
    assert_int_equal(ca.len, cb.len);
    assert_memory_equal(ca.data, cb.data, ca.len);
    /* the plain wire form differs: it carries the ids and names */
    cs_sbuf wa = CS_SBUF_INIT, wb = CS_SBUF_INIT;
    assert_int_equal(cs_phys_encode(a, &wa, &err), 0);
    assert_int_equal(cs_phys_encode(b, &wb, &err), 0);
    assert_false(wa.len == wb.len && memcmp(wa.data, wb.data, wa.len) == 0);
    cs_sbuf_free(&ca);
    cs_sbuf_free(&cb);
    cs_sbuf_free(&wa);
    cs_sbuf_free(&wb);
    cs_phys_free(a);
    cs_phys_free(b);
}

static void test_what_the_rows_depend_on_counts(void **state)
{
    (void)state;
    cs_phys_node *a = exchange("k", "v", 10, 5, 4);
    cs_phys_node *lit6 = exchange("k", "v", 10, 6, 4), *parts8 = exchange("k", "v", 10, 5, 8);
    assert_false(cs_phys_canonical_equal(a, lit6));
    assert_false(cs_phys_canonical_equal(a, parts8));
    cs_phys_node *b = exchange("k", "v", 10, 5, 4);
    b->partitioning = CS_PART_ROUND_ROBIN;
    assert_false(cs_phys_canonical_equal(a, b));
    b->partitioning = CS_PART_HASH;
    assert_true(cs_phys_canonical_equal(a, b));
    b->user_partitions = true; /* REPARTITION(4): never coalesced */
    assert_false(cs_phys_canonical_equal(a, b));
    b->user_partitions = false;
    b->shuffle_origin = CS_ORIGIN_REPARTITION_BY_COL;
    assert_false(cs_phys_canonical_equal(a, b));
    /* the scan's rows */
    cs_phys_node *c = exchange("k", "v", 10, 5, 4);
    cs_phys_node *scan = c->children[0]->children[0];
    c->children[0]->children[0] = local_kv_named("k", "v", 20, 7, 101);
    cs_phys_free(scan);
    assert_false(cs_phys_canonical_equal(a, c));
    cs_phys_free(a);
    cs_phys_free(b);
    cs_phys_free(c);
    cs_phys_free(lit6);
    cs_phys_free(parts8);
}

static void test_commuting_operands_compare_in_any_order(void **state)
{
    (void)state;
    cs_phys_node *a = exchange("k", "v", 10, 5, 4), *b = exchange("k", "v", 20, 5, 4);
    cs_pexpr_free(a->children[0]->condition);
    cs_pexpr_free(b->children[0]->condition);
    /* (k < 5 OR v = 3) OR k = 9  against  k = 9 OR (3 = v OR 5 > k) */
    a->children[0]->condition =
        call2("or", call2("or", call2("<", col(0), lit(5)), call2("=", col(1), lit(3))),
              call2("=", col(0), lit(9)));
    b->children[0]->condition =
        call2("or", call2("=", col(0), lit(9)),
              call2("or", call2("=", lit(3), col(1)), call2(">", lit(5), col(0))));
    assert_true(cs_phys_canonical_equal(a, b));
    /* AND is not OR, and k < 5 is not k > 5 */
    free(b->children[0]->condition->fn);
    b->children[0]->condition->fn = strdup("and");
    assert_false(cs_phys_canonical_equal(a, b));
    cs_phys_free(b);
    b = exchange("k", "v", 20, 5, 4);
    cs_pexpr_free(b->children[0]->condition);
    b->children[0]->condition =
        call2("or", call2("=", col(0), lit(9)),
              call2("or", call2("=", lit(3), col(1)), call2("<", lit(5), col(0))));
    assert_false(cs_phys_canonical_equal(a, b));
    /* the trees themselves are left as they were */
    assert_string_equal(b->children[0]->condition->args[0]->fn, "=");
    cs_phys_free(a);
    cs_phys_free(b);
}

static void test_a_reused_exchange_is_the_exchange_it_reads(void **state)
{
    (void)state;
    cs_phys_node *kept = exchange("k", "v", 10, 5, 4);
    cs_phys_node *r = cs_phys_new(CS_PH_REUSED_EXCHANGE, kv_schema_named("x", "y"), 0);
    r->id = 30;
    r->input = kept->id;
    r->reused = kept;
    assert_true(cs_phys_canonical_equal(r, kept));
    cs_phys_node *over_reused = unary(CS_PH_SORT, kv_schema(), r);
    cs_phys_node *over_other = unary(CS_PH_SORT, kv_schema(), exchange("k", "v", 50, 5, 4));
    assert_true(cs_phys_canonical_equal(over_reused, over_other));
    r->reused = NULL; /* a leaf of nothing cannot be written */
    cs_sbuf c = CS_SBUF_INIT;
    cs_error err = {0};
    assert_true(cs_phys_canonical(r, &c, &err) < 0);
    assert_false(cs_phys_canonical_equal(r, r));
    cs_sbuf_free(&c);
    cs_phys_free(over_reused);
    cs_phys_free(over_other);
    cs_phys_free(kept);
}

static void test_the_map_finds_a_form_again(void **state)
{
    (void)state;
    cs_phys_node *a = exchange("k", "v", 10, 5, 4), *b = exchange("m", "n", 20, 5, 4),
                 *c = exchange("k", "v", 30, 9, 4);
    cs_phys_canonical_map m = {0};
    cs_error err = {0};
    cs_sbuf ka = CS_SBUF_INIT, kb = CS_SBUF_INIT, kc = CS_SBUF_INIT;
    assert_int_equal(cs_phys_canonical(a, &ka, &err), 0);
    assert_int_equal(cs_phys_canonical(b, &kb, &err), 0);
    assert_int_equal(cs_phys_canonical(c, &kc, &err), 0);
    assert_int_equal(cs_phys_canonical_map_get(&m, &ka), -1);
    cs_phys_canonical_map_put(&m, &ka, 0);
    assert_int_equal(ka.len, 0);
    assert_int_equal(cs_phys_canonical_map_get(&m, &kb), 0);
    assert_int_equal(cs_phys_canonical_map_get(&m, &kc), -1);
    cs_phys_canonical_map_put(&m, &kc, 1);
    assert_int_equal(cs_phys_canonical_map_get(&m, &kb), 0);
    cs_phys_canonical_map_free(&m);
    cs_sbuf_free(&kb);
    cs_phys_free(a);
    cs_phys_free(b);
    cs_phys_free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ids_and_names_do_not_count),
        cmocka_unit_test(test_what_the_rows_depend_on_counts),
        cmocka_unit_test(test_commuting_operands_compare_in_any_order),
        cmocka_unit_test(test_a_reused_exchange_is_the_exchange_it_reads),
        cmocka_unit_test(test_the_map_finds_a_form_again),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
