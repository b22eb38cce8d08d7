/*
 * parser_stmt.c — Spark SQL statements and the parser's entry points (sql_parser.h).
 *
 * Statements (cs_statement_kind): a query; EXPLAIN [EXTENDED|FORMATTED|CODEGEN|COST|LOGICAL]
 * (mode, inner); CREATE [OR REPLACE] [EXTERNAL] TABLE [IF NOT EXISTS] t [(col type [NOT NULL]
 * [COMMENT 'c'], ...)] [USING fmt] [OPTIONS (k [=] v, ...)] [PARTITIONED BY (a, ...)]
 * [CLUSTERED BY (b, ...) [SORTED BY (s, ...)] INTO n BUCKETS] [LOCATION 'p'] [COMMENT 'c']
 * [TBLPROPERTIES (...)] [[AS] query]; CREATE [OR REPLACE]
 * [GLOBAL] TEMP[ORARY] VIEW [IF NOT EXISTS] v [(a [COMMENT 'c'], ...)] [USING fmt OPTIONS
 * (...)] AS query; DROP TABLE|VIEW [IF EXISTS] name (mode "TABLE"/"VIEW"); INSERT INTO|
 * OVERWRITE [TABLE] t [PARTITION (k [= v], ...)] [(cols)] query and INSERT OVERWRITE [LOCAL]
 * DIRECTORY ['p'] USING fmt [OPTIONS (...)] query (location); SET / SET -v / SET key / SET
 * key=value and RESET [key] (mode "SET"/"RESET"; key and value are the raw text around the
 * first '=', trimmed, as Spark's SparkSqlParser reads them); SHOW TABLES|VIEWS [FROM|IN db]
 * [[LIKE] 'pattern'], SHOW DATABASES|SCHEMAS|NAMESPACES, SHOW FUNCTIONS, SHOW COLUMNS FROM t
 * [FROM db], SHOW CREATE TABLE t, SHOW TBLPROPERTIES t and DESCRIBE|DESC [TABLE|QUERY|
 * FUNCTION|DATABASE] [EXTENDED|FORMATTED] x (kind SHOW, mode names what); CACHE [LAZY] TABLE
 * t [OPTIONS (...)] [[AS] query], UNCACHE TABLE [IF EXISTS] t, CLEAR CACHE, REFRESH TABLE t
 * (kind CACHE, mode "CACHE"/"CACHE LAZY"/"UNCACHE"/"CLEAR"/"REFRESH"); USE [DATABASE|
 * NAMESPACE|SCHEMA] db; CREATE DATABASE|SCHEMA|NAMESPACE [IF NOT EXISTS] db [COMMENT 'c']
 * [LOCATION 'p'] [WITH DBPROPERTIES|PROPERTIES (...)]; DROP DATABASE|SCHEMA|NAMESPACE [IF
 * EXISTS] db [RESTRICT|CASCADE]; CREATE [OR REPLACE] [TEMPORARY] FUNCTION [IF NOT EXISTS]
 * [db.]f AS 'class' [USING JAR|FILE|ARCHIVE 'uri', ...]; DROP [TEMPORARY] FUNCTION [IF EXISTS]
 * f; SHOW [USER|SYSTEM|ALL] FUNCTIONS [FROM|IN db] [[LIKE] 'pattern'].
 *
 * A script is cut at `;` between statements (a `;` inside a string, a comment or a
 * parenthesis is not a cut: the lexer and the grammar see to it).
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sql/parser_internal.h"
#include "sql/sql_parser.h"
#include "sqlexec/sql_error.h"

static bool at_statement_end(cs_sqlp *p)
{
    cs_sql_token *t = cs_sqlp_peek(p, 0);
    return t->kind == CS_TOK_EOF || cs_sql_tok_is_op(t, ";");
}

static cs_sql_statement *stmt_new(cs_sqlp *p, cs_statement_kind kind)
{
    cs_sql_statement *s = cs_sql_alloc(p->a, sizeof *s);
    s->kind = kind;
    return s;
}

static const char *upper_dup(cs_sqlp *p, const char *s)
{
    char *d = cs_sql_strdup(p->a, s);
    for (char *c = d; *c; c++)
        *c = (char)toupper((unsigned char)*c);
    return d;
}

static void name_of(cs_sqlp *p, cs_sql_statement *s)
{
    s->parts = cs_sqlp_multipart(p, &s->n_parts);
}

static bool accept_if_exists(cs_sqlp *p)
{
    if (cs_sqlp_is_kw(p, 0, "IF") && cs_sqlp_is_kw(p, 1, "EXISTS")) {
        cs_sqlp_next(p);
        cs_sqlp_next(p);
        return true;
    }
    return false;
}

static bool accept_if_not_exists(cs_sqlp *p)
{
    if (cs_sqlp_is_kw(p, 0, "IF") && cs_sqlp_is_kw(p, 1, "NOT") && cs_sqlp_is_kw(p, 2, "EXISTS")) {
        cs_sqlp_next(p);
        cs_sqlp_next(p);
        cs_sqlp_next(p);
        return true;
    }
    return false;
}

/* an option's key (a.b.c or 'string') or value (string, number, boolean, identifier) */
static const char *option_token(cs_sqlp *p, bool key)
{
    cs_sql_token *t = cs_sqlp_peek(p, 0);
    if (t->kind == CS_TOK_STRING) /* one literal: 'k' 'v' is a key and its value */
        return cs_sqlp_next(p)->text;
    if (key) {
        int n;
        const char **parts = cs_sqlp_multipart(p, &n);
        size_t len = 0;
        for (int k = 0; k < n; k++)
            len += strlen(parts[k]) + 1;
        char *s = cs_sql_alloc(p->a, len + 1);
        for (int k = 0; k < n; k++) {
            if (k) strcat(s, ".");
            strcat(s, parts[k]);
        }
        return s;
    }
    bool neg = cs_sqlp_accept_op(p, "-");
    t = cs_sqlp_peek(p, 0);
    if (t->kind != CS_TOK_NUMBER && t->kind != CS_TOK_WORD) cs_sqlp_syntax_error(p, t);
    cs_sqlp_next(p);
    if (!neg) return t->text;
    size_t n = t->len + 2;
    char *s = cs_sql_alloc(p->a, n);
    s[0] = '-';
    memcpy(s + 1, t->text, t->len + 1);
    return s;
}

