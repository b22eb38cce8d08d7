/*
 * test_hash_join_shared.c — a broadcast's hash table built by the tasks waiting for it
 * (src/sqlexec/hash_join_shared.c over common/work_team.c and the broadcast store's derived
 * values): a team's helper runs items of the owner's loops, loop after loop, and the owner's close
 * waits for it; four task threads asking for one table of 120,000 rows (one or two integral key
 * words, duplicate and null keys, keys adjacent and scattered) all help its build, and the table
 * they build has the same rows, chains, locations and distinct count as the one built by one
 * thread, and every key finds the same first row in both.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <pthread.h>
#include <time.h>

#include "broadcast/broadcast_store.h"
#include "common/work_team.h"
#include "op_test_util.h"
#include "sqlexec/hash_join_internal.h"
#include "sqlexec/phys_plan.h"

/* ---- the team ---- */

typedef struct team_loop {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int runs[64];  /* how many times each item ran */
    int by_helper; /* items a helper ran */
} team_loop;

/* Item 0 (the owner's first) waits, at most 60 s, until a helper has run an item: the loop ends
 * with a helper's item in it only if helpers take items. */
static void loop_item(void *arg, int64_t i, int worker)
{
    team_loop *l = arg;
    pthread_mutex_lock(&l->mu);
    l->runs[i]++;
    if (worker > 0) {
        l->by_helper++;
        pthread_cond_broadcast(&l->cv);
    }
    if (i == 0) {
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_sec += 60;
        while (l->by_helper == 0 && pthread_cond_timedwait(&l->cv, &l->mu, &until) == 0)
            ;
    }
    pthread_mutex_unlock(&l->mu);
}

typedef struct helper_arg {
    cs_work_team *team;
    bool joined;
} helper_arg;

static void *helper_main(void *arg)
{
    helper_arg *h = arg;
    int worker;
    h->joined = cs_work_team_join(h->team, &worker);
    if (h->joined) {
        cs_work_team_help(h->team, worker);
        cs_work_team_leave(h->team);
    }
    return NULL;
}

static void test_team_helper_runs_items_of_every_loop(void **state)
{
    (void)state;
    cs_work_team *team = cs_work_team_new();
    helper_arg h = {team, false};
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, helper_main, &h), 0);
    for (int loop = 0; loop < 3; loop++) {
        team_loop l = {.by_helper = 0};
        pthread_mutex_init(&l.mu, NULL);
        pthread_cond_init(&l.cv, NULL);
        cs_work_team_for(team, 64, loop_item, &l);
        for (int i = 0; i < 64; i++)
            assert_int_equal(l.runs[i], 1);
        assert_true(l.by_helper > 0);
        pthread_mutex_destroy(&l.mu);
        pthread_cond_destroy(&l.cv);
    }
    assert_int_equal(cs_work_team_helpers_joined(team), 1);
    cs_work_team_close(team); /* returns once the helper has left */
    pthread_join(th, NULL);
    assert_true(h.joined);

    /* a closed team takes no helper; its owner's loops run alone */
    team = cs_work_team_new();
    team_loop l = {.by_helper = 0};
    pthread_mutex_init(&l.mu, NULL);
    pthread_cond_init(&l.cv, NULL);
    l.by_helper = 1; /* item 0 need not wait */
    cs_work_team_for(team, 64, loop_item, &l);
    for (int i = 0; i < 64; i++)
        assert_int_equal(l.runs[i], 1);
    assert_int_equal(l.by_helper, 1);
    cs_work_team_close(team);
}

/* ---- the table ---- */

enum { ROWS = 120000, BATCH = 1000, TASKS = 4 };

typedef struct build_env {
    broadcast_store *store;
    broadcast_entry *entry;
    cs_sql_hj *j; /* the operator whose build keys the table is of */
    _Atomic int builds;
    _Atomic int helpers_seen; /* helpers present when the build started */
    _Atomic int helper_items; /* the team's check loop: items helpers ran */
} build_env;

static build_env *env_now;

/* As loop_item: item 0 waits (at most 60 s) for an item run by a helper. */
static void check_item(void *arg, int64_t i, int worker)
{
    (void)arg;
    if (worker > 0) env_now->helper_items++;
    for (int ms = 0; i == 0 && ms < 60000 && env_now->helper_items == 0; ms++) {
        struct timespec t = {0, 1000000};
        nanosleep(&t, NULL);
    }
}

/* The build as the store runs it, after waiting (at most 60 s) for the other tasks to join its
 * team, so that the loops are shared; a first loop counts the items helpers ran. */
