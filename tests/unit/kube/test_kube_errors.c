/* test_kube_errors.c — cs_kube_error_from on the API server's own answers (issue 22 item 3): the
 * Status bodies kube-apiserver sends for 403 (RBAC and a ResourceQuota), 404 (an object, a
 * missing namespace), 409 (AlreadyExists, Conflict), 410, 422, 429 and 503, a body that is not a
 * Status, and no answer at all. Each becomes a code, a kind (from Status.reason) and the HTTP
 * status, which the callers decide on; the message is checked only where it says something the
 * user needs. Pure: no server, no network. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "kube/kube_internal.h"

static kube_client client = {.server = "https://api.example:6443",
                             .auth_source = "the token of spark.kubernetes.authenticate"};

/* The error of request `verb resource [name] in ns` answered with status and body. */
static int answer(const char *verb, const char *resource, const char *ns, const char *name,
                  long status, const char *body, cs_error *err)
{
    kube_req q = {.verb = verb,
                  .method = "POST",
                  .path = "/api/v1/namespaces/x/pods",
                  .resource = resource,
                  .ns = ns,
                  .name = name};
    kube_resp r = {.status = status, .curl_rc = CURLE_OK, .retry_after_s = -1};
    cs_sbuf_append(&r.body, body, strlen(body));
    cs_error_clear(err);
    int rc = cs_kube_error_from(&client, &q, &r, err);
    cs_sbuf_free(&r.body);
    assert_int_equal(rc, err->code);
    return rc;
}

static void test_forbidden_rbac_and_quota(void **state)
{
    cs_error err;
    int rc = answer("create", "pods", "default", NULL, 403,
                    "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":"
                    "\"Failure\",\"message\":\"pods is forbidden: User "
                    "\\\"system:serviceaccount:default:nobody\\\" cannot create resource "
                    "\\\"pods\\\" in API group \\\"\\\" in the namespace \\\"default\\\"\","
                    "\"reason\":\"Forbidden\",\"details\":{\"kind\":\"pods\"},\"code\":403}",
                    &err);
    assert_int_equal(rc, CS_EAUTH);
    assert_int_equal(err.kind, CS_KIND_FORBIDDEN);
    assert_int_equal(err.http_status, 403);
    assert_non_null(strstr(err.msg, "system:serviceaccount:default:nobody"));

    /* a ResourceQuota refuses a pod with the same reason: the allocator stops on the kind */
    rc = answer("create", "pods", "default", "app-exec-3", 403,
                "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
                "\"message\":\"pods \\\"app-exec-3\\\" is forbidden: exceeded quota: compute, "
                "requested: pods=1, used: pods=2, limited: pods=2\",\"reason\":\"Forbidden\","
                "\"details\":{\"name\":\"app-exec-3\",\"kind\":\"pods\"},\"code\":403}",
                &err);
    assert_int_equal(rc, CS_EAUTH);
    assert_int_equal(err.kind, CS_KIND_FORBIDDEN);
    assert_int_equal(err.http_status, 403);
}

static void test_not_found_object_and_namespace(void **state)
{
    cs_error err;
    int rc = answer("get", "pods", "default", "p", 404,
                    "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":"
                    "\"Failure\",\"message\":\"pods \\\"p\\\" not found\",\"reason\":\"NotFound\","
                    "\"details\":{\"name\":\"p\",\"kind\":\"pods\"},\"code\":404}",
                    &err);
    assert_int_equal(rc, CS_ENOTFOUND);
    assert_int_equal(err.kind, CS_KIND_NOT_FOUND);
    assert_int_equal(err.http_status, 404);

    const char *ns_missing =
        "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
        "\"message\":\"namespaces \\\"nope\\\" not found\",\"reason\":\"NotFound\","
        "\"details\":{\"name\":\"nope\",\"kind\":\"namespaces\"},\"code\":404}";
    rc = answer("create", "pods", "nope", NULL, 404, ns_missing, &err);
    assert_int_equal(rc, CS_ENOTFOUND);
    assert_int_equal(err.kind, CS_KIND_NAMESPACE_NOT_FOUND);
    assert_string_equal(err.msg, "namespace \"nope\" does not exist");
    /* the same answer to a request for the namespace itself: the object is what is missing */
    rc = answer("get", "namespaces", NULL, "nope", 404, ns_missing, &err);
    assert_int_equal(err.kind, CS_KIND_NOT_FOUND);

    /* the kind comes from the details, never from the text: a message that merely reads like a
     * missing namespace, without details naming one, is an object's NotFound */
    rc = answer("create", "pods", "default", NULL, 404,
                "{\"kind\":\"Status\",\"message\":\"namespaces \\\"x\\\" not found\","
                "\"reason\":\"NotFound\",\"code\":404}",
                &err);
    assert_int_equal(err.kind, CS_KIND_NOT_FOUND);

    /* a proxy's plain-text 404: the status decides */
    rc = answer("get", "pods", "default", "p", 404, "404 page not found\n", &err);
    assert_int_equal(rc, CS_ENOTFOUND);
    assert_int_equal(err.kind, CS_KIND_NOT_FOUND);
    assert_null(strchr(err.msg, '\n'));
}

