/*
 * parser_internal.h — private to the SQL parser (parser_*.c): the parser's state over the
 * token array and the helpers the parts share. Not for other modules: they use sql_parser.h.
 *
 * Errors unwind: a part that finds a syntax error calls cs_sqlp_fail / cs_sqlp_syntax_error,
 * which records Spark's error and longjmps back to the entry point (parser_stmt.c). Everything
 * a parse allocates comes from the arena, so nothing leaks on the way out; code between a
 * malloc and its free (the literal builders) never calls a failing helper.
 *
 * The parts: parser_expr.c (expressions, Spark's operator precedence), parser_query.c
 * (queries, relations, joins, set operations), parser_stmt.c (statements, DDL, the entry
 * points), parser_literal.c (literals and data types).
 */
#ifndef CSPARK_SQL_PARSER_INTERNAL_H
#define CSPARK_SQL_PARSER_INTERNAL_H

#include <setjmp.h>
#include <stdbool.h>

#include "sql/logical_plan.h"
#include "sql/sql_lexer.h"
#include "sql/sql_parser.h"

/* Deepest nesting of expressions and queries accepted (a fuzzer's 100000 parentheses must
 * not overflow the stack). */
#define CS_SQLP_MAX_DEPTH 1000

typedef struct cs_sql_window_def {
    const char *name;
    cs_window_spec *spec;
} cs_sql_window_def;

typedef struct cs_sqlp {
    cs_sql_arena *a;
    const char *sql;
    cs_sql_token *toks;
    int n_toks, i;
    jmp_buf fail;
    cs_error *err;
    int err_line, err_pos;
    int depth;
    cs_sql_expr *last_row;       /* the last (a, b) row written, for a tuple IN (subquery) */
    const cs_sql_params *params; /* parameter markers' values; NULL: markers are errors */
    int next_pos;                /* the next `?`'s index into params->pos */
    bool seen_pos, seen_named;   /* which kinds of markers the text used */
} cs_sqlp;

/* Growable array of pointers in the arena (doubling: no quadratic copying). */
typedef struct cs_sqlp_list {
    void **items;
    int n, cap;
} cs_sqlp_list;
void cs_sqlp_list_add(cs_sqlp *p, cs_sqlp_list *l, void *item);

/* token access */
static inline cs_sql_token *cs_sqlp_peek(cs_sqlp *p, int ahead)
{
    int k = p->i + ahead;
    return &p->toks[k < p->n_toks ? k : p->n_toks - 1];
}
bool cs_sqlp_is_kw(cs_sqlp *p, int ahead, const char *kw);
bool cs_sqlp_is_op(cs_sqlp *p, int ahead, const char *op);
bool cs_sqlp_accept_kw(cs_sqlp *p, const char *kw);
bool cs_sqlp_accept_op(cs_sqlp *p, const char *op);
void cs_sqlp_expect_kw(cs_sqlp *p, const char *kw);
void cs_sqlp_expect_op(cs_sqlp *p, const char *op);
cs_sql_token *cs_sqlp_next(cs_sqlp *p);

/* errors: never return */
_Noreturn void cs_sqlp_syntax_error(cs_sqlp *p, const cs_sql_token *at);
_Noreturn void cs_sqlp_fail(cs_sqlp *p, int line, int pos, const char *cls, const char *state,
                            const char *fmt, ...) __attribute__((format(printf, 6, 7)));
void cs_sqlp_enter(cs_sqlp *p); /* depth guard */
void cs_sqlp_leave(cs_sqlp *p);

/* identifiers: a word that is not reserved where it stands, or a back-quoted name */
bool cs_sqlp_is_ident(cs_sqlp *p, int ahead);
const char *cs_sqlp_ident(cs_sqlp *p);
/* A collation name after COLLATE: an identifier or a qualified SYSTEM.BUILTIN.name (arena). */
const char *cs_sqlp_collation_name(cs_sqlp *p);
/* Fails with Spark's COLLATION_INVALID_NAME (its proposals) for name at t. */
_Noreturn void cs_sqlp_collation_invalid(cs_sqlp *p, const cs_sql_token *t, const char *name);
/* a.b.c: the parts (at least one) */
const char **cs_sqlp_multipart(cs_sqlp *p, int *n);
/* Whether the word at `ahead` may be taken as an alias written without AS. */
bool cs_sqlp_can_be_alias(cs_sqlp *p, int ahead);
const char *cs_sqlp_string(cs_sqlp *p); /* one or more adjacent string literals */

/* expressions (parser_expr.c) */
cs_sql_expr *cs_sqlp_expr(cs_sqlp *p);
cs_sql_expr *cs_sqlp_value_expr(cs_sqlp *p); /* no boolean operators or predicates */
cs_sql_expr *cs_sqlp_primary(cs_sqlp *p);
cs_sql_expr *cs_sqlp_call(cs_sqlp *p, const char *fn, int line, int pos, cs_sql_expr **args, int n);
cs_sql_expr *cs_sqlp_sort_item(cs_sqlp *p);
cs_window_spec *cs_sqlp_window_spec(cs_sqlp *p); /* after '(' ... up to ')' */
/* A copy of the definition base refined by spec (OVER (w ORDER BY ...)): spec's partitioning,
 * ordering and frame where it has them, base's otherwise. */
cs_window_spec *cs_sqlp_merge_window(cs_sqlp *p, const cs_window_spec *base,
                                     const cs_window_spec *spec);
/* Replaces OVER w references by the WINDOW clause's definitions, in place in e's tree. */
void cs_sqlp_apply_windows(cs_sqlp *p, cs_sql_expr *e, cs_sql_window_def *defs, int n);

/* literals and types (parser_literal.c) */
cs_sql_expr *cs_sqlp_number(cs_sqlp *p, bool negative);
cs_sql_expr *cs_sqlp_typed_literal(cs_sqlp *p); /* DATE '..', TIMESTAMP '..', X'..' */
cs_sql_expr *cs_sqlp_interval(cs_sqlp *p);      /* after INTERVAL */
cs_sql_expr *cs_sqlp_string_literal(cs_sqlp *p, const char *s, int line, int pos);
cs_sql_expr *cs_sqlp_bool_literal(cs_sqlp *p, bool v, int line, int pos);
cs_sql_expr *cs_sqlp_null_literal(cs_sqlp *p, int line, int pos);
cs_sql_expr *cs_sqlp_int_literal(cs_sqlp *p, int32_t v, int line, int pos);
cs_col_type *cs_sqlp_data_type(cs_sqlp *p); /* kept by the arena */

/* queries (parser_query.c) */
cs_sql_expr *cs_sqlp_named_expr(cs_sqlp *p); /* expr [[AS] alias | AS (a, b)] */
cs_logical_plan *cs_sqlp_query(cs_sqlp *p);  /* [WITH ...] term [ORDER BY ...] [LIMIT ...] */
bool cs_sqlp_starts_query(cs_sqlp *p, int ahead);

#endif /* CSPARK_SQL_PARSER_INTERNAL_H */
