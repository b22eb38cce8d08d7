/*
 * sql_lexer.c — Spark SQL's tokens (see sql_lexer.h), after SqlBaseLexer.g4: numbers with
 * Spark's suffixes (a word starting with digits that is not a valid number, like `1a`, is an
 * identifier as in Spark), strings in single or double quotes with SparkParserUtils'
 * unescaping (\n \t \b \r \0 \Z \uXXXX \UXXXXXXXX, octal \ooo, \% and \_ kept, any other
 * \c as c) and the raw strings r'...', bracketed comments nested to any depth, and hint
 * comments. Called by the parser.
 */
#include "sql/sql_lexer.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "common/strutil.h"
#include "sqlexec/sql_error.h"

typedef struct lexer {
    cs_sql_arena *a;
    const char *s;
    size_t i, n;
    int line;
    size_t line_start;
    cs_sql_token *toks;
    int n_toks, cap;
    int hint_depth; /* inside a hint comment */
} lexer;

static int pos_of(const lexer *L, size_t at)
{
    return (int)(at - L->line_start);
}

static void advance(lexer *L, size_t k)
{
    for (size_t j = 0; j < k && L->i < L->n; j++, L->i++) {
        if (L->s[L->i] == '\n') {
            L->line++;
            L->line_start = L->i + 1;
        }
    }
}

static cs_sql_token *push(lexer *L, cs_sql_tok_kind kind, size_t start, int line, int pos)
{
    if (L->n_toks == L->cap) {
        int cap = L->cap ? L->cap * 2 : 64;
        cs_sql_token *t = cs_sql_alloc(L->a, sizeof *t * (size_t)cap);
        if (L->n_toks) memcpy(t, L->toks, sizeof *t * (size_t)L->n_toks);
        L->toks = t;
        L->cap = cap;
    }
    cs_sql_token *t = &L->toks[L->n_toks++];
    memset(t, 0, sizeof *t);
    t->kind = kind;
    t->start = start;
    t->end = L->i;
    t->line = line;
    t->pos = pos;
    return t;
}

static bool is_word_char(char c)
{
    return isalnum((unsigned char)c) || c == '_';
}

/* UTF-8 of code point cp appended to buf at *k (room checked by the caller: 4 bytes). */
static void put_utf8(char *buf, size_t *k, unsigned long cp)
{
    if (cp > 0x10FFFF) cp = 0xFFFD;
    *k += cs_utf8_put((uint32_t)cp, (uint8_t *)buf + *k);
}

static int hex_digits(const char *p, size_t avail, int k, unsigned long *out)
{
    if ((size_t)k > avail) return 0;
    unsigned long v = 0;
    for (int j = 0; j < k; j++) {
        if (!isxdigit((unsigned char)p[j])) return 0;
        v = v * 16 +
            (unsigned long)(isdigit((unsigned char)p[j]) ? p[j] - '0' : (tolower(p[j]) - 'a' + 10));
    }
    *out = v;
    return 1;
}

/* The body s[0..n) of a quoted string, unescaped as SparkParserUtils.unescapeSQLString. */
static char *unescape(cs_sql_arena *a, const char *s, size_t n, char quote, size_t *len)
{
    char *buf = cs_sql_alloc(a, n * 2 + 4);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (c != '\\' || i + 1 >= n) {
            buf[k++] = c;
            continue;
        }
        char e = s[++i];
        unsigned long cp;
        if (e == 'u' && hex_digits(s + i + 1, n - i - 1, 4, &cp)) {
            put_utf8(buf, &k, cp);
            i += 4;
        } else if (e == 'U' && hex_digits(s + i + 1, n - i - 1, 8, &cp)) {
            put_utf8(buf, &k, cp);
            i += 8;
        } else if (e >= '0' && e <= '3' && i + 2 < n && s[i + 1] >= '0' && s[i + 1] <= '7' &&
                   s[i + 2] >= '0' && s[i + 2] <= '7') {
            put_utf8(buf, &k,
                     (unsigned long)((e - '0') * 64 + (s[i + 1] - '0') * 8 + (s[i + 2] - '0')));
            i += 2;
        } else {
            switch (e) {
            case '0':
                buf[k++] = '\0';
                break;
            case 'b':
                buf[k++] = '\b';
                break;
            case 'n':
                buf[k++] = '\n';
                break;
            case 'r':
                buf[k++] = '\r';
                break;
            case 't':
                buf[k++] = '\t';
                break;
            case 'Z':
                buf[k++] = '\x1A';
                break;
            case '%':
            case '_':
                buf[k++] = '\\';
                buf[k++] = e;
                break;
            default:
                buf[k++] = e;
                break;
            }
        }
    }
    buf[k] = '\0';
    *len = k;
    return buf;
}