static void *team_build(void *arg, const void *value, size_t len, struct cs_work_team *team,
                        cs_error *err)
{
    build_env *env = env_now;
    env->builds++;
    for (int ms = 0; ms < 60000 && cs_work_team_helpers_joined(team) < TASKS - 1; ms++) {
        struct timespec t = {0, 1000000};
        nanosleep(&t, NULL);
    }
    env->helpers_seen = cs_work_team_helpers_joined(team);
    cs_work_team_for(team, 64, check_item, NULL);
    return cs_sql_hj_shared_build(arg, value, len, team, err);
}

typedef struct task_arg {
    build_env *env;
    const char *key;
    void *table;
    int rc;
} task_arg;

static void *task_main(void *arg)
{
    task_arg *t = arg;
    cs_error err = {0};
    t->rc = cs_broadcast_entry_derived(t->env->store, t->env->entry, t->key, team_build, t->env->j,
                                       cs_sql_hj_shared_free, &t->table, &err);
    return NULL;
}

/* Keys: runs of adjacent equal keys, scattered repeats, nulls (in either word). */
static void gen_keys(int64_t *k1, int64_t *k2, uint8_t *v1, uint8_t *v2)
{
    uint64_t s = 88172645463325252ull;
    for (int64_t i = 0; i < ROWS;) {
        int64_t run = 1 + (int64_t)(t_rand(&s) % 4), key = (int64_t)(t_rand(&s) % 90000);
        for (int64_t r = 0; r < run && i < ROWS; r++, i++) {
            k1[i] = key;
            k2[i] = key % 7;
            v1[i] = t_rand(&s) % 50 != 0;
            v2[i] = t_rand(&s) % 80 != 0;
        }
    }
}

/* The value of a broadcast of the rows: batches, each after its u32 little-endian length. */
static void encode_rows(cs_col_type *schema, const int64_t *k1, const int64_t *k2,
                        const uint8_t *v1, const uint8_t *v2, cs_sbuf *value)
{
    cs_sbuf enc = CS_SBUF_INIT;
    cs_error err = {0};
    for (int64_t at = 0; at < ROWS; at += BATCH) {
        cs_col_batch *b = t_batch(
            schema,
            (cs_column *[]){t_longs(k1 + at, BATCH, v1 + at), t_longs(k2 + at, BATCH, v2 + at)},
            BATCH);
        enc.len = 0;
        assert_int_equal(cs_sql_batch_encode(b, &enc, &err), CS_OK);
        uint8_t len[4] = {(uint8_t)enc.len, (uint8_t)(enc.len >> 8), (uint8_t)(enc.len >> 16),
                          (uint8_t)(enc.len >> 24)};
        cs_sbuf_append(value, len, 4);
        cs_sbuf_append(value, enc.data, enc.len);
        cs_col_batch_unref(b);
    }
    cs_sbuf_free(&enc);
}

/* The first row each key of the rows finds in table t (adopted by j), -1 for a null key. */
static int32_t *lookups(cs_sql_hj *j, const cs_sql_hj_shared *t, cs_col_type *schema,
                        const int64_t *k1, const int64_t *k2, const uint8_t *v1, const uint8_t *v2)
{
    cs_sql_hj_adopt(j, t);
    int32_t *first = malloc(sizeof *first * ROWS);
    for (int64_t at = 0; at < ROWS; at += BATCH) {
        cs_col_batch *b = t_batch(
            schema,
            (cs_column *[]){t_longs(k1 + at, BATCH, v1 + at), t_longs(k2 + at, BATCH, v2 + at)},
            BATCH);
        cs_sql_hj_batch_keys(j, b, j->build_keys);
        cs_sql_hj_lookup_batch(j, BATCH, first + at);
        cs_col_batch_unref(b);
    }
    return first;
}