/* ( k [=] v, ... ) appended to the statement's options */
static void options(cs_sqlp *p, cs_sql_statement *s)
{
    cs_sqlp_expect_op(p, "(");
    cs_sqlp_list keys = {0}, vals = {0};
    for (int k = 0; k < s->n_options; k++) {
        cs_sqlp_list_add(p, &keys, (void *)s->option_keys[k]);
        cs_sqlp_list_add(p, &vals, (void *)s->option_values[k]);
    }
    if (!cs_sqlp_is_op(p, 0, ")")) do {
            cs_sqlp_list_add(p, &keys, (void *)option_token(p, true));
            cs_sqlp_accept_op(p, "=");
            cs_sqlp_list_add(p, &vals, (void *)option_token(p, false));
        } while (cs_sqlp_accept_op(p, ","));
    cs_sqlp_expect_op(p, ")");
    s->n_options = keys.n;
    s->option_keys = (const char **)keys.items;
    s->option_values = (const char **)vals.items;
}

static cs_sql_statement *statement(cs_sqlp *p);

static cs_sql_statement *query_statement(cs_sqlp *p)
{
    cs_sql_statement *s = stmt_new(p, CS_STMT_QUERY);
    s->plan = cs_sqlp_query(p);
    return s;
}

static cs_col_type *column_list(cs_sqlp *p);

/* (a int NOT NULL COMMENT 'x', ...) as a struct type */
static cs_col_type *column_defs(cs_sqlp *p)
{
    cs_sqlp_expect_op(p, "(");
    cs_col_type *t = column_list(p);
    cs_sqlp_expect_op(p, ")");
    return t;
}

/* a int NOT NULL COMMENT 'x', ... as a struct type */
static cs_col_type *column_list(cs_sqlp *p)
{
    cs_sqlp_list names = {0}, types = {0}, nulls = {0};
    do {
        cs_sqlp_list_add(p, &names, (void *)cs_sqlp_ident(p));
        cs_sqlp_list_add(p, &types, cs_sqlp_data_type(p));
        bool nullable = true;
        for (;;) {
            if (cs_sqlp_is_kw(p, 0, "NOT") && cs_sqlp_is_kw(p, 1, "NULL")) {
                cs_sqlp_next(p);
                cs_sqlp_next(p);
                nullable = false;
            } else if (cs_sqlp_accept_kw(p, "COMMENT")) {
                cs_sqlp_string(p);
            } else {
                break;
            }
        }
        cs_sqlp_list_add(p, &nulls, nullable ? (void *)1 : NULL);
    } while (cs_sqlp_accept_op(p, ","));
    cs_col_field *f = cs_sql_alloc(p->a, sizeof *f * (size_t)(names.n + 1));
    for (int k = 0; k < names.n; k++) {
        f[k].name = (char *)names.items[k];
        f[k].type = cs_col_type_ref(types.items[k]);
        f[k].nullable = nulls.items[k] != NULL;
    }
    return cs_sql_arena_keep_type(p->a, cs_col_type_struct(f, names.n));
}

static void ident_list(cs_sqlp *p, int *n, const char ***out)
{
    cs_sqlp_expect_op(p, "(");
    cs_sqlp_list l = {0};
    do {
        cs_sqlp_list_add(p, &l, (void *)cs_sqlp_ident(p));
        if (cs_sqlp_accept_kw(p, "COMMENT")) cs_sqlp_string(p);
    } while (cs_sqlp_accept_op(p, ","));
    cs_sqlp_expect_op(p, ")");
    *n = l.n;
    *out = (const char **)l.items;
}