static void test_already_exists_and_conflict(void **state)
{
    cs_error err;
    int rc =
        answer("create", "pods", "default", "p", 409,
               "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":"
               "\"Failure\",\"message\":\"pods \\\"p\\\" already exists\",\"reason\":"
               "\"AlreadyExists\",\"details\":{\"name\":\"p\",\"kind\":\"pods\"},\"code\":409}",
               &err);
    assert_int_equal(rc, CS_EEXIST);
    assert_int_equal(err.kind, CS_KIND_ALREADY_EXISTS);
    assert_int_equal(err.http_status, 409);

    rc = answer("update", "pods", "default", "p", 409,
                "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
                "\"message\":\"Operation cannot be fulfilled on pods \\\"p\\\": the object has "
                "been modified; please apply your changes to the latest version and try again\","
                "\"reason\":\"Conflict\",\"details\":{\"name\":\"p\",\"kind\":\"pods\"},"
                "\"code\":409}",
                &err);
    assert_int_equal(rc, CS_EEXIST);
    assert_int_equal(err.kind, CS_KIND_CONFLICT);
}

static void test_invalid_gone_throttled_unavailable(void **state)
{
    cs_error err;
    int rc = answer("create", "pods", "default", "Bad_Name", 422,
                    "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":"
                    "\"Failure\",\"message\":\"Pod \\\"Bad_Name\\\" is invalid: metadata.name: "
                    "Invalid value: \\\"Bad_Name\\\": a lowercase RFC 1123 subdomain must consist "
                    "of lower case alphanumeric characters\",\"reason\":\"Invalid\",\"details\":"
                    "{\"name\":\"Bad_Name\",\"kind\":\"Pod\",\"causes\":[{\"reason\":"
                    "\"FieldValueInvalid\",\"message\":\"Invalid value\",\"field\":"
                    "\"metadata.name\"}]},\"code\":422}",
                    &err);
    assert_int_equal(rc, CS_EINVAL);
    assert_int_equal(err.kind, CS_KIND_INVALID);
    assert_int_equal(err.http_status, 422);

    rc = answer("watch", "pods", "default", NULL, 410,
                "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
                "\"message\":\"too old resource version: 5 (100)\",\"reason\":\"Expired\","
                "\"code\":410}",
                &err);
    assert_int_equal(rc, CS_EPROTO);
    assert_int_equal(err.kind, CS_KIND_EXPIRED);

    rc = answer("list", "pods", "default", NULL, 429,
                "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
                "\"message\":\"Too many requests, please try again later.\",\"reason\":"
                "\"TooManyRequests\",\"details\":{\"retryAfterSeconds\":1},\"code\":429}",
                &err);
    assert_int_equal(err.kind, CS_KIND_TOO_MANY_REQUESTS);
    assert_int_equal(err.http_status, 429);

    rc = answer("list", "pods", "default", NULL, 503,
                "{\"kind\":\"Status\",\"status\":\"Failure\",\"message\":\"the server is "
                "currently unable to handle the request\",\"reason\":\"ServiceUnavailable\","
                "\"code\":503}",
                &err);
    assert_int_equal(rc, CS_EIO);
    assert_int_equal(err.kind, CS_KIND_SERVER_ERROR);
    assert_int_equal(err.http_status, 503);

    /* an unknown reason falls back on the status */
    rc = answer("create", "pods", "default", NULL, 403,
                "{\"kind\":\"Status\",\"message\":\"no\",\"reason\":\"SomethingNew\",\"code\":403}",
                &err);
    assert_int_equal(err.kind, CS_KIND_FORBIDDEN);
}

static void test_no_answer(void **state)
{
    cs_error err;
    kube_req q = {.verb = "get", .method = "GET", .path = "/api/v1/pods", .resource = "pods"};
    kube_resp r = {.status = 0, .curl_rc = CURLE_COULDNT_CONNECT, .retry_after_s = -1};
    snprintf(r.curl_msg, sizeof r.curl_msg, "Failed to connect");
    assert_int_equal(cs_kube_error_from(&client, &q, &r, &err), CS_EIO);
    assert_int_equal(err.kind, CS_KIND_UNREACHABLE);
    assert_int_equal(err.http_status, 0);
    r.curl_rc = CURLE_OPERATION_TIMEDOUT;
    assert_int_equal(cs_kube_error_from(&client, &q, &r, &err), CS_ETIMEOUT);
    assert_int_equal(err.kind, CS_KIND_TIMEOUT);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_forbidden_rbac_and_quota),
        cmocka_unit_test(test_not_found_object_and_namespace),
        cmocka_unit_test(test_already_exists_and_conflict),
        cmocka_unit_test(test_invalid_gone_throttled_unavailable),
        cmocka_unit_test(test_no_answer),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
