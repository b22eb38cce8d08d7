/* test_err.c — the error record of common/err.h and the public codes of cspark.h (issue 22
 * item 3): cs_error_set starts a new error (no kind, no HTTP status), cs_error_prefix keeps what
 * the error is about, every CSPARK_E* code has a name and a meaning, and an unknown code says so.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "common/err.h"

static void test_kind_survives_prefix_not_set(void **state)
{
    cs_error err;
    cs_error_set(&err, CS_EAUTH, "denied");
    assert_int_equal(cs_error_set_kind(&err, CS_KIND_FORBIDDEN, 403), CS_EAUTH);
    cs_error_prefix(&err, "executor %d", 3);
    assert_int_equal(err.kind, CS_KIND_FORBIDDEN);
    assert_int_equal(err.http_status, 403);
    assert_string_equal(err.msg, "executor 3: denied");
    cs_error_set(&err, CS_EIO, "other");
    assert_int_equal(err.kind, CS_KIND_NONE);
    assert_int_equal(err.http_status, 0);
    cs_error_set_kind(&err, CS_KIND_LIMIT_REACHED, 0);
    cs_error_clear(&err);
    assert_int_equal(err.kind, CS_KIND_NONE);
    assert_int_equal(cs_error_set_kind(NULL, CS_KIND_FORBIDDEN, 403), CS_OK);
    assert_string_equal(cs_error_kind_name(CS_KIND_NAMESPACE_NOT_FOUND), "NamespaceNotFound");
    assert_string_equal(cs_error_kind_name(CS_KIND_NONE), "");
}

static void test_public_codes(void **state)
{
    /* one set of numbers: an internal code goes to a job as it is */
    assert_int_equal(CS_EINVAL, CSPARK_EINVAL);
    assert_int_equal(CS_EAUTH, CSPARK_EAUTH);
    for (int code = CSPARK_EAUTH; code <= CSPARK_OK; code++) {
        assert_string_not_equal(cs_strerror(code), "EUNKNOWN");
        assert_string_not_equal(cspark_strerror(code), "unknown error code");
    }
    assert_string_equal(cs_strerror(CSPARK_ECANCELLED), "ECANCELLED");
    assert_string_equal(cspark_strerror(CSPARK_ENOTFOUND), "not found");
    assert_string_equal(cspark_strerror(-1000), "unknown error code");
    assert_string_equal(cspark_strerror(1), "unknown error code");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kind_survives_prefix_not_set),
        cmocka_unit_test(test_public_codes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
