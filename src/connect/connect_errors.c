/*
 * connect_errors.c — Spark's error shape for Spark Connect clients (connect_errors.h): the table
 * from Spark error classes and SQLSTATEs to the exception classes Spark's server reports, and the
 * google.rpc.Status / FetchErrorDetails messages built from a cs_error.
 *
 * The "classes" list is what Spark's ErrorUtils.allClasses gives: the exception's class, then its
 * superclasses up to java.lang.Object (interfaces are not listed); analysis errors are the
 * analyzer's ExtendedAnalysisException, as Spark 4's server reports them.
 */
#include "connect/connect_errors.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "google/rpc/error_details.pb-c.h"
#include "google/rpc/status.pb-c.h"
#include "spark/connect/base.pb-c.h"

#define THROWABLE "java.lang.Exception", "java.lang.Throwable", "java.lang.Object", NULL
#define RUNTIME "java.lang.RuntimeException", THROWABLE

static const char *const parse_exception[] = {"org.apache.spark.sql.catalyst.parser.ParseException",
                                              "org.apache.spark.sql.AnalysisException", THROWABLE};
static const char *const analysis_exception[] = {
    "org.apache.spark.sql.catalyst.ExtendedAnalysisException",
    "org.apache.spark.sql.AnalysisException", THROWABLE};
static const char *const arithmetic_exception[] = {"org.apache.spark.SparkArithmeticException",
                                                   "java.lang.ArithmeticException", RUNTIME};
static const char *const number_format_exception[] = {
    "org.apache.spark.SparkNumberFormatException", "java.lang.NumberFormatException",
    "java.lang.IllegalArgumentException", RUNTIME};
static const char *const date_time_exception[] = {"org.apache.spark.SparkDateTimeException",
                                                  "java.time.DateTimeException", RUNTIME};
static const char *const index_exception[] = {
    "org.apache.spark.SparkArrayIndexOutOfBoundsException",
    "java.lang.ArrayIndexOutOfBoundsException", "java.lang.IndexOutOfBoundsException", RUNTIME};
static const char *const unsupported_exception[] = {
    "org.apache.spark.SparkUnsupportedOperationException",
    "java.lang.UnsupportedOperationException", RUNTIME};
static const char *const illegal_argument_exception[] = {
    "org.apache.spark.SparkIllegalArgumentException", "java.lang.IllegalArgumentException",
    RUNTIME};
static const char *const runtime_exception[] = {"org.apache.spark.SparkRuntimeException", RUNTIME};
static const char *const sql_exception[] = {"org.apache.spark.SparkSQLException",
                                            "java.sql.SQLException", THROWABLE};
static const char *const spark_exception[] = {"org.apache.spark.SparkException", THROWABLE};
static const char *const python_exception[] = {"org.apache.spark.api.python.PythonException",
                                               "org.apache.spark.SparkException", THROWABLE};
static const char *const no_such_element_exception[] = {
    "org.apache.spark.SparkNoSuchElementException", "java.util.NoSuchElementException", RUNTIME};

/* Error classes whose exception is not the one their SQLSTATE gives (prefix match at '.'). */
static const struct {
    const char *error_class;
    const char *const *classes;
} by_error_class[] = {
    {"PARSE_SYNTAX_ERROR", parse_exception},
    {"PARSE_EMPTY_STATEMENT", parse_exception},
    {"UNCLOSED_BRACKETED_COMMENT", parse_exception},
    {"UNSUPPORTED_DATATYPE", parse_exception}, /* the parser's, as a type string's */
    {"INVALID_HANDLE", sql_exception},
    {"CATALOG_NOT_FOUND", spark_exception}, /* the catalog manager's, not the analyzer's */
    {"INVALID_SQL_SYNTAX", parse_exception},
    {"DIVIDE_BY_ZERO", arithmetic_exception},
    {"INTERVAL_DIVIDED_BY_ZERO", arithmetic_exception},
    {"ARITHMETIC_OVERFLOW", arithmetic_exception},
    {"NUMERIC_VALUE_OUT_OF_RANGE", arithmetic_exception},
    {"CAST_OVERFLOW", arithmetic_exception},
    {"CAST_INVALID_INPUT", number_format_exception},
    {"INVALID_ARRAY_INDEX", index_exception},
    {"INVALID_ARRAY_INDEX_IN_ELEMENT_AT", index_exception},
    {"CANNOT_PARSE_TIMESTAMP", date_time_exception},
    {"DATETIME_OVERFLOW", arithmetic_exception},
    {"OPERATION_CANCELED", sql_exception},
    {"INVALID_CURSOR", sql_exception},
    {"SQL_CONF_NOT_FOUND", no_such_element_exception},
    {"_LEGACY_ERROR_TEMP_2047", illegal_argument_exception}, /* 'path' is not specified */
    {"INTERNAL_ERROR", spark_exception},
    {"PYTHON_EXCEPTION", python_exception},
    {"USER_RAISED_EXCEPTION", runtime_exception}, /* raise_error, assert_true */
    {"CONNECT", spark_exception},
    /* QueryCompilationErrors.unsupportedTableOperationError: the analyzer's */
    {"UNSUPPORTED_FEATURE.TABLE_OPERATION", analysis_exception},
};

