/*
 * connect_show.c — DataFrame.show() over Spark Connect: the ShowString relation, which Spark's
 * server answers itself (SparkConnectPlanner.transformShowString, then Dataset.showString) with
 * one row of one non-nullable string column, `show_string`, holding the table's text.
 *
 * The rows come from a query the session runs: the input limited to num_rows + 1 rows (one more
 * tells whether to print "only showing top N rows"), its columns renamed by position (so that
 * duplicate names, as a join's, stay apart) and cast to string, as Spark's getRows casts each
 * column with ToPrettyString; a binary column is kept and printed here as Spark prints it,
 * "[0A 0B]", and a null as NULL. The text is then laid out as Dataset.showString does: meta
 * characters (newline, tab, ...) escaped, cells longer than `truncate` cut (with "..." from four
 * characters on), widths counted in half-width units (East Asian full-width characters count
 * two), cells right-aligned when truncating and left-aligned otherwise, or one "-RECORD i" block
 * per row when vertical, and the footer (Spark 4 ends it without a newline).
 *
 * Called by connect_execute.c on the operation's thread. Ownership: the plan's nodes and names
 * are made in the caller's arena; the result is the caller's (cs_sql_result_free).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "columnar/col_builder.h"
#include "columnar/column.h"
#include "common/strutil.h"
#include "connect/connect_internal.h"
#include "connect/connect_show.h"
#include "spark/connect/relations.pb-c.h"
#include "sql/logical_plan.h"
#include "sql/sql_arena.h"
#include "sqlexec/sql_error.h"

#define MIN_COL_WIDTH 3

int cs_connect_show_plan(cs_sql_session *sql, cs_sql_arena *a,
                         const Spark__Connect__ShowString *show, cs_connect_show *out,
                         cs_error *err)
{
    memset(out, 0, sizeof *out);
    if (!show->input)
        return cs_sql_error_set(err, CS_EINVAL, "INTERNAL_ERROR", "XX000",
                                "ShowString needs a plan input");
    cs_logical_plan *p, *resolved;
    int rc = cs_connect_relation_plan(sql, a, show->input, &p, err);
    if (rc == 0) rc = cs_sql_session_analyze(sql, a, p, &resolved, err);
    if (rc != 0) return rc;
    int n = resolved->n_output;
    out->n_cols = n;
    out->names = cs_sql_alloc(a, (size_t)(n ? n : 1) * sizeof *out->names);
    out->binary = cs_sql_alloc(a, (size_t)(n ? n : 1) * sizeof *out->binary);
    out->num_rows = show->num_rows < 0 ? 0 : show->num_rows;
    out->truncate = show->truncate;
    out->vertical = show->vertical;

    /* Project[CAST(c<i> AS STRING)] <- ToDF[c0..] <- Limit[num_rows + 1] <- input */
    Spark__Connect__Relation limit_rel = SPARK__CONNECT__RELATION__INIT;
    Spark__Connect__Limit limit = SPARK__CONNECT__LIMIT__INIT;
    limit.input = show->input;
    limit.limit = out->num_rows == INT32_MAX ? INT32_MAX : out->num_rows + 1;
    limit_rel.rel_type_case = SPARK__CONNECT__RELATION__REL_TYPE_LIMIT;
    limit_rel.limit = &limit;

    Spark__Connect__Relation todf_rel = SPARK__CONNECT__RELATION__INIT;
    Spark__Connect__ToDF todf = SPARK__CONNECT__TO_DF__INIT;
    todf.input = &limit_rel;
    todf.n_column_names = (size_t)n;
    todf.column_names = cs_sql_alloc(a, (size_t)(n ? n : 1) * sizeof *todf.column_names);
    todf_rel.rel_type_case = SPARK__CONNECT__RELATION__REL_TYPE_TO_DF;
    todf_rel.to_df = &todf;

    Spark__Connect__Relation proj_rel = SPARK__CONNECT__RELATION__INIT;
    Spark__Connect__Project proj = SPARK__CONNECT__PROJECT__INIT;
    proj.input = &todf_rel;
    proj.n_expressions = (size_t)n;
    proj.expressions = cs_sql_alloc(a, (size_t)(n ? n : 1) * sizeof *proj.expressions);
    proj_rel.rel_type_case = SPARK__CONNECT__RELATION__REL_TYPE_PROJECT;
    proj_rel.project = &proj;
    for (int i = 0; i < n; i++) {
        const cs_sql_expr *attr = resolved->output[i];
        out->names[i] = cs_sql_strdup(a, attr->name ? attr->name : "");
        out->binary[i] = attr->type && attr->type->id == CS_TYPE_BINARY;
        char name[24];
        snprintf(name, sizeof name, "c%d", i);
        todf.column_names[i] = cs_sql_strdup(a, name);

        Spark__Connect__Expression *col = cs_sql_alloc(a, sizeof *col);
        Spark__Connect__Expression__UnresolvedAttribute *ua = cs_sql_alloc(a, sizeof *ua);
        *col = (Spark__Connect__Expression)SPARK__CONNECT__EXPRESSION__INIT;
        *ua = (Spark__Connect__Expression__UnresolvedAttribute)
            SPARK__CONNECT__EXPRESSION__UNRESOLVED_ATTRIBUTE__INIT;
        ua->unparsed_identifier = todf.column_names[i];
        col->expr_type_case = SPARK__CONNECT__EXPRESSION__EXPR_TYPE_UNRESOLVED_ATTRIBUTE;
        col->unresolved_attribute = ua;
        if (out->binary[i]) {
            proj.expressions[i] = col;
            continue;
        }
        Spark__Connect__Expression *e = cs_sql_alloc(a, sizeof *e);
        Spark__Connect__Expression__Cast *cast = cs_sql_alloc(a, sizeof *cast);
        *e = (Spark__Connect__Expression)SPARK__CONNECT__EXPRESSION__INIT;
        *cast = (Spark__Connect__Expression__Cast)SPARK__CONNECT__EXPRESSION__CAST__INIT;
        cast->expr = col;
        cast->cast_to_type_case = SPARK__CONNECT__EXPRESSION__CAST__CAST_TO_TYPE_TYPE_STR;
        cast->type_str = "string";
        e->expr_type_case = SPARK__CONNECT__EXPRESSION__EXPR_TYPE_CAST;
        e->cast = cast;
        proj.expressions[i] = e;
    }
    return cs_connect_relation_plan(sql, a, &proj_rel, &out->plan, err);
}