/* CLUSTERED BY (b, ...) [SORTED BY (s [ASC], ...)] INTO n BUCKETS (Spark's bucketSpec; the
 * number is checked when the statement runs, as BucketSpec's constructor). */
static void bucket_spec(cs_sqlp *p, cs_sql_statement *s)
{
    cs_sqlp_next(p); /* CLUSTERED */
    cs_sqlp_next(p); /* BY */
    s->bucketed = true;
    ident_list(p, &s->n_bucket_by, &s->bucket_by);
    if (cs_sqlp_is_kw(p, 0, "SORTED") && cs_sqlp_is_kw(p, 1, "BY")) {
        cs_sqlp_next(p);
        cs_sqlp_next(p);
        cs_sqlp_expect_op(p, "(");
        cs_sqlp_list l = {0};
        do {
            cs_sqlp_list_add(p, &l, (void *)cs_sqlp_ident(p));
            if (cs_sqlp_is_kw(p, 0, "DESC")) {
                const cs_sql_token *d = cs_sqlp_peek(p, 0);
                cs_sqlp_fail(p, d->line, d->pos, "_LEGACY_ERROR_TEMP_0035", "",
                             "Operation not allowed: Column ordering must be ASC, was 'DESC'.");
            }
            cs_sqlp_accept_kw(p, "ASC");
        } while (cs_sqlp_accept_op(p, ","));
        cs_sqlp_expect_op(p, ")");
        s->n_sort_by = l.n;
        s->sort_by = (const char **)l.items;
    }
    cs_sqlp_expect_kw(p, "INTO");
    cs_sql_token *t = cs_sqlp_peek(p, 0);
    if (t->kind != CS_TOK_NUMBER) cs_sqlp_syntax_error(p, t);
    cs_sqlp_next(p);
    long n = strtol(t->text, NULL, 10);
    s->num_buckets = n > 1000000000L ? 1000000000 : (int)n;
    cs_sqlp_expect_kw(p, "BUCKETS");
}