/* By SQLSTATE when the error class is not listed: class 42 and 0A (while analysing) are
 * analysis errors; 22 are data exceptions raised at run time. */
static const struct {
    const char *state_prefix;
    const char *const *classes;
} by_state[] = {
    {"42601", parse_exception},         {"42", analysis_exception},
    {"22012", arithmetic_exception},    {"22003", arithmetic_exception},
    {"22018", number_format_exception}, {"22007", date_time_exception},
    {"22008", date_time_exception},     {"22", runtime_exception},
    {"0A", unsupported_exception},      {"HY", sql_exception},
};

static bool class_matches(const char *have, const char *want)
{
    size_t n = strlen(want);
    return strncmp(have, want, n) == 0 && (have[n] == '\0' || have[n] == '.');
}

/* CAST_INVALID_INPUT's exception follows the cast's target type, as Spark raises it: a
 * SparkNumberFormatException for a number, a SparkDateTimeException for a date or timestamp
 * (invalidInputInCastToDatetimeError), a SparkRuntimeException for a boolean
 * (invalidInputSyntaxForBooleanError); the target is the error's targetType parameter. */
static const char *const *cast_invalid_input_classes(const cs_error *err)
{
    static const struct {
        const char *target_type;
        const char *const *classes;
    } by_target[] = {
        {"\"BOOLEAN\"", runtime_exception},
        {"\"DATE\"", date_time_exception},
        {"\"TIMESTAMP\"", date_time_exception},
        {"\"TIMESTAMP_NTZ\"", date_time_exception},
    };
    json_t *params = err->params[0] ? json_loads(err->params, 0, NULL) : NULL;
    const char *target = json_string_value(json_object_get(params, "targetType"));
    const char *const *classes = number_format_exception;
    for (size_t i = 0; target && i < sizeof by_target / sizeof by_target[0]; i++)
        if (strcmp(target, by_target[i].target_type) == 0) classes = by_target[i].classes;
    json_decref(params);
    return classes;
}

const char *const *cs_connect_error_classes(const cs_error *err)
{
    if (!err->error_class[0])
        return err->code == CS_EINVAL ? illegal_argument_exception : spark_exception;
    if (class_matches(err->error_class, "CAST_INVALID_INPUT"))
        return cast_invalid_input_classes(err);
    for (size_t i = 0; i < sizeof by_error_class / sizeof by_error_class[0]; i++)
        if (class_matches(err->error_class, by_error_class[i].error_class))
            return by_error_class[i].classes;
    for (size_t i = 0; i < sizeof by_state / sizeof by_state[0]; i++) {
        const char *p = by_state[i].state_prefix;
        if (strncmp(err->sql_state, p, strlen(p)) != 0) continue;
        /* UNSUPPORTED_FEATURE found while analysing is an AnalysisException in Spark */
        if (by_state[i].classes == unsupported_exception && err->code == CS_EINVAL)
            return analysis_exception;
        return by_state[i].classes;
    }
    return err->code == CS_EINVAL ? analysis_exception : spark_exception;
}

static char *classes_json(const char *const *classes)
{
    json_t *a = json_array();
    for (int i = 0; classes[i]; i++)
        json_array_append_new(a, json_string(classes[i]));
    char *s = json_dumps(a, JSON_COMPACT);
    json_decref(a);
    return s;
}

const cs_error *cs_connect_error_shown(const cs_error *err, cs_error *view)
{
    if (!class_matches(err->error_class, "PYTHON_EXCEPTION")) return err;
    *view = *err;
    const char *p = strchr(err->msg, ']');
    const char *text = p && p[1] == ' ' ? p + 2 : err->msg;
    size_t n = strlen(text), tail = strlen(" SQLSTATE: 38000"); /* cs_sql_error_set's end */
    if (n >= tail) n -= tail;
    snprintf(view->msg, sizeof view->msg, "%.*s", (int)n, text);
    view->error_class[0] = '\0';
    view->sql_state[0] = '\0';
    return view;
}