/* ---- the text ---------------------------------------------------------------------------- */

/* One cell as Spark has it before layout: escaped, then cut. Widths in Java's terms: `units`
 * is String.length (UTF-16 units), `width` Utils.stringHalfWidth. */
typedef struct cell {
    char *text;
    size_t len;
    int units, width;
} cell;

/* The next code point of s[*i..n) (a malformed byte counts as one). */
static uint32_t next_cp(const char *s, size_t n, size_t *i)
{
    const unsigned char *u = (const unsigned char *)s;
    uint32_t c = u[*i];
    int more = c >= 0xF0 ? 3 : c >= 0xE0 ? 2 : c >= 0xC0 ? 1 : 0;
    if (more) c &= 0x3F >> more;
    (*i)++;
    while (more-- > 0 && *i < n && (u[*i] & 0xC0) == 0x80)
        c = (c << 6) | (u[(*i)++] & 0x3F);
    return c;
}

static bool full_width(uint32_t c)
{
    return (c >= 0x1100 && c <= 0x115F) || (c >= 0x2E80 && c <= 0xA4CF) ||
           (c >= 0xAC00 && c <= 0xD7A3) || (c >= 0xF900 && c <= 0xFAFF) ||
           (c >= 0xFE10 && c <= 0xFE19) || (c >= 0xFE30 && c <= 0xFE6F) ||
           (c >= 0xFF00 && c <= 0xFF60) || (c >= 0xFFE0 && c <= 0xFFE6);
}

static void measure(cell *c)
{
    c->units = c->width = 0;
    for (size_t i = 0; i < c->len;) {
        uint32_t cp = next_cp(c->text, c->len, &i);
        int u = cp > 0xFFFF ? 2 : 1;
        c->units += u;
        c->width += u + (full_width(cp) ? 1 : 0);
    }
}