static cs_sql_statement *create(cs_sqlp *p)
{
    cs_sql_token *t = cs_sqlp_next(p); /* CREATE */
    bool or_replace = false, global = false, temporary = false;
    if (cs_sqlp_is_kw(p, 0, "OR") && cs_sqlp_is_kw(p, 1, "REPLACE")) {
        cs_sqlp_next(p);
        cs_sqlp_next(p);
        or_replace = true;
    }
    global = cs_sqlp_accept_kw(p, "GLOBAL");
    temporary = cs_sqlp_accept_kw(p, "TEMPORARY") || cs_sqlp_accept_kw(p, "TEMP");
    cs_sqlp_accept_kw(p, "EXTERNAL");
    cs_sql_statement *s;
    if (!temporary && (cs_sqlp_accept_kw(p, "DATABASE") || cs_sqlp_accept_kw(p, "SCHEMA") ||
                       cs_sqlp_accept_kw(p, "NAMESPACE"))) {
        s = stmt_new(p, CS_STMT_CREATE_DATABASE);
        s->if_not_exists = accept_if_not_exists(p);
        name_of(p, s);
        for (;;) {
            if (cs_sqlp_accept_kw(p, "COMMENT")) {
                s->comment = cs_sqlp_string(p);
            } else if (cs_sqlp_accept_kw(p, "LOCATION")) {
                s->location = cs_sqlp_string(p);
            } else if (cs_sqlp_accept_kw(p, "WITH")) {
                if (!cs_sqlp_accept_kw(p, "DBPROPERTIES")) cs_sqlp_expect_kw(p, "PROPERTIES");
                options(p, s);
            } else {
                break;
            }
        }
    } else if (cs_sqlp_accept_kw(p, "FUNCTION")) {
        s = stmt_new(p, CS_STMT_CREATE_FUNCTION);
        s->if_not_exists = accept_if_not_exists(p);
        name_of(p, s);
        cs_sqlp_expect_kw(p, "AS");
        s->class_name = cs_sqlp_string(p);
        if (cs_sqlp_accept_kw(p, "USING")) do { /* the resources: not loaded, as the class */
                if (!cs_sqlp_accept_kw(p, "JAR") && !cs_sqlp_accept_kw(p, "FILE"))
                    cs_sqlp_expect_kw(p, "ARCHIVE");
                cs_sqlp_string(p);
            } while (cs_sqlp_accept_op(p, ","));
    } else if (cs_sqlp_accept_kw(p, "VIEW")) {
        s = stmt_new(p, CS_STMT_CREATE_VIEW);
        s->if_not_exists = accept_if_not_exists(p);
        name_of(p, s);
        /* v (a, b COMMENT 'c') AS query names columns; v (a INT, ...) USING fmt declares them */
        if (cs_sqlp_is_op(p, 0, "(") && !cs_sqlp_is_op(p, 2, ",") && !cs_sqlp_is_op(p, 2, ")") &&
            !cs_sqlp_is_kw(p, 2, "COMMENT"))
            s->schema = column_defs(p);
        else if (cs_sqlp_is_op(p, 0, "("))
            ident_list(p, &s->n_columns, &s->column_names);
        for (;;) {
            if (cs_sqlp_accept_kw(p, "USING")) {
                s->format = cs_sqlp_ident(p);
            } else if (cs_sqlp_accept_kw(p, "OPTIONS")) {
                options(p, s);
            } else if (cs_sqlp_accept_kw(p, "COMMENT")) {
                s->comment = cs_sqlp_string(p);
            } else if (cs_sqlp_accept_kw(p, "TBLPROPERTIES")) {
                options(p, s);
            } else {
                break;
            }
        }
        if (!s->format || cs_sqlp_is_kw(p, 0, "AS")) {
            cs_sqlp_expect_kw(p, "AS");
            s->plan = cs_sqlp_query(p);
        }
    } else if (cs_sqlp_accept_kw(p, "TABLE")) {
        s = stmt_new(p, CS_STMT_CREATE_TABLE);
        s->if_not_exists = accept_if_not_exists(p);
        name_of(p, s);
        if (cs_sqlp_is_op(p, 0, "(") && !cs_sqlp_starts_query(p, 1)) s->schema = column_defs(p);
        for (;;) {
            if (cs_sqlp_accept_kw(p, "USING") || cs_sqlp_accept_kw(p, "STORED")) {
                cs_sqlp_accept_kw(p, "AS");
                s->format = cs_sqlp_ident(p);
            } else if (cs_sqlp_accept_kw(p, "OPTIONS") || cs_sqlp_accept_kw(p, "TBLPROPERTIES")) {
                options(p, s);
            } else if (cs_sqlp_is_kw(p, 0, "PARTITIONED") && cs_sqlp_is_kw(p, 1, "BY")) {
                cs_sqlp_next(p);
                cs_sqlp_next(p);
                cs_sqlp_expect_op(p, "(");
                cs_sqlp_list l = {0};
                do {
                    cs_sqlp_list_add(p, &l, (void *)cs_sqlp_ident(p));
                    if (!cs_sqlp_is_op(p, 0, ",") && !cs_sqlp_is_op(p, 0, ")"))
                        cs_sqlp_data_type(p); /* PARTITIONED BY (a int) */
                } while (cs_sqlp_accept_op(p, ","));
                cs_sqlp_expect_op(p, ")");
                s->n_partition_by = l.n;
                s->partition_by = (const char **)l.items;
            } else if (cs_sqlp_is_kw(p, 0, "CLUSTERED") && cs_sqlp_is_kw(p, 1, "BY")) {
                bucket_spec(p, s);
            } else if (cs_sqlp_accept_kw(p, "LOCATION")) {
                s->location = cs_sqlp_string(p);
            } else if (cs_sqlp_accept_kw(p, "COMMENT")) {
                s->comment = cs_sqlp_string(p);
            } else {
                break;
            }
        }
        if (cs_sqlp_accept_kw(p, "AS") || cs_sqlp_starts_query(p, 0)) s->plan = cs_sqlp_query(p);
    } else {
        cs_sqlp_syntax_error(p, cs_sqlp_peek(p, 0));
    }
    (void)t;
    s->or_replace = or_replace;
    s->global = global;
    s->temporary = temporary;
    return s;
}

static cs_sql_statement *insert(cs_sqlp *p)
{
    cs_sqlp_next(p); /* INSERT */
    cs_sql_statement *s = stmt_new(p, CS_STMT_INSERT);
    if (cs_sqlp_accept_kw(p, "OVERWRITE")) {
        s->overwrite = true;
        if (cs_sqlp_accept_kw(p, "LOCAL") || cs_sqlp_is_kw(p, 0, "DIRECTORY")) {
            cs_sqlp_expect_kw(p, "DIRECTORY");
            s->mode = "DIRECTORY";
            if (cs_sqlp_peek(p, 0)->kind == CS_TOK_STRING) s->location = cs_sqlp_string(p);
            cs_sqlp_expect_kw(p, "USING");
            s->format = cs_sqlp_ident(p);
            if (cs_sqlp_accept_kw(p, "OPTIONS")) options(p, s);
            s->plan = cs_sqlp_query(p);
            return s;
        }
    } else {
        cs_sqlp_expect_kw(p, "INTO");
    }
    cs_sqlp_accept_kw(p, "TABLE");
    name_of(p, s);
    if (cs_sqlp_accept_kw(p, "PARTITION")) {
        cs_sqlp_expect_op(p, "(");
        cs_sqlp_list keys = {0}, vals = {0};
        do {
            cs_sqlp_list_add(p, &keys, (void *)cs_sqlp_ident(p));
            const char *v = NULL;
            if (cs_sqlp_accept_op(p, "=")) {
                cs_sql_token *vt = cs_sqlp_peek(p, 0);
                v = vt->kind == CS_TOK_STRING ? cs_sqlp_string(p) : option_token(p, false);
            }
            cs_sqlp_list_add(p, &vals, (void *)v);
        } while (cs_sqlp_accept_op(p, ","));
        cs_sqlp_expect_op(p, ")");
        s->n_partition_by = keys.n;
        s->partition_by = (const char **)keys.items;
        s->partition_values = (const char **)vals.items;
    }
    if (cs_sqlp_is_op(p, 0, "(") && !cs_sqlp_starts_query(p, 1))
        ident_list(p, &s->n_columns, &s->column_names);
    s->plan = cs_sqlp_query(p);
    return s;
}

