/*
 * parser_base.c — what every part of the SQL parser shares (parser_internal.h): moving over
 * the tokens, Spark's syntax error, the nesting guard, identifiers (with Spark's default
 * keyword rule: keywords are identifiers wherever the grammar allows an identifier, except
 * that an alias written without AS may not be a word that continues the query, as Spark's
 * strictIdentifier excludes JOIN, LEFT, UNION, ...), and adjacent string literals.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "sql/parser_internal.h"
#include "sqlexec/sql_error.h"

void cs_sqlp_list_add(cs_sqlp *p, cs_sqlp_list *l, void *item)
{
    if (l->n == l->cap) {
        int cap = l->cap ? l->cap * 2 : 8;
        void **items = cs_sql_alloc(p->a, sizeof *items * (size_t)cap);
        if (l->n) memcpy(items, l->items, sizeof *items * (size_t)l->n);
        l->items = items;
        l->cap = cap;
    }
    l->items[l->n++] = item;
}

bool cs_sqlp_is_kw(cs_sqlp *p, int ahead, const char *kw)
{
    return cs_sql_tok_is_kw(cs_sqlp_peek(p, ahead), kw);
}

bool cs_sqlp_is_op(cs_sqlp *p, int ahead, const char *op)
{
    return cs_sql_tok_is_op(cs_sqlp_peek(p, ahead), op);
}

cs_sql_token *cs_sqlp_next(cs_sqlp *p)
{
    cs_sql_token *t = cs_sqlp_peek(p, 0);
    if (p->i < p->n_toks - 1) p->i++;
    return t;
}

bool cs_sqlp_accept_kw(cs_sqlp *p, const char *kw)
{
    if (!cs_sqlp_is_kw(p, 0, kw)) return false;
    cs_sqlp_next(p);
    return true;
}

bool cs_sqlp_accept_op(cs_sqlp *p, const char *op)
{
    if (!cs_sqlp_is_op(p, 0, op)) return false;
    cs_sqlp_next(p);
    return true;
}

void cs_sqlp_expect_kw(cs_sqlp *p, const char *kw)
{
    if (!cs_sqlp_accept_kw(p, kw)) cs_sqlp_syntax_error(p, cs_sqlp_peek(p, 0));
}

void cs_sqlp_expect_op(cs_sqlp *p, const char *op)
{
    if (!cs_sqlp_accept_op(p, op)) cs_sqlp_syntax_error(p, cs_sqlp_peek(p, 0));
}

_Noreturn void cs_sqlp_fail(cs_sqlp *p, int line, int pos, const char *cls, const char *state,
                            const char *fmt, ...)
{
    char text[900];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    cs_sql_error_set(p->err, CS_EINVAL, cls, state, "%s", text);
    p->err_line = line;
    p->err_pos = pos;
    longjmp(p->fail, 1);
}

_Noreturn void cs_sqlp_syntax_error(cs_sqlp *p, const cs_sql_token *at)
{
    /* Spark quotes the offending token as written (a string keeps its quotes); its message
     * parameters are that text (`error`) and an empty `hint` */
    char near[210] = "end of input";
    if (at->kind != CS_TOK_EOF) {
        size_t len = at->end - at->start;
        snprintf(near, sizeof near, "'%.*s'", (int)(len > 200 ? 200 : len), p->sql + at->start);
    }
    cs_sql_error_set(p->err, CS_EINVAL, "PARSE_SYNTAX_ERROR", "42601",
                     "Syntax error at or near %s.", near);
    cs_sql_error_param(p->err, "error", near);
    cs_sql_error_param(p->err, "hint", "");
    p->err_line = at->line;
    p->err_pos = at->pos;
    longjmp(p->fail, 1);
}

void cs_sqlp_enter(cs_sqlp *p)
{
    if (++p->depth > CS_SQLP_MAX_DEPTH) {
        cs_sql_token *t = cs_sqlp_peek(p, 0);
        cs_sqlp_fail(p, t->line, t->pos, "PARSE_SYNTAX_ERROR", "42601",
                     "Syntax error at or near '%.*s': the statement nests deeper than %d "
                     "levels.",
                     (int)(t->end - t->start > 40 ? 40 : t->end - t->start), p->sql + t->start,
                     CS_SQLP_MAX_DEPTH);
    }
}

void cs_sqlp_leave(cs_sqlp *p)
{
    p->depth--;
}

bool cs_sqlp_is_ident(cs_sqlp *p, int ahead)
{
    cs_sql_tok_kind k = cs_sqlp_peek(p, ahead)->kind;
    return k == CS_TOK_WORD || k == CS_TOK_QIDENT;
}

const char *cs_sqlp_ident(cs_sqlp *p)
{
    cs_sql_token *t = cs_sqlp_peek(p, 0);
    if (t->kind != CS_TOK_WORD && t->kind != CS_TOK_QIDENT) cs_sqlp_syntax_error(p, t);
    cs_sqlp_next(p);
    return t->text;
}