/* Length of a number token at s (digits [. digits] [e[+-]digits] [suffix]) when what follows
 * is not a word character; 0 when it is not a number (then it may be a word). */
static size_t number_length(const char *s, size_t n)
{
    size_t i = 0;
    bool dot = false, exp = false;
    while (i < n && isdigit((unsigned char)s[i]))
        i++;
    size_t int_digits = i;
    if (i < n && s[i] == '.') {
        size_t j = i + 1;
        while (j < n && isdigit((unsigned char)s[j]))
            j++;
        if (int_digits == 0 && j == i + 1) return 0;
        dot = true;
        i = j;
    }
    if (int_digits == 0 && !dot) return 0;
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        size_t j = i + 1;
        if (j < n && (s[j] == '+' || s[j] == '-')) j++;
        size_t d = j;
        while (j < n && isdigit((unsigned char)s[j]))
            j++;
        if (j > d) {
            exp = true;
            i = j;
        }
    }
    size_t body = i;
    /* suffixes: L S Y (integers), D F BD (any) */
    if (i < n && !dot && !exp &&
        (s[i] == 'L' || s[i] == 'l' || s[i] == 'S' || s[i] == 's' || s[i] == 'Y' || s[i] == 'y'))
        i++;
    else if (i < n && (s[i] == 'D' || s[i] == 'd' || s[i] == 'F' || s[i] == 'f'))
        i++;
    else if (i + 1 < n && (s[i] == 'B' || s[i] == 'b') && (s[i + 1] == 'D' || s[i + 1] == 'd'))
        i += 2;
    if (i < n && is_word_char(s[i])) {
        /* `1a`, `12abc`: a word; `1.5x`: the number, then a word (Spark fails on it too) */
        return (dot || exp) ? body : 0;
    }
    return i;
}

static int lex_error(lexer *L, size_t at, int *line, int *pos, cs_error *err, const char *cls,
                     const char *sqlstate, const char *what)
{
    /* the line of `at` */
    int ln = 1;
    size_t ls = 0;
    for (size_t j = 0; j < at && j < L->n; j++)
        if (L->s[j] == '\n') {
            ln++;
            ls = j + 1;
        }
    if (line) *line = ln;
    if (pos) *pos = (int)(at - ls);
    return cs_sql_error_set(err, CS_EINVAL, cls, sqlstate, "%s", what);
}

