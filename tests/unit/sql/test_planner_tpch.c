/*
 * test_planner_tpch.c — the 22 TPC-H queries at scale 0.1 through the planner and the local
 * runner (local_runner.h), judged by tests/sql/compare.py against Spark 4.0.1's goldens
 * (tests/sql/golden/tpch-sf0.1). The data comes from scripts/sql-testdata.sh (made into
 * build/sql-data of the source tree when missing, as the README says). Each query's result is
 * written in the golden format to planner-tpch/qNN.out under the working directory; the test
 * fails when a query of `expected_pass` differs from Spark's answer, and prints which others
 * give Spark's answer.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/fsutil.h"
#include "local_runner.h"
#include "planner_fixture.h"

static pf_session S;
static cs_sql_exec_ctx X;
static char root[1024];

static const char *const tables[] = {"customer", "lineitem", "nation", "orders",
                                     "part",     "partsupp", "region", "supplier"};

/* queries that give Spark's answers (1-based) */
static const int expected_pass[] = {2,  3,  4,  5,  6,  10, 11, 12, 13,
                                    14, 15, 16, 17, 18, 19, 20, 21, 22};

static char *read_all(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    cs_sbuf b = {0};
    char chunk[4096];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
        cs_sbuf_append(&b, chunk, n);
    fclose(f);
    return b.data ? b.data : strdup("");
}

static int setup(void **state)
{
    (void)state;
    setvbuf(stdout, NULL, _IONBF, 0);
    snprintf(root, sizeof root, "%s", __FILE__);
    for (int up = 0; up < 4; up++) {
        char *slash = strrchr(root, '/');
        if (!slash) return -1;
        *slash = '\0';
    }
    char data[1200], cmd[4096];
    snprintf(data, sizeof data, "%s/build/sql-data/tpch-sf0.1/.complete", root);
    if (access(data, F_OK) != 0) {
        snprintf(cmd, sizeof cmd, "%s/scripts/sql-testdata.sh %s/build/sql-data tpch", root, root);
        if (system(cmd) != 0) {
            print_message("SKIP: the TPC-H data cannot be made (%s)\n", cmd);
            exit(77);
        }
    }
    pf_open(&S);
    S.ctx.conf.shuffle_partitions = 4;
    S.optimize = true;
    X = (cs_sql_exec_ctx){.alloc = cs_col_default_allocator(), .ansi = true, .session_tz = "UTC"};
    S.ctx.run_scalar = lr_run_scalar;
    S.ctx.arg = &X;
    for (size_t i = 0; i < sizeof tables / sizeof *tables; i++) {
        char loc[1400];
        snprintf(loc, sizeof loc, "%s/build/sql-data/tpch-sf0.1/%s.parquet", root, tables[i]);
        if (pf_table(&S, tables[i], loc) != 0) {
            print_error("table %s: %s\n", tables[i], S.err.msg);
            return -1;
        }
    }
    mkdir("planner-tpch", 0755);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    pf_close(&S);
    return 0;
}

/* Runs query q into planner-tpch/qNN.out; 0 when compare.py finds Spark's answer. */
static int run_query(int q, char *why, size_t why_len)
{
    char path[1400], golden[1400], out_path[64];
    snprintf(path, sizeof path, "%s/tests/sql/tpch/q%02d.sql", root, q);
    snprintf(golden, sizeof golden, "%s/tests/sql/golden/tpch-sf0.1/q%02d.out", root, q);
    snprintf(out_path, sizeof out_path, "planner-tpch/q%02d.out", q);
    char *sql = read_all(path);
    char *gold = read_all(golden);
    assert_non_null(sql);
    assert_non_null(gold);
    bool ordered = strstr(gold, " ordered\n") != NULL;
    free(gold);
    /* the statement without its trailing ';' */
    char *semi = strrchr(sql, ';');
    if (semi) *semi = '\0';

    cs_sbuf out = {0};
    cs_sbuf_printf(&out, "-- result of q%02d.sql\n\n", q);
    cs_sql_arena_free(S.arena);
    S.arena = cs_sql_arena_new();
    int rc = -1;
    cs_phys_node *n = pf_plan(&S, sql);
    cs_col_batch **b = NULL;
    int nb = 0;
    if (!n) {
        snprintf(why, why_len, "plan: %s", S.err.msg);
    } else if (lr_run(&X, n, &b, &nb, &S.err) != 0) {
        snprintf(why, why_len, "run: %s", S.err.msg);
    } else if (lr_print_block(&X, 1, "", n->schema, b, nb, ordered, &out, &S.err) != 0) {
        snprintf(why, why_len, "print: %s", S.err.msg);
    } else {
        FILE *f = fopen(out_path, "wb");
        assert_non_null(f);
        fwrite(out.data, 1, out.len, f);
        fclose(f);
        char cmd[4096];
        snprintf(cmd, sizeof cmd, "/usr/bin/python3 %s/tests/sql/compare.py %s %s > %s.diff 2>&1",
                 root, golden, out_path, out_path);
        rc = system(cmd) == 0 ? 0 : -1;
        if (rc != 0) snprintf(why, why_len, "differs: see %s.diff", out_path);
    }
    for (int i = 0; i < nb; i++)
        cs_col_batch_unref(b[i]);
    free(b);
    cs_phys_free(n);
    cs_sbuf_free(&out);
    free(sql);
    return rc;
}

static void test_tpch_queries(void **state)
{
    (void)state;
    bool pass[23] = {0};
    int n_pass = 0;
    /* PLANNER_TPCH=3,5 runs only those (for debugging) */
    const char *only = getenv("PLANNER_TPCH");
    for (int q = 1; q <= 22; q++) {
        if (only) {
            char key[8];
            snprintf(key, sizeof key, "%d", q);
            bool listed = false;
            for (const char *t = only; *t; t += strcspn(t, ",") + (t[strcspn(t, ",")] != 0))
                listed |= strncmp(t, key, strlen(key)) == 0 &&
                          (t[strlen(key)] == ',' || t[strlen(key)] == 0);
            if (!listed) continue;
        }
        char why[1200] = "";
        pass[q] = run_query(q, why, sizeof why) == 0;
        n_pass += pass[q];
        print_message("q%02d %s %s\n", q, pass[q] ? "PASS" : "FAIL", why);
    }
    print_message("%d of 22 TPC-H queries give Spark's answers\n", n_pass);
    for (size_t i = 0; i < sizeof expected_pass / sizeof *expected_pass; i++)
        if (expected_pass[i] > 0 && !pass[expected_pass[i]])
            fail_msg("q%02d no longer gives Spark's answer", expected_pass[i]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tpch_queries),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
