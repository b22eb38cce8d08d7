/* ui_html.c — escaping, formats and the page frame of the web UI (see ui_html.h).
 *
 * The pages work without JavaScript: every table is rendered here, links and forms are plain
 * HTML. The one script (cs_html_script) only offers an auto-refresh toggle on the pages of a
 * running application; its state is kept in the browser's localStorage, off by default.
 */
#include "ui/ui_html.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/err.h"
#include "cspark.h"

void cs_html_escape(cs_sbuf *b, const char *s)
{
    if (!s) return;
    const char *run = s;
    for (const char *p = s; *p; p++) {
        const char *rep = NULL;
        switch (*p) {
        case '&':
            rep = "&amp;";
            break;
        case '<':
            rep = "&lt;";
            break;
        case '>':
            rep = "&gt;";
            break;
        case '"':
            rep = "&quot;";
            break;
        case '\'':
            rep = "&#39;";
            break;
        default:
            continue;
        }
        cs_sbuf_append(b, run, (size_t)(p - run));
        cs_sbuf_puts(b, rep);
        run = p + 1;
    }
    cs_sbuf_puts(b, run);
}

void cs_html_url_escape(cs_sbuf *b, const char *s)
{
    static const char hex[] = "0123456789ABCDEF";
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
        if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
            strchr("-_.~", *p)) {
            cs_sbuf_putc(b, (char)*p);
        } else {
            char enc[3] = {'%', hex[*p >> 4], hex[*p & 15]};
            cs_sbuf_append(b, enc, 3);
        }
    }
}

