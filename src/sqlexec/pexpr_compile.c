/*
 * pexpr_compile.c — cs_pexpr_compile: copies the tree, checks every column ordinal and type
 * against the input schema and picks each node's kernel once (by function name and argument
 * types, from the families' lookups), so that evaluation never dispatches per row. Also marks
 * the subtrees that could raise, which lazy parents (CASE, IF, COALESCE, AND, OR) evaluate only
 * on the rows that reach them. Called by the operators when they open.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sqlexec/pexpr_internal.h"

static void type_text(const cs_col_type *t, char *buf, size_t n)
{
    cs_sbuf sb = CS_SBUF_INIT;
    cs_col_type_simple_string(t, &sb);
    cs_str_copy(buf, n, cs_sbuf_str(&sb));
    cs_sbuf_free(&sb);
}

static int no_kernel(const cs_pexpr *e, cs_error *err)
{
    char types[256] = "";
    size_t used = 0;
    for (int i = 0; i < e->n_args && used + 2 < sizeof types; i++) {
        char one[96];
        type_text(e->args[i]->type, one, sizeof one);
        used += (size_t)snprintf(types + used, sizeof types - used, "%s%s", i ? ", " : "", one);
    }
    char to[96];
    type_text(e->type, to, sizeof to);
    if (e->kind == CS_PX_CAST)
        return cs_error_set(err, CS_EUNSUPPORTED, "no cast kernel from %s to %s", types, to);
    return cs_error_set(err, CS_EUNSUPPORTED, "no kernel for %s(%s) returning %s",
                        e->kind == CS_PX_IN ? "in" : e->fn, types, to);
}

/* Whether call e's kernel k never fails at run time, so that AND, OR, CASE and the like may
 * evaluate it on every row of a batch: the comparisons of primitive values, not, isnull,
 * isnotnull and LIKE without an escape argument. */
static bool never_raises(const cs_pexpr *e, const cs_col_type *const *at, cs_px_kernel k)
{
    const char *fn = e->fn;
    if (e->n_args == 1 && (!strcmp(fn, "not") || !strcmp(fn, "isnull") || !strcmp(fn, "isnotnull")))
        return true;
    if (e->n_args == 2 && !strcmp(fn, "like") && at[0]->id == CS_TYPE_STRING) return true;
    return k == cs_px_compare_lookup(fn, at, e->n_args, e->type);
}

static int build(cs_px_node *n, const cs_pexpr *e, const cs_col_type *schema, cs_error *err)
{
    n->e = e;
    n->shared = -1;
    if (cs_px_is_lambda(e)) { /* its body runs over element batches: compiled apart */
        n->could_raise = true;
        return cs_px_lambda_compile(n, e, schema, err);
    }
    n->n_children = e->n_args;
    n->children = e->n_args ? cs_xcalloc((size_t)e->n_args, sizeof *n->children) : NULL;
    for (int i = 0; i < e->n_args; i++) {
        int rc = build(&n->children[i], e->args[i], schema, err);
        if (rc) return rc;
        n->could_raise = n->could_raise || n->children[i].could_raise;
    }
    const cs_col_type *at[e->n_args > 0 ? e->n_args : 1];
    for (int i = 0; i < e->n_args; i++)
        at[i] = e->args[i]->type;
    switch (e->kind) {
    case CS_PX_COLUMN:
        if (e->ordinal < 0 || e->ordinal >= schema->n_fields)
            return cs_error_set(err, CS_EINVAL, "column ordinal %d out of the input's %d columns",
                                e->ordinal, schema->n_fields);
        if (!cs_col_type_equal(e->type, schema->fields[e->ordinal].type)) {
            char want[96], have[96];
            type_text(e->type, want, sizeof want);
            type_text(schema->fields[e->ordinal].type, have, sizeof have);
            return cs_error_set(err, CS_EINVAL, "column %d is %s in the input, expected %s",
                                e->ordinal, have, want);
        }
        return CS_OK;
    case CS_PX_LITERAL:
        if (!e->literal || e->literal->length != 1)
            return cs_error_set(err, CS_EINVAL, "a literal must be a column of one row");
        return CS_OK;
    case CS_PX_CAST:
        n->kernel = cs_px_cast_lookup(at[0], e->type);
        if (!n->kernel) return no_kernel(e, err);
        n->could_raise = n->could_raise || e->cast_mode == CS_CAST_ANSI;
        return CS_OK;
    case CS_PX_CASE:
        if (e->n_args < (e->has_else ? 3 : 2) || (e->n_args - (e->has_else ? 1 : 0)) % 2)
            return cs_error_set(err, CS_EINVAL, "CASE needs WHEN/THEN pairs");
        return CS_OK;
    case CS_PX_IN:
        n->kernel = cs_px_in_lookup(at[0]);
        if (!n->kernel) return no_kernel(e, err);
        return CS_OK;
    case CS_PX_CALL:
        if ((n->hof = cs_px_hof_lookup(e))) {
            n->could_raise = true;
            return CS_OK;
        }
        for (int i = 0; i < e->n_args; i++)
            if (n->children[i].lambda) return no_kernel(e, err);
        if (cs_px_is_lazy(e->fn)) return CS_OK;
        n->kernel = cs_px_lookup_call(e->fn, at, e->n_args, e->type);
        if (!n->kernel) return no_kernel(e, err);
        if (cs_px_is_random(e->fn)) n->rng = cs_xcalloc(1, sizeof *n->rng);
        /* arithmetic and the other functions Spark checks at run time */
        n->could_raise = n->could_raise || !never_raises(e, at, n->kernel);
        return CS_OK;
    }
    return CS_OK;
}

static void free_node(cs_px_node *n)
{
    for (int i = 0; i < n->n_children; i++)
        free_node(&n->children[i]);
    free(n->children);
    free(n->rng);
    cs_px_lambda_free(n->lambda);
}

cs_pexpr_program *cs_pexpr_compile(const cs_pexpr *e, const cs_col_type *input_schema,
                                   cs_error *err)
{
    cs_pexpr_program *p = cs_xcalloc(1, sizeof *p);
    p->tree = cs_pexpr_clone(e);
    if (build(&p->root, p->tree, input_schema, err)) {
        cs_pexpr_program_free(p);
        return NULL;
    }
    return p;
}

void cs_pexpr_program_free(cs_pexpr_program *p)
{
    if (!p) return;
    free_node(&p->root);
    cs_pexpr_free(p->tree);
    free(p);
}
