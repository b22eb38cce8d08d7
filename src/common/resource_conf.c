/* resource_conf.c — see resource_conf.h. The names of the resources are the first dot-free part
 * after spark.executor.resource. and spark.task.resource. (Spark's ResourceUtils.listResourceIds);
 * other fields than amount and discoveryScript (vendor: the Kubernetes pod builder reads it) are
 * not read here.
 */
#include "common/resource_conf.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/conf_entries.h"
#include "common/master.h"
#include "common/strutil.h"

#define EXEC_PREFIX "spark.executor.resource."
#define TASK_PREFIX "spark.task.resource."

typedef struct collect {
    cs_resource_requests *r;
    cs_error *err;
    int rc;
} collect;

static cs_resource_request *find_or_add(cs_resource_requests *r, const char *name, size_t len)
{
    for (int i = 0; i < r->n; i++)
        if (strlen(r->v[i].name) == len && !memcmp(r->v[i].name, name, len)) return &r->v[i];
    r->v = cs_xrealloc(r->v, (size_t)(r->n + 1) * sizeof *r->v);
    cs_resource_request *q = &r->v[r->n++];
    memset(q, 0, sizeof *q);
    memcpy(q->name, name, len);
    q->task_addresses = q->tasks_per_address = 1;
    return q;
}

/* A positive number in full (no unit, nothing after it). */
static bool parse_amount(const char *s, double *out)
{
    char *end = NULL;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !isfinite(v) || v <= 0) return false;
    *out = v;
    return true;
}

static void collect_one(void *arg, const char *key, const char *value)
{
    collect *c = arg;
    if (c->rc) return;
    bool exec = cs_str_starts_with(key, EXEC_PREFIX), task = cs_str_starts_with(key, TASK_PREFIX);
    if (!exec && !task) return;
    const char *name = key + strlen(exec ? EXEC_PREFIX : TASK_PREFIX);
    const char *dot = strchr(name, '.');
    if (!dot) return;
    size_t len = (size_t)(dot - name);
    const char *field = dot + 1;
    if (strcmp(field, "amount") && !(exec && !strcmp(field, "discoveryScript"))) return;
    if (len == 0 || len >= CS_RESOURCE_NAME_MAX) {
        c->rc = cs_error_set(c->err, CS_EINVAL,
                             "invalid key %s: the resource name must be 1-%d characters", key,
                             CS_RESOURCE_NAME_MAX - 1);
        return;
    }
    cs_resource_request *q = find_or_add(c->r, name, len);
    if (!strcmp(field, "discoveryScript")) {
        free(q->discovery_script);
        q->discovery_script = value && *value ? cs_xstrdup(value) : NULL;
        return;
    }
    double v = 0;
    if (!parse_amount(value, &v)) {
        c->rc = cs_error_set(c->err, CS_EINVAL,
                             "invalid value for %s: '%s' (expected a positive number)", key, value);
        return;
    }
    if (exec) {
        if (v != floor(v) || v > 1e9) {
            c->rc = cs_error_set(c->err, CS_EINVAL,
                                 "invalid value for %s: '%s' (expected a whole number of "
                                 "addresses)",
                                 key, value);
            return;
        }
        q->executor_amount = (int64_t)v;
        return;
    }
    if (v > 0.5 && v != floor(v)) { /* Spark's rule for fractional task amounts */
        c->rc = cs_error_set(c->err, CS_EINVAL,
                             "invalid value for %s: '%s' (expected a whole number, or a fraction "
                             "of at most 0.5 for tasks sharing an address)",
                             key, value);
        return;
    }
    if (v > 1e9) {
        c->rc =
            cs_error_set(c->err, CS_EINVAL, "invalid value for %s: '%s' (too large)", key, value);
        return;
    }
    q->task_amount = v;
    q->task_addresses = v >= 1 ? (int)v : 1;
    q->tasks_per_address = v >= 1 ? 1 : (int)floor(1.0 / v + 1e-9);
}

static int by_name(const void *a, const void *b)
{
    return strcmp(((const cs_resource_request *)a)->name, ((const cs_resource_request *)b)->name);
}

void cs_resource_requests_free(cs_resource_requests *r)
{
    if (!r) return;
    for (int i = 0; i < r->n; i++)
        free(r->v[i].discovery_script);
    free(r->v);
    memset(r, 0, sizeof *r);
}

int cs_resource_requests_read(const cs_conf *conf, cs_resource_requests *out, cs_error *err)
{
    memset(out, 0, sizeof *out);
    int64_t cpus = 1;
    if (cs_conf_entry_int(conf, "spark.task.cpus", &cpus, err) < 0) return err->code;
    out->task_cpus = (int)cpus;
    collect c = {out, err, 0};
    cs_conf_foreach(conf, collect_one, &c);
    int rc = c.rc;
    for (int i = 0; rc == 0 && i < out->n; i++) {
        const cs_resource_request *q = &out->v[i];
        if (q->task_amount > 0 && q->executor_amount == 0)
            rc = cs_error_set(err, CS_EINVAL,
                              "spark.task.resource.%s.amount is set but spark.executor.resource.%s."
                              "amount is not (tasks can only use a resource their executors have)",
                              q->name, q->name);
        else if (q->task_addresses > q->executor_amount && q->task_amount > 0)
            rc = cs_error_set(err, CS_EINVAL,
                              "spark.executor.resource.%s.amount (%lld) must be at least "
                              "spark.task.resource.%s.amount (%d)",
                              q->name, (long long)q->executor_amount, q->name, q->task_addresses);
        else if (q->executor_amount > 0 && !q->discovery_script)
            rc = cs_error_set(err, CS_EINVAL,
                              "spark.executor.resource.%s.discoveryScript is not set (expected "
                              "the path, on the executors, of a script printing "
                              "{\"name\": \"%s\", \"addresses\": [...]})",
                              q->name, q->name);
    }
    if (rc) {
        cs_resource_requests_free(out);
        return rc;
    }
    if (out->n > 1) qsort(out->v, (size_t)out->n, sizeof *out->v, by_name);
    return 0;
}

const cs_resource_request *cs_resource_request_find(const cs_resource_requests *r, const char *name)
{
    for (int i = 0; i < r->n; i++)
        if (!strcmp(r->v[i].name, name)) return &r->v[i];
    return NULL;
}

int cs_resource_conf_check(const cs_conf *conf, cs_error *err)
{
    cs_resource_requests r;
    int rc = cs_resource_requests_read(conf, &r, err);
    if (rc < 0) return rc;
    int task_cpus = r.task_cpus;
    cs_resource_requests_free(&r);
    /* every executor must fit one task (SparkContext's check); local mode has no executors */
    cs_master m;
    const char *url = cs_conf_get(conf, "spark.master");
    if (!url || cs_master_parse(url, &m, NULL) < 0 || m.kind == MASTER_LOCAL) return 0;
    int64_t cores = m.cores_per_executor;
    if (cores <= 0 && cs_conf_entry_int(conf, "spark.executor.cores", &cores, err) < 0)
        return err->code;
    if (task_cpus > cores)
        return cs_error_set(err, CS_EINVAL,
                            "spark.executor.cores (%lld) must not be less than spark.task.cpus "
                            "(%d)",
                            (long long)cores, task_cpus);
    return 0;
}
