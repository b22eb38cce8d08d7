/*
 * plan_names.c — the shared parts of the Spark Connect plan translation (plan_internal.h): the
 * translation's state and its plan-id table, Spark's errors for bad plans, Spark's
 * attribute-name syntax (UnresolvedAttribute.parseAttributeName: `a.b` is two parts, a
 * back-quoted part may hold dots, a doubled back-quote inside one is a back-quote), and the
 * small node makers every part uses.
 *
 * The plan ids columns refer to are found before the walk by visiting every message of the
 * plan through protobuf-c's descriptors (no hand-written list of the messages that may hold a
 * column), so that a relation knows, when it is translated, whether a later column names it.
 *
 * Called by the plan_*.c files. Ownership: everything made is in the translation's arena.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "connect/plan_internal.h"
#include "sqlexec/sql_error.h"

/* ---- errors ---- */

int cs_cp_invalid(cs_cp *c, const char *fmt, ...)
{
    char text[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    return cs_sql_error_set(c->err, CS_EINVAL, "INTERNAL_ERROR", "XX000", "%s", text);
}

int cs_cp_unsupported(cs_cp *c, const char *fmt, ...)
{
    char text[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    return cs_sql_error_set(c->err, CS_EUNSUPPORTED, "UNSUPPORTED_FEATURE", "0A000",
                            "The feature is not supported: %s.", text);
}

/* ---- plan ids referred to by columns ---- */

static void add_ref_id(cs_cp *c, int64_t id)
{
    for (int i = 0; i < c->n_ref_ids; i++)
        if (c->ref_ids[i] == id) return;
    if ((c->n_ref_ids & (c->n_ref_ids - 1)) == 0) { /* 0, 1, 2, 4, ...: grow */
        int64_t *n = cs_sql_alloc(c->a, sizeof *n * (size_t)(c->n_ref_ids ? c->n_ref_ids * 2 : 1));
        if (c->n_ref_ids) memcpy(n, c->ref_ids, sizeof *n * (size_t)c->n_ref_ids);
        c->ref_ids = n;
    }
    c->ref_ids[c->n_ref_ids++] = id;
}

/* Whether field f of message m is present (a oneof member only when its case is f). */
static bool field_present(const ProtobufCMessage *m, const ProtobufCFieldDescriptor *f)
{
    if (f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF)
        return *(const uint32_t *)((const char *)m + f->quantifier_offset) == f->id;
    return true;
}

static void collect_ids(cs_cp *c, const ProtobufCMessage *m, int depth)
{
    if (!m || depth > CS_CP_MAX_DEPTH) return;
    const ProtobufCMessageDescriptor *d = m->descriptor;
    if (d == &spark__connect__expression__unresolved_attribute__descriptor) {
        const Spark__Connect__Expression__UnresolvedAttribute *x = (const void *)m;
        if (CS_CP_HAS(x, plan_id)) add_ref_id(c, x->plan_id);
    } else if (d == &spark__connect__expression__unresolved_star__descriptor) {
        const Spark__Connect__Expression__UnresolvedStar *x = (const void *)m;
        if (CS_CP_HAS(x, plan_id)) add_ref_id(c, x->plan_id);
    } else if (d == &spark__connect__expression__unresolved_regex__descriptor) {
        const Spark__Connect__Expression__UnresolvedRegex *x = (const void *)m;
        if (CS_CP_HAS(x, plan_id)) add_ref_id(c, x->plan_id);
    }
    for (unsigned i = 0; i < d->n_fields; i++) {
        const ProtobufCFieldDescriptor *f = &d->fields[i];
        if (f->type != PROTOBUF_C_TYPE_MESSAGE || !field_present(m, f)) continue;
        const char *at = (const char *)m + f->offset;
        if (f->label == PROTOBUF_C_LABEL_REPEATED) {
            size_t n = *(const size_t *)((const char *)m + f->quantifier_offset);
            ProtobufCMessage *const *items = *(ProtobufCMessage *const *const *)at;
            for (size_t k = 0; k < n; k++)
                collect_ids(c, items[k], depth + 1);
        } else {
            collect_ids(c, *(const ProtobufCMessage *const *)at, depth + 1);
        }
    }
}

void cs_cp_begin(cs_cp *c, cs_connect_plan_ctx *ctx, const Spark__Connect__Relation *rel,
                 const Spark__Connect__Command *cmd)
{
    memset(c, 0, sizeof *c);
    c->ctx = ctx;
    c->a = ctx->arena;
    c->err = ctx->err;
    if (rel) collect_ids(c, &rel->base, 0);
    if (cmd) collect_ids(c, &cmd->base, 0);
}

const char *cs_cp_plan_qualifier(cs_cp *c, int64_t plan_id)
{
    for (int i = c->n_quals - 1; i >= 0; i--)
        if (c->qual_ids[i] == plan_id) return c->quals[i];
    return NULL;
}

/* ---- names ---- */

int cs_cp_attribute_name(cs_cp *c, const char *text, const char ***parts, int *n)
{
    size_t len = strlen(text);
    const char **out = cs_sql_alloc(c->a, sizeof *out * (len + 2));
    char *buf = cs_sql_alloc(c->a, len + 1);
    int k = 0;
    size_t b = 0;
    bool in_quote = false, part_quoted = false;
    const char *part = buf;
    for (size_t i = 0; i < len; i++) {
        char ch = text[i];
        if (in_quote) {
            if (ch == '`') {
                if (i + 1 < len && text[i + 1] == '`') {
                    buf[b++] = '`';
                    i++;
                } else {
                    in_quote = false;
                    /* a quoted part ends the part: only a dot may follow */
                    if (i + 1 < len && text[i + 1] != '.') goto bad;
                }
            } else {
                buf[b++] = ch;
            }
        } else if (ch == '`') {
            if (b > (size_t)(part - buf)) goto bad; /* a`b */
            in_quote = part_quoted = true;
        } else if (ch == '.') {
            if (b == (size_t)(part - buf) && !part_quoted) goto bad; /* a..b, .a */
            buf[b++] = '\0';
            out[k++] = part;
            part = buf + b;
            part_quoted = false;
        } else {
            buf[b++] = ch;
        }
    }
    if (in_quote || (b == (size_t)(part - buf) && !part_quoted && k > 0)) goto bad;
    buf[b] = '\0';
    out[k++] = part;
    *parts = out;
    *n = k;
    return 0;
bad:
    return cs_sql_error_set(c->err, CS_EINVAL, "INVALID_ATTRIBUTE_NAME_SYNTAX", "42601",
                            "Syntax error in the attribute name: `%s`. Check that backticks "
                            "appear in pairs, a quoted string is a complete name part and use a "
                            "backtick only inside quoted name parts.",
                            text);
}

cs_sql_expr *cs_cp_column(cs_cp *c, const char *const *parts, int n)
{
    cs_sql_expr *e = cs_sql_expr_new(c->a, CS_EX_UNRESOLVED_ATTR, 0);
    e->n_parts = n;
    e->parts = (const char **)cs_cp_array(c, (size_t)n);
    for (int i = 0; i < n; i++)
        e->parts[i] = parts[i];
    return e;
}

cs_sql_expr *cs_cp_column1(cs_cp *c, const char *name)
{
    const char *parts[1] = {cs_sql_strdup(c->a, name)};
    return cs_cp_column(c, parts, 1);
}

cs_sql_expr *cs_cp_call(cs_cp *c, const char *name, cs_sql_expr **args, int n)
{
    cs_sql_expr *e = cs_sql_expr_new(c->a, CS_EX_UNRESOLVED_FUNC, n);
    e->name = name;
    for (int i = 0; i < n; i++)
        e->args[i] = args[i];
    return e;
}

cs_sql_expr *cs_cp_alias(cs_cp *c, cs_sql_expr *e, const char *name)
{
    cs_sql_expr *al = cs_sql_expr_new(c->a, CS_EX_ALIAS, 1);
    al->args[0] = e;
    al->name = name;
    return al;
}

void **cs_cp_array(cs_cp *c, size_t n)
{
    return cs_sql_alloc(c->a, sizeof(void *) * (n ? n : 1));
}

int cs_cp_input_columns(cs_cp *c, const cs_logical_plan *input, cs_logical_plan **resolved)
{
    if (!c->ctx->session)
        return cs_cp_invalid(c, "a relation built from its input's columns needs a session");
    int rc = cs_sql_session_analyze(c->ctx->session, c->a, input, resolved, c->err);
    return rc < 0 ? rc : (rc ? CS_EINVAL : 0);
}

cs_col_type *cs_connect_plan_schema(const cs_logical_plan *p)
{
    cs_col_field *f = cs_xcalloc((size_t)p->n_output + 1, sizeof *f);
    for (int i = 0; i < p->n_output; i++) {
        f[i].name = (char *)(p->output[i]->name ? p->output[i]->name : "");
        f[i].type = cs_col_type_ref(p->output[i]->type);
        f[i].nullable = p->output[i]->nullable;
    }
    cs_col_type *t = cs_col_type_struct(f, p->n_output);
    free(f);
    return t;
}