uint8_t *cs_connect_error_status(const cs_error *err, const char *error_id, size_t *len)
{
    const char *const *classes = cs_connect_error_classes(err);
    cs_error view;
    err = cs_connect_error_shown(err, &view);
    char *classes_text = classes_json(classes);
    Google__Rpc__ErrorInfo info = GOOGLE__RPC__ERROR_INFO__INIT;
    info.reason = (char *)classes[0];
    info.domain = "org.apache.spark";
    Google__Rpc__ErrorInfo__MetadataEntry entries[5], *ptrs[5];
    size_t n = 0;
    const char *keys[5], *values[5];
    keys[n] = "classes", values[n++] = classes_text;
    if (error_id && *error_id) keys[n] = "errorId", values[n++] = error_id;
    if (err->sql_state[0]) keys[n] = "sqlState", values[n++] = err->sql_state;
    if (err->error_class[0]) {
        keys[n] = "errorClass", values[n++] = err->error_class;
        keys[n] = "messageParameters", values[n++] = err->params[0] ? err->params : "{}";
    }
    for (size_t i = 0; i < n; i++) {
        google__rpc__error_info__metadata_entry__init(&entries[i]);
        entries[i].key = (char *)keys[i];
        entries[i].value = (char *)values[i];
        ptrs[i] = &entries[i];
    }
    info.n_metadata = n;
    info.metadata = ptrs;
    size_t info_len = google__rpc__error_info__get_packed_size(&info);
    uint8_t *info_buf = cs_xmalloc(info_len ? info_len : 1);
    google__rpc__error_info__pack(&info, info_buf);

    Google__Protobuf__Any any = GOOGLE__PROTOBUF__ANY__INIT;
    any.type_url = "type.googleapis.com/google.rpc.ErrorInfo";
    any.value.data = info_buf;
    any.value.len = info_len;
    Google__Protobuf__Any *details[1] = {&any};
    Google__Rpc__Status st = GOOGLE__RPC__STATUS__INIT;
    st.code = 13; /* INTERNAL, as Spark's server */
    st.message = (char *)err->msg;
    st.n_details = 1;
    st.details = details;
    *len = google__rpc__status__get_packed_size(&st);
    uint8_t *out = cs_xmalloc(*len ? *len : 1);
    google__rpc__status__pack(&st, out);
    free(info_buf);
    free(classes_text);
    return out;
}

uint8_t *cs_connect_error_details(const cs_error *err, const char *session_id,
                                  const char *server_side_session_id, size_t *len)
{
    Spark__Connect__FetchErrorDetailsResponse resp =
        SPARK__CONNECT__FETCH_ERROR_DETAILS_RESPONSE__INIT;
    resp.session_id = (char *)session_id;
    resp.server_side_session_id = (char *)server_side_session_id;
    Spark__Connect__FetchErrorDetailsResponse__Error e =
        SPARK__CONNECT__FETCH_ERROR_DETAILS_RESPONSE__ERROR__INIT;
    Spark__Connect__FetchErrorDetailsResponse__SparkThrowable t =
        SPARK__CONNECT__FETCH_ERROR_DETAILS_RESPONSE__SPARK_THROWABLE__INIT;
    Spark__Connect__FetchErrorDetailsResponse__Error *errors[1] = {&e};
    cs_error view;
    /* the message parameters: err->params' members (the JSON object lives until the packing) */
    json_t *params = err && err->params[0] ? json_loads(err->params, 0, NULL) : NULL;
    size_t n_params = json_is_object(params) ? json_object_size(params) : 0;
    Spark__Connect__FetchErrorDetailsResponse__SparkThrowable__MessageParametersEntry *pe =
        cs_xcalloc(n_params ? n_params : 1, sizeof *pe);
    Spark__Connect__FetchErrorDetailsResponse__SparkThrowable__MessageParametersEntry **pp =
        cs_xcalloc(n_params ? n_params : 1, sizeof *pp);
    if (n_params) {
        const char *key;
        json_t *value;
        size_t i = 0;
        json_object_foreach(params, key, value)
        {
            if (i == n_params || !json_is_string(value)) continue;
            spark__connect__fetch_error_details_response__spark_throwable__message_parameters_entry__init(
                &pe[i]);
            pe[i].key = (char *)key;
            pe[i].value = (char *)json_string_value(value);
            pp[i] = &pe[i];
            i++;
        }
        t.n_message_parameters = i;
        t.message_parameters = pp;
    }
    if (err) {
        const char *const *classes = cs_connect_error_classes(err);
        err = cs_connect_error_shown(err, &view);
        size_t n = 0;
        while (classes[n])
            n++;
        e.n_error_type_hierarchy = n;
        e.error_type_hierarchy = (char **)classes;
        e.message = (char *)err->msg;
        if (err->error_class[0]) {
            t._error_class_case =
                SPARK__CONNECT__FETCH_ERROR_DETAILS_RESPONSE__SPARK_THROWABLE___ERROR_CLASS_ERROR_CLASS;
            t.error_class = (char *)err->error_class;
            if (err->sql_state[0]) {
                t._sql_state_case =
                    SPARK__CONNECT__FETCH_ERROR_DETAILS_RESPONSE__SPARK_THROWABLE___SQL_STATE_SQL_STATE;
                t.sql_state = (char *)err->sql_state;
            }
            e._spark_throwable_case =
                SPARK__CONNECT__FETCH_ERROR_DETAILS_RESPONSE__ERROR___SPARK_THROWABLE_SPARK_THROWABLE;
            e.spark_throwable = &t;
        }
        resp.n_errors = 1;
        resp.errors = errors;
        resp._root_error_idx_case =
            SPARK__CONNECT__FETCH_ERROR_DETAILS_RESPONSE___ROOT_ERROR_IDX_ROOT_ERROR_IDX;
        resp.root_error_idx = 0;
    }
    *len = spark__connect__fetch_error_details_response__get_packed_size(&resp);
    uint8_t *out = cs_xmalloc(*len ? *len : 1);
    spark__connect__fetch_error_details_response__pack(&resp, out);
    free(pp);
    free(pe);
    json_decref(params);
    return out;
}