/* The byte length of s's first `units` UTF-16 units (a pair cut in two is left out). */
static size_t prefix_bytes(const char *s, size_t n, int units)
{
    size_t i = 0;
    while (i < n) {
        size_t j = i;
        uint32_t cp = next_cp(s, n, &j);
        int u = cp > 0xFFFF ? 2 : 1;
        if (u > units) break;
        units -= u;
        i = j;
    }
    return i;
}

/* SchemaUtils.escapeMetaCharacters, then the cut of Dataset.getRows. */
static void make_cell(cell *c, const char *s, size_t n, int truncate)
{
    cs_sbuf b = CS_SBUF_INIT;
    for (size_t i = 0; i < n; i++) {
        const char *esc = NULL;
        switch (s[i]) {
        case '\n':
            esc = "\\n";
            break;
        case '\r':
            esc = "\\r";
            break;
        case '\t':
            esc = "\\t";
            break;
        case '\f':
            esc = "\\f";
            break;
        case '\b':
            esc = "\\b";
            break;
        case '\v':
            esc = "\\v";
            break;
        case '\a':
            esc = "\\a";
            break;
        default:
            break;
        }
        if (esc)
            cs_sbuf_puts(&b, esc);
        else
            cs_sbuf_putc(&b, s[i]);
    }
    c->text = cs_sbuf_detach(&b, &c->len);
    measure(c);
    if (truncate > 0 && c->units > truncate) {
        size_t keep = prefix_bytes(c->text, c->len, truncate < 4 ? truncate : truncate - 3);
        c->len = keep;
        if (truncate >= 4) {
            c->text = cs_xrealloc(c->text, keep + 4);
            memcpy(c->text + keep, "...", 4);
            c->len += 3;
        }
        c->text[c->len] = 0;
        measure(c);
    }
}

/* The cell of row r of column col (a string column, or a binary one printed as hex). */
static void value_cell(cell *c, const cs_column *col, int64_t r, bool binary, int truncate)
{
    if (!cs_column_is_valid(col, r)) {
        make_cell(c, "NULL", 4, truncate);
        return;
    }
    int32_t len;
    const uint8_t *p = cs_column_bytes(col, r, &len);
    if (!binary) {
        make_cell(c, (const char *)p, (size_t)len, truncate);
        return;
    }
    cs_sbuf b = CS_SBUF_INIT;
    cs_sbuf_putc(&b, '[');
    for (int32_t i = 0; i < len; i++)
        cs_sbuf_printf(&b, i ? " %02X" : "%02X", p[i]);
    cs_sbuf_putc(&b, ']');
    make_cell(c, cs_sbuf_str(&b), b.len, truncate);
    cs_sbuf_free(&b);
}

static void pad(cs_sbuf *b, int n, char ch)
{
    for (int i = 0; i < n; i++)
        cs_sbuf_putc(b, ch);
}

static void horizontal(cs_sbuf *b, cell *cells, int n_rows, int n_cols, int truncate)
{
    int *w = cs_xmalloc((size_t)(n_cols ? n_cols : 1) * sizeof *w);
    for (int j = 0; j < n_cols; j++) {
        w[j] = MIN_COL_WIDTH;
        for (int r = 0; r < n_rows; r++)
            if (cells[r * n_cols + j].width > w[j]) w[j] = cells[r * n_cols + j].width;
    }
    cs_sbuf sep = CS_SBUF_INIT;
    cs_sbuf_putc(&sep, '+');
    for (int j = 0; j < n_cols; j++) {
        pad(&sep, w[j], '-');
        cs_sbuf_putc(&sep, '+');
    }
    cs_sbuf_putc(&sep, '\n');
    for (int r = 0; r < n_rows; r++) {
        if (r == 0) cs_sbuf_append(b, sep.data, sep.len);
        cs_sbuf_putc(b, '|');
        for (int j = 0; j < n_cols; j++) {
            const cell *c = &cells[r * n_cols + j];
            if (truncate > 0) pad(b, w[j] - c->width, ' ');
            cs_sbuf_append(b, c->text, c->len);
            if (truncate <= 0) pad(b, w[j] - c->width, ' ');
            cs_sbuf_putc(b, '|');
        }
        cs_sbuf_putc(b, '\n');
        if (r == 0) cs_sbuf_append(b, sep.data, sep.len);
    }
    cs_sbuf_append(b, sep.data, sep.len);
    cs_sbuf_free(&sep);
    free(w);
}