/* the raw text from token k to the end of the statement, trimmed */
static const char *raw_rest(cs_sqlp *p)
{
    cs_sql_token *first = cs_sqlp_peek(p, 0);
    size_t start = first->start, end = start;
    while (!at_statement_end(p))
        end = cs_sqlp_next(p)->end;
    return cs_sql_strndup(p->a, p->sql + start, end - start);
}

static const char *trim_dup(cs_sqlp *p, const char *s, size_t n)
{
    while (n && isspace((unsigned char)*s))
        s++, n--;
    while (n && isspace((unsigned char)s[n - 1]))
        n--;
    return cs_sql_strndup(p->a, s, n);
}

static cs_sql_statement *set_reset(cs_sqlp *p)
{
    bool reset = cs_sqlp_is_kw(p, 0, "RESET");
    cs_sqlp_next(p);
    cs_sql_statement *s = stmt_new(p, CS_STMT_SET);
    s->mode = reset ? "RESET" : "SET";
    const char *rest = raw_rest(p);
    const char *eq = reset ? NULL : strchr(rest, '=');
    if (eq) {
        s->key = trim_dup(p, rest, (size_t)(eq - rest));
        s->value = trim_dup(p, eq + 1, strlen(eq + 1));
    } else if (*rest) {
        s->key = trim_dup(p, rest, strlen(rest));
    }
    return s;
}

static cs_sql_statement *show(cs_sqlp *p)
{
    cs_sqlp_next(p); /* SHOW */
    cs_sql_statement *s = stmt_new(p, CS_STMT_SHOW);
    cs_sql_token *t = cs_sqlp_peek(p, 0);
    if (cs_sqlp_accept_kw(p, "TABLES") || cs_sqlp_accept_kw(p, "VIEWS")) {
        s->mode = upper_dup(p, t->text);
        if (cs_sqlp_accept_kw(p, "FROM") || cs_sqlp_accept_kw(p, "IN")) name_of(p, s);
        cs_sqlp_accept_kw(p, "LIKE");
        if (cs_sqlp_peek(p, 0)->kind == CS_TOK_STRING) s->value = cs_sqlp_string(p);
    } else if (cs_sqlp_accept_kw(p, "DATABASES") || cs_sqlp_accept_kw(p, "SCHEMAS") ||
               cs_sqlp_accept_kw(p, "NAMESPACES")) {
        s->mode = "DATABASES";
        cs_sqlp_accept_kw(p, "LIKE");
        if (cs_sqlp_peek(p, 0)->kind == CS_TOK_STRING) s->value = cs_sqlp_string(p);
    } else if (cs_sqlp_accept_kw(p, "FUNCTIONS") ||
               (cs_sqlp_is_kw(p, 1, "FUNCTIONS") &&
                (cs_sqlp_accept_kw(p, "USER") || cs_sqlp_accept_kw(p, "SYSTEM") ||
                 cs_sqlp_accept_kw(p, "ALL")))) {
        s->function_scope = cs_sqlp_is_kw(p, 0, "FUNCTIONS") ? upper_dup(p, t->text) : "ALL";
        cs_sqlp_accept_kw(p, "FUNCTIONS");
        s->mode = "FUNCTIONS";
        if (cs_sqlp_accept_kw(p, "FROM") || cs_sqlp_accept_kw(p, "IN")) name_of(p, s);
        cs_sqlp_accept_kw(p, "LIKE");
        if (cs_sqlp_peek(p, 0)->kind == CS_TOK_STRING) s->value = cs_sqlp_string(p);
    } else if (cs_sqlp_accept_kw(p, "COLUMNS")) {
        s->mode = "COLUMNS";
        if (!cs_sqlp_accept_kw(p, "FROM")) cs_sqlp_expect_kw(p, "IN");
        name_of(p, s);
        if (cs_sqlp_accept_kw(p, "FROM") || cs_sqlp_accept_kw(p, "IN")) {
            int n;
            const char **db = cs_sqlp_multipart(p, &n);
            const char **parts = cs_sql_alloc(p->a, sizeof *parts * (size_t)(n + s->n_parts));
            memcpy(parts, db, sizeof *parts * (size_t)n);
            memcpy(parts + n, s->parts, sizeof *parts * (size_t)s->n_parts);
            s->parts = parts;
            s->n_parts += n;
        }
    } else if (cs_sqlp_is_kw(p, 0, "CREATE") && cs_sqlp_is_kw(p, 1, "TABLE")) {
        cs_sqlp_next(p);
        cs_sqlp_next(p);
        s->mode = "CREATE_TABLE";
        name_of(p, s);
    } else if (cs_sqlp_accept_kw(p, "TBLPROPERTIES")) {
        s->mode = "TBLPROPERTIES";
        name_of(p, s);
    } else {
        cs_sqlp_syntax_error(p, t);
    }
    return s;
}

