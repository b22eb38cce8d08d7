/* kubesim query parameters as kube-apiserver's parameter codec decodes them into ListOptions,
 * DeleteOptions, CreateOptions, UpdateOptions and PatchOptions: integers through strconv.ParseInt
 * (its error text is the 400 message), booleans true unless absent, "0" or "false", and the
 * option values those types validate (dryRun, fieldValidation). Called by the request handlers. */
#define _GNU_SOURCE
#include "server_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

int ks_qbool(struct MHD_Connection *c, const char *k)
{
    const char *v = ks_qarg(c, k);
    return v && strcmp(v, "0") && strcasecmp(v, "false");
}

int ks_query_int64(struct MHD_Connection *c, const char *key, long long *out, int *present,
                   char *err, size_t errlen)
{
    const char *v = ks_qarg(c, key);
    if (present) *present = v != NULL;
    if (!v) return 0;
    const char *p = v;
    if (*p == '+' || *p == '-') p++;
    int ok = *p != 0;
    for (const char *q = p; *q; q++)
        ok = ok && *q >= '0' && *q <= '9';
    if (!ok) {
        snprintf(err, errlen, "strconv.ParseInt: parsing \"%s\": invalid syntax", v);
        return -1;
    }
    errno = 0;
    long long n = strtoll(v, NULL, 10);
    if (errno == ERANGE) {
        snprintf(err, errlen, "strconv.ParseInt: parsing \"%s\": value out of range", v);
        return -1;
    }
    *out = n;
    return 0;
}

int ks_query_field_validation(struct MHD_Connection *c, const char *opts_kind, char *err,
                              size_t errlen)
{
    const char *v = ks_qarg(c, "fieldValidation");
    if (!v || !*v || !strcmp(v, "Warn")) return KS_FIELD_WARN;
    if (!strcmp(v, "Strict")) return KS_FIELD_STRICT;
    if (!strcmp(v, "Ignore")) return KS_FIELD_IGNORE;
    snprintf(
        err, errlen,
        "%s.meta.k8s.io \"\" is invalid: fieldValidation: Unsupported value: \"%s\": supported "
        "values: \"Ignore\", \"Strict\", \"Warn\"",
        opts_kind, v);
    return -1;
}

int ks_query_dry_run(struct MHD_Connection *c, const char *opts_kind, int *dry_run, char *err,
                     size_t errlen)
{
    const char *v = ks_qarg(c, "dryRun");
    *dry_run = 0;
    if (!v) return 0;
    if (!strcmp(v, "All")) {
        *dry_run = 1;
        return 0;
    }
    snprintf(err, errlen,
             "%s.meta.k8s.io \"\" is invalid: dryRun: Unsupported value: []string{\"%s\"}: "
             "supported values: \"All\"",
             opts_kind, v);
    return -1;
}
