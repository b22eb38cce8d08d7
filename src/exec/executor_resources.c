/* executor_resources.c — see executor_resources.h. */
#include "exec/executor_resources.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/resource_conf.h"
#include "common/run_command.h"
#include "common/strutil.h"

void cs_executor_resources_free(cs_executor_resources *r)
{
    if (!r) return;
    for (int i = 0; i < r->n; i++) {
        for (int a = 0; a < r->v[i].num_addresses; a++)
            free((char *)r->v[i].addresses[a]);
        free((char **)r->v[i].addresses);
        free((char *)r->v[i].name);
    }
    free(r->v);
    memset(r, 0, sizeof *r);
}

/* The script's stdout, {"name": ..., "addresses": [...]}, into *res; CS_EINVAL otherwise. */
static int parse_discovery(const cs_resource_request *q, const char *text, cspark_resource *res,
                           cs_error *err)
{
    json_error_t je;
    json_t *doc = json_loads(text, JSON_REJECT_DUPLICATES, &je);
    const char *name = json_string_value(json_object_get(doc, "name"));
    json_t *addrs = json_object_get(doc, "addresses");
    int rc = 0;
    if (!json_is_object(doc) || !name || !json_is_array(addrs)) {
        rc = cs_error_set(err, CS_EINVAL,
                          "spark.executor.resource.%s.discoveryScript %s printed no JSON object "
                          "{\"name\": \"%s\", \"addresses\": [...]}",
                          q->name, q->discovery_script, q->name);
    } else if (strcmp(name, q->name)) {
        rc = cs_error_set(err, CS_EINVAL,
                          "spark.executor.resource.%s.discoveryScript %s returned resource name "
                          "'%s' (expected '%s')",
                          q->name, q->discovery_script, name, q->name);
    } else if ((int64_t)json_array_size(addrs) < q->executor_amount) {
        rc = cs_error_set(err, CS_EINVAL,
                          "spark.executor.resource.%s.discoveryScript %s found %zu addresses, "
                          "fewer than spark.executor.resource.%s.amount (%lld)",
                          q->name, q->discovery_script, json_array_size(addrs), q->name,
                          (long long)q->executor_amount);
    }
    size_t n = rc ? 0 : json_array_size(addrs);
    for (size_t i = 0; i < n && !rc; i++)
        if (!json_is_string(json_array_get(addrs, i)) ||
            !*json_string_value(json_array_get(addrs, i)))
            rc = cs_error_set(err, CS_EINVAL,
                              "spark.executor.resource.%s.discoveryScript %s gave an address that "
                              "is not a non-empty string",
                              q->name, q->discovery_script);
    if (!rc) {
        const char **v = cs_xcalloc(n ? n : 1, sizeof *v);
        for (size_t i = 0; i < n; i++)
            v[i] = cs_xstrdup(json_string_value(json_array_get(addrs, i)));
        *res = (cspark_resource){cs_xstrdup(q->name), v, (int)n};
    }
    json_decref(doc);
    return rc;
}

int cs_executor_resources_discover(const cs_conf *conf, cs_executor_resources *out, cs_error *err)
{
    memset(out, 0, sizeof *out);
    cs_resource_requests req;
    int rc = cs_resource_requests_read(conf, &req, err);
    if (rc < 0) return rc;
    out->v = cs_xcalloc((size_t)req.n + 1, sizeof *out->v);
    for (int i = 0; i < req.n && !rc; i++) {
        const cs_resource_request *q = &req.v[i];
        if (q->executor_amount == 0) continue;
        char *argv[] = {q->discovery_script, NULL}, *text = NULL, *errtext = NULL;
        int status = 0;
        rc = cs_run_command(argv, NULL, CS_DISCOVERY_TIMEOUT_MS, &text, &errtext, &status, err);
        if (rc < 0) {
            cs_error_prefix(err, "spark.executor.resource.%s.discoveryScript %s", q->name,
                            q->discovery_script);
        } else if (status != 0) {
            char *nl = errtext ? strrchr(errtext, '\n') : NULL;
            while (nl && nl[1] == 0 && nl > errtext) { /* the last non-empty line says most */
                *nl = 0;
                nl = strrchr(errtext, '\n');
            }
            const char *last = nl ? nl + 1 : errtext ? errtext : "";
            rc = cs_error_set(err, CS_EINVAL,
                              "spark.executor.resource.%s.discoveryScript %s exited with status "
                              "%d%s%s",
                              q->name, q->discovery_script, status, *last ? ": " : "", last);
        } else {
            rc = parse_discovery(q, text, &out->v[out->n], err);
            if (rc == 0) out->n++;
        }
        free(text);
        free(errtext);
    }
    cs_resource_requests_free(&req);
    if (rc < 0) cs_executor_resources_free(out);
    return rc;
}

Cspark__ResourceAddresses **cs_executor_resources_pb(const cs_executor_resources *r, size_t *n)
{
    *n = (size_t)r->n;
    Cspark__ResourceAddresses **pb = cs_xcalloc((size_t)r->n + 1, sizeof *pb);
    for (int i = 0; i < r->n; i++) {
        pb[i] = cs_xmalloc(sizeof *pb[i]);
        cspark__resource_addresses__init(pb[i]);
        pb[i]->name = (char *)r->v[i].name;
        pb[i]->n_addresses = (size_t)r->v[i].num_addresses;
        pb[i]->addresses = (char **)r->v[i].addresses;
    }
    return pb;
}

void cs_executor_resources_pb_free(Cspark__ResourceAddresses **pb, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(pb[i]);
    free(pb);
}

cspark_resource *cs_task_resources_from_pb(Cspark__ResourceAddresses *const *pb, size_t n)
{
    if (n == 0) return NULL;
    size_t bytes = n * sizeof(cspark_resource);
    for (size_t i = 0; i < n; i++) {
        bytes += strlen(pb[i]->name ? pb[i]->name : "") + 1 + pb[i]->n_addresses * sizeof(char *);
        for (size_t a = 0; a < pb[i]->n_addresses; a++)
            bytes += strlen(pb[i]->addresses[a]) + 1;
    }
    /* one block: the array, then each resource's address pointers, then the strings */
    cspark_resource *v = cs_xmalloc(bytes + sizeof(char *));
    char **ptrs = (char **)(v + n);
    for (size_t i = 0; i < n; i++)
        ptrs += pb[i]->n_addresses;
    char *strs = (char *)ptrs;
    ptrs = (char **)(v + n);
    for (size_t i = 0; i < n; i++) {
        size_t l = strlen(pb[i]->name ? pb[i]->name : "") + 1;
        memcpy(strs, pb[i]->name ? pb[i]->name : "", l);
        v[i].name = strs;
        strs += l;
        v[i].addresses = (const char *const *)ptrs;
        v[i].num_addresses = (int)pb[i]->n_addresses;
        for (size_t a = 0; a < pb[i]->n_addresses; a++) {
            l = strlen(pb[i]->addresses[a]) + 1;
            memcpy(strs, pb[i]->addresses[a], l);
            *ptrs++ = strs;
            strs += l;
        }
    }
    return v;
}