static cs_sql_statement *describe(cs_sqlp *p)
{
    cs_sqlp_next(p); /* DESCRIBE | DESC */
    cs_sql_statement *s = stmt_new(p, CS_STMT_SHOW);
    /* DESCRIBE TABLE t is the table's, not the query TABLE t's (Spark's describeRelation) */
    if (cs_sqlp_accept_kw(p, "QUERY") ||
        (cs_sqlp_starts_query(p, 0) && !cs_sqlp_is_kw(p, 0, "TABLE"))) {
        s->mode = "DESCRIBE QUERY";
        s->plan = cs_sqlp_query(p);
        return s;
    }
    const char *what = "DESCRIBE";
    if (cs_sqlp_is_kw(p, 0, "FUNCTION") || cs_sqlp_is_kw(p, 0, "DATABASE") ||
        cs_sqlp_is_kw(p, 0, "SCHEMA") || cs_sqlp_is_kw(p, 0, "NAMESPACE")) {
        what = cs_sqlp_is_kw(p, 0, "FUNCTION") ? "DESCRIBE_FUNCTION" : "DESCRIBE_DATABASE";
        cs_sqlp_next(p);
    } else {
        cs_sqlp_accept_kw(p, "TABLE");
    }
    bool extended = false;
    if ((cs_sqlp_is_kw(p, 0, "EXTENDED") || cs_sqlp_is_kw(p, 0, "FORMATTED")) &&
        cs_sqlp_is_ident(p, 1)) {
        cs_sqlp_next(p);
        extended = true;
    }
    name_of(p, s);
    s->extended = extended;
    s->mode = extended && strcmp(what, "DESCRIBE") == 0 ? "DESCRIBE EXTENDED" : what;
    return s;
}

static cs_sql_statement *cache(cs_sqlp *p)
{
    cs_sql_statement *s = stmt_new(p, CS_STMT_CACHE);
    if (cs_sqlp_accept_kw(p, "CACHE")) {
        bool lazy = cs_sqlp_accept_kw(p, "LAZY");
        cs_sqlp_expect_kw(p, "TABLE");
        s->mode = lazy ? "CACHE LAZY" : "CACHE";
        name_of(p, s);
        if (cs_sqlp_accept_kw(p, "OPTIONS")) options(p, s);
        if (cs_sqlp_accept_kw(p, "AS") || cs_sqlp_starts_query(p, 0)) s->plan = cs_sqlp_query(p);
    } else if (cs_sqlp_accept_kw(p, "UNCACHE")) {
        cs_sqlp_expect_kw(p, "TABLE");
        s->mode = "UNCACHE";
        s->if_exists = accept_if_exists(p);
        name_of(p, s);
    } else if (cs_sqlp_accept_kw(p, "CLEAR")) {
        cs_sqlp_expect_kw(p, "CACHE");
        s->mode = "CLEAR";
    } else {
        cs_sqlp_next(p); /* REFRESH */
        cs_sqlp_accept_kw(p, "TABLE");
        s->mode = "REFRESH";
        name_of(p, s);
    }
    return s;
}

