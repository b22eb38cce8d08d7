/*
 * test_connect_errors.c — the Spark Connect error shape (connect/connect_errors.h): the exception
 * classes chosen for Spark's error classes and SQLSTATEs are the ones Spark 4.0.1's server reports
 * (checked against it by tests/connect/spark_compare.sh), and the google.rpc.Status built from an
 * error unpacks with its ErrorInfo metadata as the PySpark client reads it, message parameters
 * (cs_sql_error_param) included, in ErrorInfo and in FetchErrorDetails.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "connect/connect_errors.h"
#include "google/rpc/error_details.pb-c.h"
#include "google/rpc/status.pb-c.h"
#include "spark/connect/base.pb-c.h"
#include "sqlexec/sql_error.h"

static const char *exception_of(int code, const char *error_class, const char *state)
{
    cs_error e;
    cs_error_clear(&e);
    cs_sql_error_set(&e, code, error_class, state, "text");
    return cs_connect_error_classes(&e)[0];
}

static void test_exception_classes_follow_spark(void **state)
{
    assert_string_equal(exception_of(CS_EINVAL, "PARSE_SYNTAX_ERROR", "42601"),
                        "org.apache.spark.sql.catalyst.parser.ParseException");
    assert_string_equal(exception_of(CS_EINVAL, "UNRESOLVED_COLUMN.WITH_SUGGESTION", "42703"),
                        "org.apache.spark.sql.catalyst.ExtendedAnalysisException");
    assert_string_equal(exception_of(CS_ETASK, "DIVIDE_BY_ZERO", "22012"),
                        "org.apache.spark.SparkArithmeticException");
    assert_string_equal(exception_of(CS_ETASK, "CAST_INVALID_INPUT", "22018"),
                        "org.apache.spark.SparkNumberFormatException");
    assert_string_equal(exception_of(CS_ENOTFOUND, "SQL_CONF_NOT_FOUND", "42K0I"),
                        "org.apache.spark.SparkNoSuchElementException");
    assert_string_equal(exception_of(CS_EINVAL, "INVALID_HANDLE.SESSION_CLOSED", "HY000"),
                        "org.apache.spark.SparkSQLException");
    /* an unlisted class falls back to its SQLSTATE */
    assert_string_equal(exception_of(CS_EINVAL, "SOME_NEW_ANALYSIS_ERROR", "42000"),
                        "org.apache.spark.sql.catalyst.ExtendedAnalysisException");
    /* the list ends with java.lang.Object, as Spark's ErrorUtils.allClasses */
    cs_error e;
    cs_error_clear(&e);
    cs_sql_error_set(&e, CS_ETASK, "DIVIDE_BY_ZERO", "22012", "text");
    const char *const *all = cs_connect_error_classes(&e);
    int n = 0;
    while (all[n])
        n++;
    assert_string_equal(all[1], "java.lang.ArithmeticException");
    assert_string_equal(all[n - 1], "java.lang.Object");
}

static void test_status_carries_error_info(void **state)
{
    cs_error e;
    cs_error_clear(&e);
    cs_sql_error_set(&e, CS_EINVAL, "PARSE_SYNTAX_ERROR", "42601", "Syntax error at or near 'x'.");
    size_t len;
    uint8_t *buf = cs_connect_error_status(&e, "0f0e0d0c-0000-4000-8000-000000000001", &len);
    Google__Rpc__Status *st = google__rpc__status__unpack(NULL, len, buf);
    assert_non_null(st);
    assert_int_equal(st->code, 13);
    assert_string_equal(st->message, e.msg);
    assert_int_equal(st->n_details, 1);
    assert_string_equal(st->details[0]->type_url, "type.googleapis.com/google.rpc.ErrorInfo");
    Google__Rpc__ErrorInfo *info = google__rpc__error_info__unpack(NULL, st->details[0]->value.len,
                                                                   st->details[0]->value.data);
    assert_non_null(info);
    assert_string_equal(info->reason, "org.apache.spark.sql.catalyst.parser.ParseException");
    assert_string_equal(info->domain, "org.apache.spark");
    const char *want[][2] = {{"errorClass", "PARSE_SYNTAX_ERROR"},
                             {"sqlState", "42601"},
                             {"errorId", "0f0e0d0c-0000-4000-8000-000000000001"},
                             {"messageParameters", "{}"}};
    for (size_t w = 0; w < sizeof want / sizeof want[0]; w++) {
        const char *found = NULL;
        for (size_t i = 0; i < info->n_metadata; i++)
            if (strcmp(info->metadata[i]->key, want[w][0]) == 0) found = info->metadata[i]->value;
        assert_non_null(found);
        assert_string_equal(found, want[w][1]);
    }
    google__rpc__error_info__free_unpacked(info, NULL);
    google__rpc__status__free_unpacked(st, NULL);
    free(buf);
}

/* The metadata value of key in the ErrorInfo of a serialized google.rpc.Status (a copy). */
static char *metadata_of(const uint8_t *buf, size_t len, const char *key)
{
    Google__Rpc__Status *st = google__rpc__status__unpack(NULL, len, buf);
    assert_non_null(st);
    Google__Rpc__ErrorInfo *info = google__rpc__error_info__unpack(NULL, st->details[0]->value.len,
                                                                   st->details[0]->value.data);
    assert_non_null(info);
    char *found = NULL;
    for (size_t i = 0; i < info->n_metadata; i++)
        if (strcmp(info->metadata[i]->key, key) == 0) found = strdup(info->metadata[i]->value);
    google__rpc__error_info__free_unpacked(info, NULL);
    google__rpc__status__free_unpacked(st, NULL);
    return found;
}

static void test_message_parameters_reach_the_client(void **state)
{
    cs_error e;
    cs_error_clear(&e);
    cs_sql_error_set(&e, CS_EINVAL, "UNRESOLVED_COLUMN.WITH_SUGGESTION", "42703", "text");
    cs_sql_error_param(&e, "objectName", "`no\"pe`");
    cs_sql_error_param(&e, "proposal", "`a`, `b`");
    size_t len;
    uint8_t *buf = cs_connect_error_status(&e, "", &len);
    char *params = metadata_of(buf, len, "messageParameters");
    assert_string_equal(params, "{\"objectName\":\"`no\\\"pe`\",\"proposal\":\"`a`, `b`\"}");
    free(params);
    free(buf);

    buf = cs_connect_error_details(&e, "s", "t", &len);
    Spark__Connect__FetchErrorDetailsResponse *r =
        spark__connect__fetch_error_details_response__unpack(NULL, len, buf);
    assert_non_null(r);
    assert_int_equal(r->n_errors, 1);
    const Spark__Connect__FetchErrorDetailsResponse__SparkThrowable *t =
        r->errors[0]->spark_throwable;
    assert_non_null(t);
    assert_int_equal(t->n_message_parameters, 2);
    assert_string_equal(t->message_parameters[0]->key, "objectName");
    assert_string_equal(t->message_parameters[0]->value, "`no\"pe`");
    assert_string_equal(t->message_parameters[1]->key, "proposal");
    spark__connect__fetch_error_details_response__free_unpacked(r, NULL);
    free(buf);

    /* a new error starts without the last one's parameters */
    cs_sql_error_set(&e, CS_ETASK, "DIVIDE_BY_ZERO", "22012", "text");
    buf = cs_connect_error_status(&e, "", &len);
    params = metadata_of(buf, len, "messageParameters");
    assert_string_equal(params, "{}");
    free(params);
    free(buf);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exception_classes_follow_spark),
        cmocka_unit_test(test_status_carries_error_info),
        cmocka_unit_test(test_message_parameters_reach_the_client),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
