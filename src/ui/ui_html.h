/* ui_html.h — building blocks of the web UI's server-side HTML: escaping, Spark's number, size,
 * duration and date formats, and the page frame (header with the tabs, the footer, the refresh
 * script).
 *
 * Everything appends to a caller-owned cs_sbuf; nothing here allocates beyond it or keeps state,
 * so any thread may call it. Used by the page modules (ui_page_*.c) and the history listing.
 */
#ifndef CSPARK_UI_HTML_H
#define CSPARK_UI_HTML_H

#include <stdbool.h>
#include <stdint.h>

#include "common/strutil.h"

/* The tab a page belongs to (highlighted in the header). */
typedef enum {
    UI_TAB_JOBS,
    UI_TAB_STAGES,
    UI_TAB_STORAGE,
    UI_TAB_ENVIRONMENT,
    UI_TAB_EXECUTORS,
    UI_TAB_SQL, /* shown when the application ran SQL queries */
    UI_TAB_NONE
} ui_tab;

/* What the frame of an application's page needs. */
typedef struct ui_frame {
    const char *base;     /* URL prefix of the application's pages: "" (live) or "/history/<id>" */
    const char *app_name; /* shown at the right of the header */
    const char *title;    /* the page's title (escaped here) */
    ui_tab tab;
    bool live;    /* the application runs: offer the auto-refresh toggle */
    bool sql_tab; /* show the SQL / DataFrame tab (the application ran SQL queries) */
} ui_frame;

/* Appends s with & < > " ' escaped (NULL appends nothing). */
void cs_html_escape(cs_sbuf *b, const char *s);
/* Appends s escaped for a URL query value (percent-encoding). */
void cs_html_url_escape(cs_sbuf *b, const char *s);
/* printf, then the result escaped. */
void cs_html_printf_escaped(cs_sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Spark's Utils.bytesToString: "0.0 B", "1.5 KiB", "12.0 MiB", ... */
void cs_html_bytes(cs_sbuf *b, int64_t bytes);
/* Spark's UIUtils.formatDuration: "15 ms", "1.2 s", "3.4 min", "1.1 h". */
void cs_html_duration(cs_sbuf *b, int64_t ms);
/* Spark's UIUtils.formatDate: "2026/11/24 20:10:00" (UTC); "-" for 0. */
void cs_html_date(cs_sbuf *b, int64_t ms);

/* The page frame: <!DOCTYPE>, head with the style sheet, the header with the tabs; then the
 * caller appends the body and calls cs_html_page_end. */
void cs_html_page_begin(cs_sbuf *b, const ui_frame *f);
void cs_html_page_end(cs_sbuf *b);

/* A progress bar as Spark's (completed / total, with started and failed, killed, skipped). */
void cs_html_progress(cs_sbuf *b, int started, int completed, int failed, int skipped, int killed,
                      int total);

/* The style sheet and the refresh script served at /static/. Static strings. */
const char *cs_html_stylesheet(void);
const char *cs_html_script(void);

#endif /* CSPARK_UI_HTML_H */
