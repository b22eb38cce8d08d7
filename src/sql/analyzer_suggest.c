/*
 * analyzer_suggest.c — UNRESOLVED_COLUMN, as Spark reports a name no attribute in scope has:
 * WITHOUT_SUGGESTION when the scope is empty, else WITH_SUGGESTION and the five nearest
 * candidates (Spark's StringUtils.orderSuggestedIdentifiersBySimilarity), with the error's
 * message parameters (objectName, proposal). Called by analyzer_expr.c's name resolution
 * (cs_an_unresolved_column, analyzer_internal.h); allocates nothing that outlives the call.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "sql/analyzer_internal.h"

static int levenshtein(const char *x, const char *y)
{
    size_t n = strlen(x), m = strlen(y);
    int *row = calloc(m + 1, sizeof *row);
    if (!row) return 0;
    for (size_t j = 0; j <= m; j++)
        row[j] = (int)j;
    for (size_t i = 1; i <= n; i++) {
        int diag = row[0];
        row[0] = (int)i;
        for (size_t j = 1; j <= m; j++) {
            int up = row[j];
            int best = diag + (x[i - 1] == y[j - 1] ? 0 : 1);
            if (up + 1 < best) best = up + 1;
            if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    int d = row[m];
    free(row);
    return d;
}

typedef struct suggestion {
    char *full; /* `a`, or `t`.`a` when the candidates' qualifiers differ */
    int distance;
} suggestion;

static int suggestion_cmp(const void *x, const void *y)
{
    const suggestion *a = x, *b = y;
    if (a->distance != b->distance) return a->distance < b->distance ? -1 : 1;
    return strcmp(a->full, b->full);
}

int cs_an_unresolved_column(cs_an_ctx *c, const cs_sql_expr *e, const cs_an_scope *s)
{
    cs_sbuf name = {0};
    cs_an_sql_id(e->parts, e->n_parts, &name);
    const char *base = e->parts[e->n_parts - 1];
    if (s->n == 0) {
        cs_sql_error_set(c->err, CS_EINVAL, "UNRESOLVED_COLUMN.WITHOUT_SUGGESTION", "42703",
                         "A column, variable, or function parameter with name %s cannot be "
                         "resolved. ",
                         cs_sbuf_str(&name));
        cs_sql_error_param(c->err, "objectName", cs_sbuf_str(&name));
        cs_sbuf_free(&name);
        return CS_EINVAL;
    }
    /* Spark's StringUtils.orderSuggestedIdentifiersBySimilarity: by the edit distance of the
     * quoted candidate to the name, then by the candidate; the qualifier is left out when every
     * candidate has the same one; the first five */
    suggestion *sg = calloc((size_t)s->n, sizeof *sg);
    bool same_prefix = true;
    for (int i = 1; i < s->n; i++) {
        const cs_sql_expr *f = s->attrs[0], *a = s->attrs[i];
        bool same = f->n_parts == a->n_parts;
        for (int j = 0; same && j < a->n_parts; j++)
            same = cs_str_ieq(f->parts[j], a->parts[j]);
        same_prefix &= same;
    }
    for (int i = 0; i < s->n; i++) {
        const cs_sql_expr *a = s->attrs[i];
        cs_sbuf full = {0};
        const char *parts[8];
        int m = 0;
        if (!same_prefix)
            for (int j = 0; j < a->n_parts && m < 7; j++)
                parts[m++] = a->parts[j];
        parts[m++] = a->name;
        cs_an_sql_id(parts, m, &full);
        sg[i].full = cs_sbuf_detach(&full, NULL);
        sg[i].distance = levenshtein(sg[i].full, base);
    }
    qsort(sg, (size_t)s->n, sizeof *sg, suggestion_cmp);
    cs_sbuf list = {0};
    for (int i = 0; i < s->n && i < 5; i++) {
        if (i) cs_sbuf_puts(&list, ", ");
        cs_sbuf_puts(&list, sg[i].full);
    }
    for (int i = 0; i < s->n; i++)
        free(sg[i].full);
    free(sg);
    cs_sql_error_set(c->err, CS_EINVAL, "UNRESOLVED_COLUMN.WITH_SUGGESTION", "42703",
                     "A column, variable, or function parameter with name %s cannot be "
                     "resolved. Did you mean one of the following? [%s].",
                     cs_sbuf_str(&name), cs_sbuf_str(&list));
    cs_sql_error_param(c->err, "objectName", cs_sbuf_str(&name));
    cs_sql_error_param(c->err, "proposal", cs_sbuf_str(&list));
    cs_sbuf_free(&name);
    cs_sbuf_free(&list);
    return CS_EINVAL;
}