static cs_sql_statement *statement(cs_sqlp *p)
{
    cs_sql_token *t = cs_sqlp_peek(p, 0);
    if (cs_sqlp_starts_query(p, 0)) return query_statement(p);
    if (cs_sql_tok_is_kw(t, "EXPLAIN")) {
        cs_sqlp_next(p);
        cs_sql_statement *s = stmt_new(p, CS_STMT_EXPLAIN);
        s->mode = "SIMPLE";
        static const char *const modes[] = {"EXTENDED", "FORMATTED", "CODEGEN", "COST", "LOGICAL"};
        for (size_t k = 0; k < sizeof modes / sizeof modes[0]; k++)
            if (cs_sqlp_accept_kw(p, modes[k])) {
                s->mode = modes[k];
                break;
            }
        cs_sqlp_enter(p);
        s->inner = statement(p);
        cs_sqlp_leave(p);
        s->plan = s->inner->plan;
        return s;
    }
    if (cs_sql_tok_is_kw(t, "CREATE")) return create(p);
    if (cs_sql_tok_is_kw(t, "DROP")) {
        cs_sqlp_next(p);
        cs_sql_statement *s = stmt_new(p, CS_STMT_DROP);
        cs_sql_token *w = cs_sqlp_peek(p, 0);
        if (cs_sqlp_accept_kw(p, "TEMPORARY")) s->temporary = true;
        w = cs_sqlp_peek(p, 0);
        if (!s->temporary && (cs_sqlp_accept_kw(p, "DATABASE") || cs_sqlp_accept_kw(p, "SCHEMA") ||
                              cs_sqlp_accept_kw(p, "NAMESPACE"))) {
            s->mode = "DATABASE";
            s->if_exists = accept_if_exists(p);
            name_of(p, s);
            if (!cs_sqlp_accept_kw(p, "RESTRICT")) s->cascade = cs_sqlp_accept_kw(p, "CASCADE");
            return s;
        }
        if (!cs_sqlp_accept_kw(p, "TABLE") && !cs_sqlp_accept_kw(p, "VIEW") &&
            !cs_sqlp_accept_kw(p, "FUNCTION"))
            cs_sqlp_syntax_error(p, w);
        s->mode = upper_dup(p, w->text);
        s->if_exists = accept_if_exists(p);
        name_of(p, s);
        cs_sqlp_accept_kw(p, "PURGE");
        return s;
    }
    if (cs_sql_tok_is_kw(t, "INSERT")) return insert(p);
    if (cs_sql_tok_is_kw(t, "SET") || cs_sql_tok_is_kw(t, "RESET")) return set_reset(p);
    if (cs_sql_tok_is_kw(t, "SHOW")) return show(p);
    if (cs_sql_tok_is_kw(t, "DESCRIBE") || cs_sql_tok_is_kw(t, "DESC")) return describe(p);
    if (cs_sql_tok_is_kw(t, "CACHE") || cs_sql_tok_is_kw(t, "UNCACHE") ||
        (cs_sql_tok_is_kw(t, "CLEAR") && cs_sqlp_is_kw(p, 1, "CACHE")) ||
        cs_sql_tok_is_kw(t, "REFRESH"))
        return cache(p);
    if (cs_sql_tok_is_kw(t, "USE")) {
        cs_sqlp_next(p);
        cs_sql_statement *s = stmt_new(p, CS_STMT_USE);
        if ((cs_sqlp_is_kw(p, 0, "DATABASE") || cs_sqlp_is_kw(p, 0, "NAMESPACE") ||
             cs_sqlp_is_kw(p, 0, "SCHEMA")) &&
            cs_sqlp_is_ident(p, 1))
            cs_sqlp_next(p);
        name_of(p, s);
        return s;
    }
    cs_sqlp_syntax_error(p, t);
}

/* The error at a token left over after a statement. ANTLR reports it as extra input when it
 * is the last token of the statement or follows a `;` (its loop-back recovery), as Spark's
 * texts show (`FROM t t2 t3`, `SELECT 1; SELECT 2` as one statement); else plainly. */
_Noreturn static void leftover(cs_sqlp *p, const cs_sql_token *t)
{
    const cs_sql_token *after = t + 1;
    bool after_semicolon = t > p->toks && cs_sql_tok_is_op(t - 1, ";");
    if (t->kind == CS_TOK_EOF) cs_sqlp_syntax_error(p, t);
    if (after->kind != CS_TOK_EOF && !cs_sql_tok_is_op(after, ";") && !after_semicolon)
        cs_sqlp_syntax_error(p, t);
    int len = (int)(t->end - t->start > 200 ? 200 : t->end - t->start);
    cs_sqlp_fail(p, t->line, t->pos, "PARSE_SYNTAX_ERROR", "42601",
                 "Syntax error at or near '%.*s': extra input '%.*s'.", len, p->sql + t->start, len,
                 p->sql + t->start);
}

/* After a statement: the end or `;`. */
static void expect_statement_end(cs_sqlp *p)
{
    if (!at_statement_end(p)) leftover(p, cs_sqlp_peek(p, 0));
}

static int start(cs_sqlp *p, cs_sql_arena *a, const char *sql, cs_sql_origin *where, cs_error *err)
{
    memset(p, 0, sizeof *p);
    p->a = a;
    p->sql = sql;
    p->err = err;
    int line = 1, pos = 0;
    int rc = cs_sql_lex(a, sql, &p->toks, &p->n_toks, &line, &pos, err);
    if (rc && where) {
        where->line = line;
        where->pos = pos;
    }
    return rc;
}

static int failed(cs_sqlp *p, cs_sql_origin *where)
{
    if (where) {
        where->line = p->err_line;
        where->pos = p->err_pos;
    }
    return CS_EINVAL;
}

