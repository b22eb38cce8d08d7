/* ui_dag.c — layered SVG drawing of a job's stage DAG (see ui_dag.h).
 *
 * Columns come from the longest path from a source: column(s) = 1 + max column of its parents
 * (iterated to a fixed point, at most n rounds, so a malformed cycle still terminates). Boxes
 * are BOX_W x BOX_H, edges straight lines from a parent's right side to the child's left side
 * ending in an arrow. Labels are escaped and cut to fit the box.
 */
#include "ui/ui_dag.h"

#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "ui/ui_html.h"

#define BOX_W 180
#define BOX_H 46
#define GAP_X 60
#define GAP_Y 18
#define MARGIN 12
#define LABEL_CHARS 26

static int index_of(const ui_dag_node *nodes, int n, int id)
{
    for (int i = 0; i < n; i++)
        if (nodes[i].id == id) return i;
    return -1;
}

static void label(cs_sbuf *b, const char *s)
{
    if (!s) return;
    size_t len = strlen(s);
    if (len <= LABEL_CHARS) {
        cs_html_escape(b, s);
        return;
    }
    char cut[LABEL_CHARS + 1];
    memcpy(cut, s, LABEL_CHARS - 3);
    /* do not end inside a UTF-8 sequence */
    size_t k = LABEL_CHARS - 3;
    while (k > 0 && ((unsigned char)cut[k - 1] & 0xC0) == 0x80)
        k--;
    if (k > 0 && ((unsigned char)cut[k - 1] & 0xC0) == 0xC0) k--;
    cut[k] = '\0';
    cs_html_escape(b, cut);
    cs_sbuf_puts(b, "...");
}

void cs_ui_dag_svg(cs_sbuf *b, const ui_dag_node *nodes, int n)
{
    if (n <= 0) return;
    int *col = cs_xcalloc((size_t)n, sizeof *col), *row = cs_xcalloc((size_t)n, sizeof *row);
    for (int round = 0; round < n; round++) {
        bool changed = false;
        for (int i = 0; i < n; i++)
            for (int p = 0; p < nodes[i].num_parents; p++) {
                int j = index_of(nodes, n, nodes[i].parents[p]);
                if (j >= 0 && j != i && col[j] + 1 > col[i]) {
                    col[i] = col[j] + 1;
                    changed = true;
                }
            }
        if (!changed) break;
    }
    int cols = 0, rows = 0;
    for (int i = 0; i < n; i++)
        if (col[i] + 1 > cols) cols = col[i] + 1;
    int *count = cs_xcalloc((size_t)cols, sizeof *count);
    /* rows: within a column, stages in id order (selection by the next larger id) */
    int prev_id = -2147483647 - 1;
    for (int placed = 0; placed < n; placed++) {
        int best = -1;
        for (int i = 0; i < n; i++)
            if (row[i] == 0 && nodes[i].id >= prev_id && (best < 0 || nodes[i].id < nodes[best].id))
                best = i;
        if (best < 0) break;
        row[best] = ++count[col[best]]; /* 1-based */
        if (count[col[best]] > rows) rows = count[col[best]];
        prev_id = nodes[best].id;
    }
    for (int i = 0; i < n; i++) /* duplicate ids (malformed input) still get a row */
        if (row[i] == 0) {
            row[i] = ++count[col[i]];
            if (count[col[i]] > rows) rows = count[col[i]];
        }
    free(count);
    int width = 2 * MARGIN + cols * BOX_W + (cols - 1) * GAP_X;
    int height = 2 * MARGIN + rows * BOX_H + (rows - 1) * GAP_Y;
    cs_sbuf_printf(b,
                   "<div class=\"dag\"><svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
                   "height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\" aria-label=\"DAG of %d "
                   "stage%s\"><defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"10\" "
                   "refY=\"5\" markerWidth=\"7\" markerHeight=\"7\" orient=\"auto\"><path d=\"M0 "
                   "0 L10 5 L0 10 z\" fill=\"#666\"/></marker></defs>",
                   width, height, width, height, n, n == 1 ? "" : "s");
    for (int i = 0; i < n; i++)
        for (int p = 0; p < nodes[i].num_parents; p++) {
            int j = index_of(nodes, n, nodes[i].parents[p]);
            if (j < 0 || j == i) continue;
            int x1 = MARGIN + col[j] * (BOX_W + GAP_X) + BOX_W;
            int y1 = MARGIN + (row[j] - 1) * (BOX_H + GAP_Y) + BOX_H / 2;
            int x2 = MARGIN + col[i] * (BOX_W + GAP_X);
            int y2 = MARGIN + (row[i] - 1) * (BOX_H + GAP_Y) + BOX_H / 2;
            cs_sbuf_printf(b, "<line class=\"edge\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>", x1,
                           y1, x2, y2);
        }
    static const char *const style_class[] = {"", " current", " skipped", " failed"};
    for (int i = 0; i < n; i++) {
        int x = MARGIN + col[i] * (BOX_W + GAP_X);
        int y = MARGIN + (row[i] - 1) * (BOX_H + GAP_Y);
        if (nodes[i].href) {
            cs_sbuf_puts(b, "<a href=\"");
            cs_html_escape(b, nodes[i].href);
            cs_sbuf_puts(b, "\">");
        }
        const char *kind = nodes[i].title ? "rdd" : "stage";
        cs_sbuf_printf(b,
                       "<g class=\"stage%s\" id=\"dag-%s-%d\"><rect x=\"%d\" y=\"%d\" "
                       "width=\"%d\" height=\"%d\" rx=\"4\"/><text x=\"%d\" y=\"%d\" "
                       "font-weight=\"bold\">",
                       style_class[nodes[i].style & 3], kind, nodes[i].id, x, y, BOX_W, BOX_H,
                       x + 8, y + 18);
        if (nodes[i].title)
            label(b, nodes[i].title);
        else
            cs_sbuf_printf(b, "Stage %d", nodes[i].id);
        cs_sbuf_printf(b, "</text><text x=\"%d\" y=\"%d\">", x + 8, y + 36);
        label(b, nodes[i].label);
        cs_sbuf_puts(b, "</text><title>");
        if (nodes[i].title)
            cs_html_escape(b, nodes[i].title);
        else
            cs_sbuf_printf(b, "Stage %d", nodes[i].id);
        cs_sbuf_puts(b, ": ");
        cs_html_escape(b, nodes[i].label);
        cs_sbuf_puts(b, "</title></g>");
        if (nodes[i].href) cs_sbuf_puts(b, "</a>");
    }
    cs_sbuf_puts(b, "</svg></div>\n");
    free(col);
    free(row);
}
