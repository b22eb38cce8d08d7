/*
 * sql_lexer.h — Spark SQL's tokens (SqlBaseLexer.g4 of Spark 4): words (keywords are words;
 * the parser compares them case-insensitively), back-quoted identifiers, string literals with
 * Spark's escapes, numbers with their type suffix (1L, 1S, 1Y, 1.5D, 1.5F, 1.5BD, 1e3),
 * operators, and hints (a comment opening with slash-star-plus). Comments (`--` to the end of the
 * line, bracketed comments, nested as Spark allows) are skipped.
 *
 * The whole statement text is cut into an array of tokens at once (one pass, no backtracking),
 * ending with a CS_TOK_EOF token. Positions are Spark's: line from 1, pos from 0 (characters of
 * the line before the token).
 *
 * Called by the parser (parser_*.c). Ownership: the tokens and their decoded text live in the
 * caller's arena.
 */
#ifndef CSPARK_SQL_SQL_LEXER_H
#define CSPARK_SQL_SQL_LEXER_H

#include <stdbool.h>
#include <stddef.h>

#include "common/err.h"
#include "sql/sql_arena.h"

typedef enum cs_sql_tok_kind {
    CS_TOK_EOF,
    CS_TOK_WORD,       /* identifier or keyword: [A-Za-z0-9_]+ not a number */
    CS_TOK_QIDENT,     /* `back-quoted` (text: `` unescaped) */
    CS_TOK_STRING,     /* 'x' or "x" (text: escapes decoded) */
    CS_TOK_NUMBER,     /* digits [. digits] [e[+-]digits] [suffix]: text = as written */
    CS_TOK_OP,         /* operators and punctuation: text = the operator ("<=>", "(", ...) */
    CS_TOK_HINT_START, /* the opening of a hint comment: slash, star, plus */
    CS_TOK_HINT_END    /* the end of a hint comment */
} cs_sql_tok_kind;

typedef struct cs_sql_token {
    cs_sql_tok_kind kind;
    const char *text;  /* NUL-terminated, arena (decoded for STRING and QIDENT) */
    size_t len;        /* bytes of text */
    size_t start, end; /* byte offsets of the token in the statement text */
    int line, pos;     /* Spark's position: line from 1, pos from 0 */
} cs_sql_token;

/* Cuts sql into tokens (*out, *n including the final EOF). On an unterminated string, comment
 * or quoted identifier: Spark's error (PARSE_SYNTAX_ERROR / UNCLOSED_BRACKETED_COMMENT) with
 * its position in *line, *pos, and CS_EINVAL. */
int cs_sql_lex(cs_sql_arena *a, const char *sql, cs_sql_token **out, int *n, int *line, int *pos,
               cs_error *err);

/* Whether t is the word kw (ASCII case-insensitive); kw is upper case. */
bool cs_sql_tok_is_kw(const cs_sql_token *t, const char *kw);
/* Whether t is the operator op. */
bool cs_sql_tok_is_op(const cs_sql_token *t, const char *op);

#endif /* CSPARK_SQL_SQL_LEXER_H */