static void check_table_built_by_team(int n_keys)
{
    int64_t *k1 = malloc(sizeof *k1 * ROWS), *k2 = malloc(sizeof *k2 * ROWS);
    uint8_t *v1 = malloc(ROWS), *v2 = malloc(ROWS);
    gen_keys(k1, k2, v1, v2);
    const char *names[] = {"k1", "k2"};
    cs_col_type *schema = t_schema(2, names,
                                   (cs_col_type *[]){cs_col_type_primitive(CS_TYPE_LONG),
                                                     cs_col_type_primitive(CS_TYPE_LONG)});
    cs_sbuf value = CS_SBUF_INIT;
    encode_rows(schema, k1, k2, v1, v2, &value);

    /* a semi join building the right side: the operator gives the build keys and schema */
    cs_join_spec spec = {.type = CS_HJ_LEFT_SEMI,
                         .build = CS_BUILD_RIGHT,
                         .left_keys = (int[]){0, 1},
                         .right_keys = (int[]){0, 1},
                         .n_keys = n_keys,
                         .build_broadcast = true,
                         .build_broadcast_input = 0};
    cs_error err = {0};
    cs_sql_op *op =
        cs_sql_op_hash_join(t_leaf(schema, NULL, 0), t_leaf(schema, NULL, 0), &spec, &err);
    assert_non_null(op);
    cs_sql_hj *j = (cs_sql_hj *)op;
    assert_int_equal(j->words, n_keys);
    cs_sql_exec_ctx ctx = t_ctx();
    j->base.ctx = &ctx;

    build_env env = {.j = j};
    env_now = &env;
    env.store = cs_broadcast_store_new();
    assert_int_equal(cs_broadcast_store_put(env.store, 3, value.data, value.len, 0, &err), 0);
    assert_int_equal(cs_broadcast_store_acquire(env.store, 3, &env.entry, &err), 0);
    pthread_t th[TASKS];
    task_arg tasks[TASKS];
    for (int i = 0; i < TASKS; i++) {
        tasks[i] = (task_arg){&env, "table", NULL, -1};
        assert_int_equal(pthread_create(&th[i], NULL, task_main, &tasks[i]), 0);
    }
    for (int i = 0; i < TASKS; i++) {
        pthread_join(th[i], NULL);
        assert_int_equal(tasks[i].rc, 0);
        assert_ptr_equal(tasks[i].table, tasks[0].table);
    }
    /* one build, by all four tasks: the three others joined its team and ran its items */
    assert_int_equal(env.builds, 1);
    assert_int_equal(env.helpers_seen, TASKS - 1);
    assert_true(env.helper_items > 0);

    /* the same table built by one thread */
    cs_sql_hj_shared *alone = cs_sql_hj_shared_build(j, value.data, value.len, NULL, &err);
    assert_non_null(alone);
    const cs_sql_hj_shared *team = tasks[0].table;
    int32_t *first_team = lookups(j, team, schema, k1, k2, v1, v2);
    int64_t n = j->n_rows, distinct = j->n_distinct;
    bool null_key = j->build_null_key;
    int32_t *next_team = malloc(sizeof *next_team * (size_t)n);
    uint64_t *loc_team = malloc(sizeof *loc_team * (size_t)n);
    memcpy(next_team, j->next, sizeof *next_team * (size_t)n);
    memcpy(loc_team, j->row_loc, sizeof *loc_team * (size_t)n);
    cs_sql_hj_reset(j);
    int32_t *first_alone = lookups(j, alone, schema, k1, k2, v1, v2);
    assert_int_equal(j->n_rows, ROWS);
    assert_int_equal(n, ROWS);
    assert_int_equal(j->n_distinct, distinct);
    assert_true(null_key && j->build_null_key);
    assert_memory_equal(next_team, j->next, sizeof *next_team * (size_t)n);
    assert_memory_equal(loc_team, j->row_loc, sizeof *loc_team * (size_t)n);
    assert_memory_equal(first_team, first_alone, sizeof *first_team * ROWS);

    /* the chains' order: a key's first row, then its later rows newest first */
    int64_t keys = 0;
    for (int64_t r = 0; r < ROWS; r++) {
        bool null = !v1[r] || (n_keys == 2 && !v2[r]);
        if (null) {
            assert_int_equal(first_alone[r], -1);
            continue;
        }
        int64_t head = first_alone[r];
        assert_true(head >= 0 && head <= r);
        if (head == r) keys++;
        int64_t prev = INT64_MAX;
        for (int32_t c = j->next[head]; c >= 0; c = j->next[c]) {
            assert_true(c > head && c < prev);
            assert_int_equal(k1[c], k1[head]);
            if (n_keys == 2) assert_int_equal(k2[c], k2[head]);
            prev = c;
        }
    }
    assert_int_equal(keys, distinct);
    cs_sql_hj_reset(j);
    free(j->kv); /* the probe keys' scratch (the operator, never opened, does not close) */
    free(j->kv_hash);
    free(j->kv_null);
    j->kv = j->kv_hash = NULL;
    j->kv_null = NULL;
    j->kv_cap = 0;

    free(first_team);
    free(first_alone);
    free(next_team);
    free(loc_team);
    cs_sql_hj_shared_free(alone);
    cs_broadcast_store_release(env.store, env.entry);
    cs_broadcast_store_free(env.store);
    cs_sql_op_free(op);
    cs_col_type_unref(schema);
    cs_sbuf_free(&value);
    free(k1);
    free(k2);
    free(v1);
    free(v2);
}

static void test_table_of_one_key_word_built_by_waiting_tasks(void **state)
{
    (void)state;
    check_table_built_by_team(1);
}

static void test_table_of_two_key_words_built_by_waiting_tasks(void **state)
{
    (void)state;
    check_table_built_by_team(2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_team_helper_runs_items_of_every_loop),
        cmocka_unit_test(test_table_of_one_key_word_built_by_waiting_tasks),
        cmocka_unit_test(test_table_of_two_key_words_built_by_waiting_tasks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