void cs_html_printf_escaped(cs_sbuf *b, const char *fmt, ...)
{
    char small[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if ((size_t)n < sizeof small) {
        cs_html_escape(b, small);
        return;
    }
    char *big = cs_xmalloc((size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    cs_html_escape(b, big);
    free(big);
}

void cs_html_bytes(cs_sbuf *b, int64_t bytes)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    double v = (double)(bytes < 0 ? 0 : bytes);
    int u = 0;
    while (v >= 1024.0 * 2 && u < 6) { /* Spark switches unit at twice the next one */
        v /= 1024.0;
        u++;
    }
    if (u == 0 && bytes >= 0) {
        cs_sbuf_printf(b, "%.1f B", v);
        return;
    }
    cs_sbuf_printf(b, "%.1f %s", v, units[u]);
}

void cs_html_duration(cs_sbuf *b, int64_t ms)
{
    if (ms < 0) ms = 0;
    if (ms < 1000)
        cs_sbuf_printf(b, "%lld ms", (long long)ms);
    else if (ms < 60 * 1000)
        cs_sbuf_printf(b, "%.1f s", (double)ms / 1000.0);
    else if (ms < 60 * 60 * 1000)
        cs_sbuf_printf(b, "%.1f min", (double)ms / 60000.0);
    else
        cs_sbuf_printf(b, "%.1f h", (double)ms / 3600000.0);
}

void cs_html_date(cs_sbuf *b, int64_t ms)
{
    if (ms <= 0) {
        cs_sbuf_puts(b, "-");
        return;
    }
    time_t t = (time_t)(ms / 1000);
    struct tm tm;
    gmtime_r(&t, &tm);
    char buf[32];
    strftime(buf, sizeof buf, "%Y/%m/%d %H:%M:%S", &tm);
    cs_sbuf_puts(b, buf);
}

static const char *const tab_names[] = {"Jobs",        "Stages",    "Storage",
                                        "Environment", "Executors", "SQL / DataFrame"};
static const char *const tab_paths[] = {"/jobs/",        "/stages/",    "/storage/",
                                        "/environment/", "/executors/", "/SQL/"};

void cs_html_page_begin(cs_sbuf *b, const ui_frame *f)
{
    cs_sbuf_puts(b, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
                    "<link rel=\"stylesheet\" href=\"/static/cspark-ui.css\"><title>");
    cs_html_escape(b, f->app_name);
    if (f->app_name && f->title) cs_sbuf_puts(b, " - ");
    cs_html_escape(b, f->title);
    cs_sbuf_puts(b, "</title></head><body>\n<nav class=\"navbar\"><span class=\"brand\">"
                    "cspark <small>" CSPARK_VERSION "</small></span><ul class=\"tabs\">");
    for (int t = 0; t <= (f->sql_tab ? UI_TAB_SQL : UI_TAB_EXECUTORS); t++) {
        cs_sbuf_printf(b, "<li%s><a href=\"", f->tab == (ui_tab)t ? " class=\"active\"" : "");
        cs_html_escape(b, f->base);
        cs_sbuf_printf(b, "%s\">%s</a></li>", tab_paths[t], tab_names[t]);
    }
    cs_sbuf_puts(b, "</ul><span class=\"app-name\" title=\"application\">");
    cs_html_escape(b, f->app_name);
    cs_sbuf_puts(b, " application UI</span>");
    if (f->live)
        cs_sbuf_puts(b, "<label class=\"refresh\" hidden><input type=\"checkbox\" "
                        "id=\"auto-refresh\"> auto-refresh</label>");
    cs_sbuf_puts(b, "</nav>\n<main>\n<h1>");
    cs_html_escape(b, f->title);
    cs_sbuf_puts(b, "</h1>\n");
}

void cs_html_page_end(cs_sbuf *b)
{
    cs_sbuf_puts(b, "\n</main><script src=\"/static/cspark-ui.js\"></script></body></html>\n");
}

void cs_html_progress(cs_sbuf *b, int started, int completed, int failed, int skipped, int killed,
                      int total)
{
    double done = total > 0 ? 100.0 * (double)(completed > total ? total : completed) / total : 0;
    double run = total > 0 ? 100.0 * (double)started / total : 0;
    if (done + run > 100) run = 100 - done;
    cs_sbuf_printf(b, "<div class=\"progress\"><span class=\"progress-text\">%d/%d", completed,
                   total);
    if (started > 0) cs_sbuf_printf(b, " (%d running)", started);
    if (failed > 0) cs_sbuf_printf(b, " (%d failed)", failed);
    if (skipped > 0) cs_sbuf_printf(b, " (%d skipped)", skipped);
    if (killed > 0) cs_sbuf_printf(b, " (%d killed)", killed);
    cs_sbuf_printf(b,
                   "</span><div class=\"bar completed\" style=\"width:%.1f%%\"></div>"
                   "<div class=\"bar running\" style=\"width:%.1f%%\"></div></div>",
                   done, run);
}

const char *cs_html_stylesheet(void)
{
    return "body{font-family:-apple-system,'Helvetica Neue',Arial,sans-serif;font-size:14px;"
           "margin:0;color:#333}\n"
           ".navbar{display:flex;align-items:center;background:#f5f5f5;border-bottom:1px solid "
           "#ddd;padding:0 12px;height:48px}\n"
           ".brand{font-weight:bold;font-size:18px;margin-right:24px;color:#e25a1c}\n"
           ".brand small{font-size:11px;color:#888}\n"
           ".tabs{list-style:none;display:flex;margin:0;padding:0;flex:1}\n"
           ".tabs li a{display:block;padding:14px 12px;color:#555;text-decoration:none}\n"
           ".tabs li.active a{background:#e0e0e0;color:#000;font-weight:bold}\n"
           ".app-name{color:#666;margin-right:12px}\n"
           "main{padding:8px 16px}\nh1{font-size:22px;margin:8px 0 12px}\n"
           "h2,h4{margin:18px 0 6px}\n"
           "table{border-collapse:collapse;margin-bottom:16px;width:100%}\n"
           "th,td{border:1px solid #ddd;padding:4px 8px;text-align:left;vertical-align:top}\n"
           "th{background:#f2f2f2}\ntr:nth-child(even) td{background:#fafafa}\n"
           "td.num{text-align:right}\n"
           "ul.summary{list-style:none;padding:0}\nul.summary li{margin:3px 0}\n"
           ".progress{position:relative;height:18px;min-width:160px;background:#f5f5f5;border:1px "
           "solid #ccc;border-radius:3px;overflow:hidden}\n"
           ".progress .bar{float:left;height:100%}\n"
           ".progress .completed{background:#3ec23e}\n"
           ".progress .running{background:#a0dfff}\n"
           ".progress-text{position:absolute;width:100%;text-align:center;font-size:12px;"
           "line-height:18px}\n"
           "form.kill{display:inline}\nform.kill button{background:none;border:none;color:#c00;"
           "cursor:pointer;padding:0 2px;font-size:12px}\n"
           ".error{color:#a00;white-space:pre-wrap}\n"
           "pre.log{background:#fafafa;border:1px solid #ddd;padding:8px;white-space:pre-wrap}\n"
           ".dag svg{border:1px solid #ddd;background:#fcfcfc}\n"
           ".dag .stage rect{fill:#fff;stroke:#3a7bd5;stroke-width:1.5}\n"
           ".dag .stage.current rect{fill:#e8f0fc;stroke-width:3}\n"
           ".dag .stage.skipped rect{stroke:#bbb;stroke-dasharray:4 3}\n"
           ".dag .stage.failed rect{stroke:#c00}\n"
           ".dag .stage text{font-size:12px;fill:#333}\n"
           ".dag .edge{stroke:#666;stroke-width:1.3;fill:none;marker-end:url(#arrow)}\n";
}

const char *cs_html_script(void)
{
    return "(function(){\n"
           "  var box = document.getElementById('auto-refresh');\n"
           "  if (!box) return;\n"
           "  box.parentNode.hidden = false;\n"
           "  var on = window.localStorage && localStorage.getItem('cspark-ui-refresh') === "
           "'on';\n"
           "  box.checked = on;\n"
           "  var timer = null;\n"
           "  function arm() {\n"
           "    if (timer) { clearTimeout(timer); timer = null; }\n"
           "    if (box.checked) timer = setTimeout(function(){ location.reload(); }, 5000);\n"
           "  }\n"
           "  box.addEventListener('change', function(){\n"
           "    if (window.localStorage) localStorage.setItem('cspark-ui-refresh', box.checked ? "
           "'on' : 'off');\n"
           "    arm();\n"
           "  });\n"
           "  arm();\n"
           "})();\n";
}
