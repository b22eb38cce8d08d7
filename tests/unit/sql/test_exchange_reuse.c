/*
 * test_exchange_reuse.c — ReuseExchangeAndSubquery's exchange half (src/sql/exchange_reuse.c):
 * of two equal exchanges the later one (post-order, left to right) becomes a ReusedExchange leaf
 * reading the earlier, with its own output names and EXPLAIN's "ReusedExchange [..], Exchange
 * ..."; an exchange that differs stays; an equal one deeper in the tree is reused too; a
 * broadcast read by a join with other build keys (another BroadcastMode) stays.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "../sqlexec/phys_test_util.h"
#include "sql/exchange_reuse.h"

/* Exchange hashpartitioning(k, 4) <- Filter (k < bound) <- 20 local rows named k, v. */
static cs_phys_node *exchange(const char *k, const char *v, int id, int64_t bound)
{
    cs_phys_node *f = unary(CS_PH_FILTER, kv_schema_named(k, v), local_kv_named(k, v, 20, 7, 1));
    f->condition = call2("<", col(0), lit(bound));
    cs_phys_node *ex = unary(CS_PH_EXCHANGE, kv_schema_named(k, v), f);
    ex->id = id;
    ex->partitioning = CS_PART_HASH;
    ex->num_partitions = 4;
    ex->n_exprs = 1;
    ex->exprs = calloc(1, sizeof *ex->exprs);
    ex->exprs[0] = col(0);
    return ex;
}

static void test_the_later_equal_exchange_reads_the_earlier(void **state)
{
    (void)state;
    cs_phys_node *u = cs_phys_new(CS_PH_UNION, kv_schema(), 4);
    u->children[0] = exchange("k", "v", 10, 5);
    u->children[1] = exchange("k2", "v2", 20, 5);
    u->children[2] = exchange("k", "v", 30, 6);
    /* an equal exchange deeper, under a sort */
    u->children[3] = unary(CS_PH_SORT, kv_schema(), exchange("k", "v", 40, 5));
    cs_error err = {0};
    assert_int_equal(cs_sql_reuse_exchanges(u, &err), 2);
    cs_phys_node *r = u->children[1];
    assert_int_equal(r->kind, CS_PH_REUSED_EXCHANGE);
    assert_ptr_equal(r->reused, u->children[0]);
    assert_int_equal(r->input, 10);
    assert_int_equal(r->id, 20);
    assert_string_equal(r->schema->fields[0].name, "k2");
    assert_int_equal(r->num_partitions, 4);
    assert_int_equal(u->children[2]->kind, CS_PH_EXCHANGE);
    assert_ptr_equal(u->children[3]->children[0]->reused, u->children[0]);
    cs_sbuf sb = CS_SBUF_INIT;
    cs_phys_explain(u, &sb);
    assert_non_null(strstr(sb.data, ":- ReusedExchange [k2, v2], Exchange hashpartitioning(k, 4), "
                                    "ENSURE_REQUIREMENTS, [plan_id=10]\n"));
    cs_sbuf_free(&sb);
    /* SparkPlanInfo: the reused exchange is the ReusedExchange's child, as Spark's */
    sb = (cs_sbuf)CS_SBUF_INIT;
    cs_phys_plan_info(r, &sb);
    assert_non_null(strstr(sb.data, "{\"nodeName\":\"ReusedExchange\",\"simpleString\":"
                                    "\"ReusedExchange [k2, v2], Exchange hashpartitioning(k, 4), "
                                    "ENSURE_REQUIREMENTS, [plan_id=10]\",\"children\":[{"
                                    "\"nodeName\":\"Exchange\""));
    cs_sbuf_free(&sb);
    cs_phys_free(u);
}

/* BroadcastHashJoin building the right side, a broadcast of 20 local rows, on keys lk = rk. */
static cs_phys_node *broadcast_join(cs_phys_node *left, int lk, int rk, int id)
{
    cs_phys_node *b =
        unary(CS_PH_BROADCAST_EXCHANGE, kv_schema(), local_kv_named("k", "v", 20, 7, 1));
    b->id = id;
    cs_phys_node *j = cs_phys_new(CS_PH_HASH_JOIN,
                                  t_schema(4, (const char *[]){"a", "b", "c", "d"},
                                           (cs_col_type *[]){T(CS_TYPE_LONG), T(CS_TYPE_LONG),
                                                             T(CS_TYPE_LONG), T(CS_TYPE_LONG)}),
                                  2);
    j->children[0] = left;
    j->children[1] = b;
    j->broadcast = true;
    j->build_side = CS_BUILD_RIGHT;
    j->join_type = CS_HJ_INNER;
    j->n_join_keys = 1;
    j->left_keys = calloc(1, sizeof(int));
    j->right_keys = calloc(1, sizeof(int));
    j->left_keys[0] = lk;
    j->right_keys[0] = rk;
    return j;
}

static void test_a_broadcast_is_reused_only_for_the_same_build_keys(void **state)
{
    (void)state;
    cs_phys_node *u = cs_phys_new(CS_PH_UNION, kv_schema(), 3);
    u->children[0] = broadcast_join(local_kv_named("k", "v", 5, 3, 0), 0, 0, 1);
    u->children[1] = broadcast_join(local_kv_named("k", "v", 5, 3, 100), 1, 0, 2);
    u->children[2] = broadcast_join(local_kv_named("k", "v", 5, 3, 200), 0, 1, 3);
    cs_error err = {0};
    assert_int_equal(cs_sql_reuse_exchanges(u, &err), 1);
    assert_int_equal(u->children[1]->children[1]->kind, CS_PH_REUSED_EXCHANGE);
    assert_ptr_equal(u->children[1]->children[1]->reused, u->children[0]->children[1]);
    assert_int_equal(u->children[2]->children[1]->kind, CS_PH_BROADCAST_EXCHANGE);
    cs_sbuf sb = CS_SBUF_INIT;
    cs_phys_explain(u, &sb);
    assert_non_null(strstr(sb.data, "+- ReusedExchange [k, v], BroadcastExchange "
                                    "HashedRelationBroadcastMode(List(input[0, bigint, "));
    cs_sbuf_free(&sb);
    cs_phys_free(u);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_the_later_equal_exchange_reads_the_earlier),
        cmocka_unit_test(test_a_broadcast_is_reused_only_for_the_same_build_keys),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