int cs_sql_parse_at(cs_sql_arena *a, const char *sql, cs_sql_statement ***out, int *n,
                    cs_sql_origin *where, cs_error *err)
{
    cs_sqlp p;
    *out = NULL;
    *n = 0;
    int rc = start(&p, a, sql, where, err);
    if (rc) return rc;
    cs_sqlp_list l = {0};
    if (setjmp(p.fail)) return failed(&p, where);
    while (cs_sqlp_peek(&p, 0)->kind != CS_TOK_EOF) {
        if (cs_sqlp_accept_op(&p, ";")) continue;
        cs_sqlp_list_add(&p, &l, statement(&p));
        expect_statement_end(&p);
    }
    *out = (cs_sql_statement **)l.items;
    *n = l.n;
    return CS_OK;
}

int cs_sql_parse(cs_sql_arena *a, const char *sql, cs_sql_statement ***out, int *n, cs_error *err)
{
    return cs_sql_parse_at(a, sql, out, n, NULL, err);
}

int cs_sql_parse_statement(cs_sql_arena *a, const char *sql, cs_sql_statement **out,
                           cs_sql_origin *where, cs_error *err)
{
    return cs_sql_parse_statement_params(a, sql, NULL, out, where, err);
}

int cs_sql_parse_statement_params(cs_sql_arena *a, const char *sql, const cs_sql_params *params,
                                  cs_sql_statement **out, cs_sql_origin *where, cs_error *err)
{
    cs_sqlp p;
    *out = NULL;
    int rc = start(&p, a, sql, where, err);
    if (rc) return rc;
    p.params = params;
    if (setjmp(p.fail)) return failed(&p, where);
    cs_sql_statement *s = statement(&p);
    expect_statement_end(&p);
    if (cs_sqlp_accept_op(&p, ";") && cs_sqlp_peek(&p, 0)->kind != CS_TOK_EOF)
        leftover(&p, cs_sqlp_peek(&p, 0));
    *out = s;
    return CS_OK;
}

int cs_sql_parse_expression(cs_sql_arena *a, const char *sql, cs_sql_expr **out,
                            cs_sql_origin *where, cs_error *err)
{
    cs_sqlp p;
    *out = NULL;
    int rc = start(&p, a, sql, where, err);
    if (rc) return rc;
    if (setjmp(p.fail)) return failed(&p, where);
    cs_sql_expr *e = cs_sqlp_named_expr(&p); /* Spark's singleExpression: a namedExpression */
    if (cs_sqlp_peek(&p, 0)->kind != CS_TOK_EOF) cs_sqlp_syntax_error(&p, cs_sqlp_peek(&p, 0));
    *out = e;
    return CS_OK;
}

int cs_sql_parse_data_type(cs_sql_arena *a, const char *text, cs_col_type **out, cs_error *err)
{
    cs_sqlp p;
    *out = NULL;
    int rc = start(&p, a, text, NULL, err);
    if (rc) return rc;
    if (setjmp(p.fail)) return CS_EINVAL;
    cs_col_type *t = cs_sqlp_data_type(&p);
    if (cs_sqlp_peek(&p, 0)->kind != CS_TOK_EOF) cs_sqlp_syntax_error(&p, cs_sqlp_peek(&p, 0));
    *out = t;
    return CS_OK;
}

/* text as a list of fields (a struct); mode 1: only the syntax error at its second token */
static int parse_fields(cs_sql_arena *a, const char *text, int mode, cs_col_type **out,
                        cs_error *err)
{
    cs_sqlp p;
    int rc = start(&p, a, text, NULL, err);
    if (rc) return rc;
    if (setjmp(p.fail)) return CS_EINVAL;
    if (mode == 1) cs_sqlp_syntax_error(&p, cs_sqlp_peek(&p, 1));
    cs_col_type *t = column_list(&p);
    if (cs_sqlp_peek(&p, 0)->kind != CS_TOK_EOF) cs_sqlp_syntax_error(&p, cs_sqlp_peek(&p, 0));
    *out = t;
    return CS_OK;
}

int cs_sql_parse_schema(cs_sql_arena *a, const char *text, cs_col_type **out, cs_error *err)
{
    int rc = cs_sql_parse_data_type(a, text, out, err);
    if (rc == CS_OK) return rc;
    cs_error first = *err;
    if (parse_fields(a, text, 0, out, err) == CS_OK) return CS_OK;
    *err = first;
    /* "a INTT": Spark's type grammar takes the first word as a type, then fails on the extra
     * input before it could find the type unknown */
    cs_sqlp p;
    if (strcmp(first.error_class, "UNSUPPORTED_DATATYPE") == 0 &&
        start(&p, a, text, NULL, err) == 0 && cs_sqlp_peek(&p, 1)->kind != CS_TOK_EOF &&
        !cs_sqlp_is_op(&p, 1, "<") && !cs_sqlp_is_op(&p, 1, "("))
        return parse_fields(a, text, 1, out, err);
    *err = first;
    return rc;
}