static void vertical(cs_sbuf *b, cell *cells, int n_rows, int n_cols)
{
    int name_w = MIN_COL_WIDTH, data_w = MIN_COL_WIDTH;
    for (int j = 0; j < n_cols; j++)
        if (cells[j].width > name_w) name_w = cells[j].width;
    for (int r = 1; r < n_rows; r++)
        for (int j = 0; j < n_cols; j++)
            if (cells[r * n_cols + j].width > data_w) data_w = cells[r * n_cols + j].width;
    for (int r = 1; r < n_rows; r++) {
        char head[40];
        int hn = snprintf(head, sizeof head, "-RECORD %d", r - 1);
        cs_sbuf_puts(b, head);
        pad(b, name_w + data_w + 5 - hn, '-');
        cs_sbuf_putc(b, '\n');
        for (int j = 0; j < n_cols; j++) {
            const cell *name = &cells[j], *c = &cells[r * n_cols + j];
            cs_sbuf_putc(b, ' ');
            cs_sbuf_append(b, name->text, name->len);
            pad(b, name_w - name->width, ' ');
            cs_sbuf_puts(b, " | ");
            cs_sbuf_append(b, c->text, c->len);
            pad(b, data_w - c->width, ' ');
            cs_sbuf_puts(b, " \n");
        }
    }
}

int cs_connect_show_result(const cs_connect_show *show, const cs_sql_result *rows,
                           cs_sql_result *out, cs_error *err)
{
    int n_cols = show->n_cols;
    int64_t have = rows->num_rows;
    bool more = have > show->num_rows;
    int n_rows = 1 + (int)(more ? show->num_rows : have); /* the header, then the rows shown */
    cell *cells = cs_xcalloc((size_t)n_rows * (size_t)(n_cols ? n_cols : 1), sizeof *cells);
    for (int j = 0; j < n_cols; j++)
        make_cell(&cells[j], show->names[j], strlen(show->names[j]), 0);
    int r = 1;
    for (int bi = 0; bi < rows->n_batches && r < n_rows; bi++) {
        const cs_col_batch *b = rows->batches[bi];
        for (int64_t i = 0; i < b->num_rows && r < n_rows; i++, r++)
            for (int j = 0; j < n_cols; j++)
                value_cell(&cells[r * n_cols + j], b->columns[j], i, show->binary[j],
                           show->truncate);
    }
    n_rows = r;
    cs_sbuf text = CS_SBUF_INIT;
    if (show->vertical)
        vertical(&text, cells, n_rows, n_cols);
    else
        horizontal(&text, cells, n_rows, n_cols, show->truncate);
    if (show->vertical && n_rows == 1)
        cs_sbuf_puts(&text, "(0 rows)");
    else if (more)
        cs_sbuf_printf(&text, "only showing top %d %s", show->num_rows,
                       show->num_rows == 1 ? "row" : "rows");
    for (int i = 0; i < n_rows * n_cols; i++)
        free(cells[i].text);
    free(cells);

    cs_col_field f = {
        .name = "show_string", .type = cs_col_type_primitive(CS_TYPE_STRING), .nullable = false};
    cs_col_builder *cb = cs_col_builder_new(NULL, f.type);
    cs_col_builder_append_string(cb, text.data ? text.data : "", text.len);
    cs_sbuf_free(&text);
    cs_column *col = cs_col_builder_finish(cb);
    cs_col_builder_free(cb);
    cs_col_type *schema = cs_col_type_struct(&f, 1);
    cs_col_batch *batch = cs_col_batch_new(cs_col_type_ref(schema), &col, 1, 1, err);
    if (!batch) {
        cs_col_type_unref(schema);
        return err->code ? err->code : CS_EINVAL;
    }
    memset(out, 0, sizeof *out);
    out->schema = schema;
    out->batches = cs_xmalloc(sizeof *out->batches);
    out->batches[0] = batch;
    out->n_batches = 1;
    out->num_rows = 1;
    return 0;
}