const char **cs_sqlp_multipart(cs_sqlp *p, int *n)
{
    cs_sqlp_list l = {0};
    cs_sqlp_list_add(p, &l, (void *)cs_sqlp_ident(p));
    while (cs_sqlp_is_op(p, 0, ".") && cs_sqlp_is_ident(p, 1)) {
        cs_sqlp_next(p);
        cs_sqlp_list_add(p, &l, (void *)cs_sqlp_ident(p));
    }
    *n = l.n;
    return (const char **)l.items;
}

/* Words that go on with a query after an expression or a relation, so never an alias written
 * without AS (Spark's strictNonReserved words and the clause keywords its grammar tries
 * first). */
static const char *const not_an_alias[] = {
    "FROM",      "WHERE",  "GROUP",   "HAVING",   "ORDER",   "LIMIT",       "OFFSET",  "UNION",
    "INTERSECT", "EXCEPT", "MINUS",   "SETMINUS", "WINDOW",  "SORT",        "CLUSTER", "DISTRIBUTE",
    "LATERAL",   "JOIN",   "INNER",   "LEFT",     "RIGHT",   "FULL",        "CROSS",   "NATURAL",
    "ON",        "USING",  "SEMI",    "ANTI",     "AS",      "TABLESAMPLE", "PIVOT",   "UNPIVOT",
    "QUALIFY",   "SELECT", "VALUES",  "WITH",     "INTO",    "WHEN",        "THEN",    "ELSE",
    "END",       "AND",    "OR",      "FOR",      "OVER",    "OUTER",       "IS",      "IN",
    "LIKE",      "ILIKE",  "RLIKE",   "REGEXP",   "BETWEEN", "NOT",         "ESCAPE",  "DIV",
    "FILTER",    "IGNORE", "RESPECT", "ASC",      "DESC",    "NULLS",       "ROWS",    "RANGE",
    "PARTITION", "BY",     "TABLE",   "INSERT",   "MAP",     "REDUCE"};

/* Spark's strictNonReserved words: never an alias without AS */
static const char *const strict_non_reserved[] = {
    "ANTI",  "CROSS",   "EXCEPT", "FULL",  "INNER", "INTERSECT", "JOIN",  "LATERAL", "LEFT",
    "MINUS", "NATURAL", "ON",     "RIGHT", "SEMI",  "SETMINUS",  "UNION", "USING"};

bool cs_sqlp_can_be_alias(cs_sqlp *p, int ahead)
{
    cs_sql_token *t = cs_sqlp_peek(p, ahead);
    if (t->kind == CS_TOK_QIDENT) return true;
    if (t->kind != CS_TOK_WORD) return false;
    cs_sql_token *next = cs_sqlp_peek(p, ahead + 1);
    if (next->kind == CS_TOK_EOF || cs_sql_tok_is_op(next, ";")) {
        /* the last word of a statement: any word but a strict one, as Spark's parser takes
         * `SELECT * FROM t WHERE` (WHERE an alias of t) */
        for (size_t k = 0; k < sizeof strict_non_reserved / sizeof strict_non_reserved[0]; k++)
            if (cs_sql_tok_is_kw(t, strict_non_reserved[k])) return false;
        return true;
    }
    /* GROUP, ORDER, SORT, CLUSTER, DISTRIBUTE without BY: an alias, as Spark's parser takes
     * `FROM t GROUP a` (then fails at a) */
    static const char *const by_words[] = {"GROUP", "ORDER", "SORT", "CLUSTER", "DISTRIBUTE"};
    for (size_t k = 0; k < sizeof by_words / sizeof by_words[0]; k++)
        if (cs_sql_tok_is_kw(t, by_words[k]) && !cs_sql_tok_is_kw(next, "BY")) return true;
    for (size_t k = 0; k < sizeof not_an_alias / sizeof not_an_alias[0]; k++)
        if (cs_sql_tok_is_kw(t, not_an_alias[k])) return false;
    return true;
}

const char *cs_sqlp_string(cs_sqlp *p)
{
    cs_sql_token *t = cs_sqlp_peek(p, 0);
    if (t->kind != CS_TOK_STRING) cs_sqlp_syntax_error(p, t);
    cs_sqlp_next(p);
    if (cs_sqlp_peek(p, 0)->kind != CS_TOK_STRING) return t->text;
    /* 'a' 'b' is 'ab' */
    size_t len = t->len;
    for (int k = 0; cs_sqlp_peek(p, k)->kind == CS_TOK_STRING; k++)
        len += cs_sqlp_peek(p, k)->len;
    char *s = cs_sql_alloc(p->a, len + 1);
    memcpy(s, t->text, t->len);
    size_t at = t->len;
    while (cs_sqlp_peek(p, 0)->kind == CS_TOK_STRING) {
        cs_sql_token *u = cs_sqlp_next(p);
        memcpy(s + at, u->text, u->len);
        at += u->len;
    }
    s[at] = '\0';
    return s;
}