int cs_sql_lex(cs_sql_arena *a, const char *sql, cs_sql_token **out, int *n, int *line, int *pos,
               cs_error *err)
{
    lexer L = {.a = a, .s = sql, .n = strlen(sql), .line = 1};
    while (L.i < L.n) {
        const char *p = L.s + L.i;
        size_t left = L.n - L.i;
        char c = *p;
        if (isspace((unsigned char)c)) {
            advance(&L, 1);
            continue;
        }
        if (c == '-' && left > 1 && p[1] == '-') {
            while (L.i < L.n && L.s[L.i] != '\n')
                L.i++;
            continue;
        }
        size_t start = L.i;
        int tline = L.line, tpos = pos_of(&L, L.i);
        if (c == '/' && left > 2 && p[1] == '*' && p[2] == '+' && L.hint_depth == 0) {
            advance(&L, 3);
            cs_sql_token *t = push(&L, CS_TOK_HINT_START, start, tline, tpos);
            t->text = "/*+";
            t->len = 3;
            L.hint_depth = 1;
            continue;
        }
        if (c == '*' && left > 1 && p[1] == '/' && L.hint_depth) {
            advance(&L, 2);
            cs_sql_token *t = push(&L, CS_TOK_HINT_END, start, tline, tpos);
            t->text = "*/";
            t->len = 2;
            L.hint_depth = 0;
            continue;
        }
        if (c == '/' && left > 1 && p[1] == '*') {
            int depth = 0;
            while (L.i < L.n) {
                if (L.s[L.i] == '/' && L.i + 1 < L.n && L.s[L.i + 1] == '*') {
                    depth++;
                    advance(&L, 2);
                } else if (L.s[L.i] == '*' && L.i + 1 < L.n && L.s[L.i + 1] == '/') {
                    depth--;
                    advance(&L, 2);
                    if (depth == 0) break;
                } else {
                    advance(&L, 1);
                }
            }
            if (depth > 0)
                return lex_error(&L, start, line, pos, err, "UNCLOSED_BRACKETED_COMMENT", "42601",
                                 "Found an unclosed bracketed comment. Please, append */ at the "
                                 "end of the comment.");
            continue;
        }
        bool raw = (c == 'r' || c == 'R') && left > 1 && (p[1] == '\'' || p[1] == '"');
        if (c == '\'' || c == '"' || raw) {
            char q = raw ? p[1] : c;
            size_t body = L.i + (raw ? 2 : 1), j = body;
            bool closed = false;
            while (j < L.n) {
                if (!raw && L.s[j] == '\\' && j + 1 < L.n) {
                    j += 2;
                } else if (L.s[j] == q) { /* 'it''s' is 'it' 's' (adjacent: its), as Spark */
                    closed = true;
                    break;
                } else {
                    j++;
                }
            }
            if (!closed) {
                char what[160];
                /* Spark's lexer cannot make a token of an unclosed quote: ANTLR reports the
                 * character that starts it */
                snprintf(what, sizeof what, "Syntax error at or near '%c'.", q);
                return lex_error(&L, start, line, pos, err, "PARSE_SYNTAX_ERROR", "42601", what);
            }
            cs_sql_token *t;
            size_t len;
            char *text = raw ? cs_sql_strndup(a, L.s + body, j - body)
                             : unescape(a, L.s + body, j - body, q, &len);
            if (raw) len = j - body;
            advance(&L, j + 1 - L.i);
            t = push(&L, CS_TOK_STRING, start, tline, tpos);
            t->text = text;
            t->len = len;
            continue;
        }
        if (c == '`') {
            size_t j = L.i + 1;
            bool closed = false;
            while (j < L.n) {
                if (L.s[j] == '`') {
                    if (j + 1 < L.n && L.s[j + 1] == '`') {
                        j += 2;
                        continue;
                    }
                    closed = true;
                    break;
                }
                j++;
            }
            if (!closed)
                return lex_error(&L, start, line, pos, err, "PARSE_SYNTAX_ERROR", "42601",
                                 "Syntax error at or near '`'.");
            char *text = cs_sql_alloc(a, j - L.i);
            size_t k = 0;
            for (size_t m = L.i + 1; m < j; m++) {
                text[k++] = L.s[m];
                if (L.s[m] == '`') m++;
            }
            text[k] = '\0';
            advance(&L, j + 1 - L.i);
            cs_sql_token *t = push(&L, CS_TOK_QIDENT, start, tline, tpos);
            t->text = text;
            t->len = k;
            continue;
        }
        size_t nl = (isdigit((unsigned char)c) || c == '.') ? number_length(p, left) : 0;
        if (nl > 0) {
            advance(&L, nl);
            cs_sql_token *t = push(&L, CS_TOK_NUMBER, start, tline, tpos);
            t->text = cs_sql_strndup(a, p, nl);
            t->len = nl;
            continue;
        }
        if (is_word_char(c) || (unsigned char)c >= 0x80) {
            size_t j = L.i;
            while (j < L.n && (is_word_char(L.s[j]) || (unsigned char)L.s[j] >= 0x80))
                j++;
            advance(&L, j - L.i);
            cs_sql_token *t = push(&L, CS_TOK_WORD, start, tline, tpos);
            t->text = cs_sql_strndup(a, p, j - start);
            t->len = j - start;
            continue;
        }
        static const char *const ops[] = {
            "<=>", ">>>", "<>", "!=", "<=", ">=", "==", "||", "::", "->", "=>", "<<", ">>",
            "=",   "<",   ">",  "!",  "+",  "-",  "*",  "/",  "%",  "~",  "&",  "|",  "^",
            "(",   ")",   "[",  "]",  ",",  ".",  ";",  ":",  "?",  "{",  "}"};
        size_t ol = 0;
        for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++) {
            size_t l = strlen(ops[k]);
            if (l <= left && memcmp(p, ops[k], l) == 0) {
                ol = l;
                break;
            }
        }
        if (ol == 0) {
            char what[64];
            snprintf(what, sizeof what, "Syntax error at or near '%c'.", c);
            return lex_error(&L, start, line, pos, err, "PARSE_SYNTAX_ERROR", "42601", what);
        }
        advance(&L, ol);
        cs_sql_token *t = push(&L, CS_TOK_OP, start, tline, tpos);
        t->text = cs_sql_strndup(a, p, ol);
        t->len = ol;
    }
    cs_sql_token *t = push(&L, CS_TOK_EOF, L.n, L.line, pos_of(&L, L.n));
    t->text = "";
    *out = L.toks;
    *n = L.n_toks;
    return CS_OK;
}

bool cs_sql_tok_is_kw(const cs_sql_token *t, const char *kw)
{
    return t->kind == CS_TOK_WORD && strcasecmp(t->text, kw) == 0;
}

bool cs_sql_tok_is_op(const cs_sql_token *t, const char *op)
{
    return t->kind == CS_TOK_OP && strcmp(t->text, op) == 0;
}
