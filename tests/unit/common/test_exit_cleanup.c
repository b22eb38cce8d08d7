/* test_exit_cleanup.c — unit tests for the removal on an abnormal end (exit_cleanup.c), the
 * application file check (app_file.c) and cs_log_value (log.c): registered trees are removed
 * whole without following symbolic links and an unregistered one stays; a directory, a text
 * file, a truncated ELF file and a program are refused with their reason; plain tokens are
 * logged as they are and anything else quoted. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/app_file.h"
#include "common/exit_cleanup.h"
#include "common/log.h"

static void put(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void test_registered_trees_are_removed(void **state)
{
    (void)state;
    char root[] = "/tmp/cs-exit-cleanup-XXXXXX", p[256];
    assert_non_null(mkdtemp(root));
    snprintf(p, sizeof p, "%s/keep", root); /* outside every registered tree */
    assert_int_equal(mkdir(p, 0700), 0);
    snprintf(p, sizeof p, "%s/keep/file", root);
    put(p, "x");
    snprintf(p, sizeof p, "%s/a", root);
    assert_int_equal(mkdir(p, 0700), 0);
    for (int i = 0; i < 300; i++) { /* more entries than one getdents64 buffer holds */
        snprintf(p, sizeof p, "%s/a/file-with-a-long-name-%03d", root, i);
        put(p, "data");
    }
    snprintf(p, sizeof p, "%s/a/b/c/d", root);
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "mkdir -p %s && echo x > %s/f", p, p);
    assert_int_equal(system(cmd), 0);
    char link[512], target[512];
    snprintf(link, sizeof link, "%s/a/b/link", root);
    snprintf(target, sizeof target, "%s/keep", root);
    assert_int_equal(symlink(target, link), 0);
    char unregistered[512];
    snprintf(unregistered, sizeof unregistered, "%s/unregistered", root);
    assert_int_equal(mkdir(unregistered, 0700), 0);

    char a[512];
    snprintf(a, sizeof a, "%s/a", root);
    cs_exit_cleanup_add(a);
    cs_exit_cleanup_add(unregistered);
    cs_exit_cleanup_remove(unregistered);
    cs_exit_cleanup_run();
    struct stat st;
    assert_int_equal(stat(a, &st), -1);
    snprintf(p, sizeof p, "%s/keep/file", root);
    assert_int_equal(stat(p, &st), 0); /* the link was removed, not followed */
    assert_int_equal(stat(unregistered, &st), 0);
    cs_exit_cleanup_run(); /* the table is empty now: nothing more goes */
    assert_int_equal(stat(unregistered, &st), 0);
    snprintf(cmd, sizeof cmd, "rm -rf %s", root);
    assert_int_equal(system(cmd), 0);
}

static void test_app_file_refusals(void **state)
{
    (void)state;
    char dir[] = "/tmp/cs-app-file-XXXXXX", p[512], cmd[1200];
    cs_error err;
    assert_non_null(mkdtemp(dir));
    assert_int_equal(cs_app_file_check(dir, &err), CS_EINVAL);
    assert_non_null(strstr(err.msg, "is a directory"));
    snprintf(p, sizeof p, "%s/none.so", dir);
    assert_int_equal(cs_app_file_check(p, &err), CS_ENOTFOUND);
    snprintf(p, sizeof p, "%s/text.so", dir);
    put(p, "hello\n");
    assert_int_equal(cs_app_file_check(p, &err), CS_EINVAL);
    assert_non_null(strstr(err.msg, "is not a shared object (no ELF header"));
    assert_int_equal(cs_app_file_check("/dev/null", &err), CS_EINVAL);
    assert_non_null(strstr(err.msg, "is not a regular file"));
    /* this test program: an ELF executable (position-independent or not), never a library */
    assert_int_equal(cs_app_file_check("/proc/self/exe", &err), CS_EINVAL);
    assert_true(strstr(err.msg, "is a program") || strstr(err.msg, "is not a shared object"));
    /* the same file cut short: its headers describe bytes it no longer has */
    snprintf(p, sizeof p, "%s/cut.so", dir);
    snprintf(cmd, sizeof cmd, "head -c 2000 /proc/%d/exe > %s", (int)getpid(), p);
    assert_int_equal(system(cmd), 0);
    assert_int_equal(cs_app_file_check(p, &err), CS_EINVAL);
    assert_non_null(strstr(err.msg, "is truncated or damaged"));
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
}

static void test_log_value_quotes_only_when_needed(void **state)
{
    (void)state;
    assert_string_equal(cs_log_value("local-1795562416175"), "local-1795562416175");
    assert_string_equal(cs_log_value("/tmp/x/y.so"), "/tmp/x/y.so");
    assert_string_equal(cs_log_value("my app"), "\"my app\"");
    assert_string_equal(cs_log_value("a=b"), "\"a=b\"");
    assert_string_equal(cs_log_value("say \"hi\""), "\"say \\\"hi\\\"\"");
    assert_string_equal(cs_log_value("\x1b[31m"), "\"\x1b[31m\""); /* escaped by the line */
    assert_string_equal(cs_log_value(""), "\"\"");
    assert_string_equal(cs_log_value(NULL), "(null)");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_registered_trees_are_removed),
        cmocka_unit_test(test_app_file_refusals),
        cmocka_unit_test(test_log_value_quotes_only_when_needed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
