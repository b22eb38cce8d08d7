/* progress.c — Spark's ConsoleProgressBar and the per-stage logging listener.
 *
 * What the bar shows is a pure state machine over explicit times (progress_view): events update
 * a small table of running stage attempts, and a redraw at time t renders the stages running
 * longer than the first delay with cs_progress_render() into "\r<line>\r" when the line changed
 * (or a minute passed, so idle ssh sessions stay alive, as Spark); when the last stage completes
 * (or a job ends) the line is erased with "\r<width spaces>\r". The progress bar wraps the view
 * with the terminal, the listener bus's dispatch thread (cs_progress_listener) and a redraw thread
 * that wakes every update interval. All terminal writes happen under the bar's mutex, so redraw
 * and erase never interleave. The stage logger is the non-terminal alternative: one CS_INFO line
 * when a stage attempt is submitted and one when it completes, with its duration. Both are created
 * by cs_listener_bus_new (listener.c).
 */
#include "sched/progress.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/err.h"
#include "common/log.h"
#include "common/sync.h"

/* ---- rendering ------------------------------------------------------------------------------ */

typedef struct outbuf {
    char *buf;
    size_t cap;
    size_t len; /* full length, may exceed cap */
} outbuf;

static void out_putc(outbuf *o, char c)
{
    if (o->len + 1 < o->cap) o->buf[o->len] = c;
    o->len++;
}

static void out_puts(outbuf *o, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        out_putc(o, s[i]);
}

size_t cs_progress_render(const progress_stage *stages, int n, int width, char *buf, size_t cap)
{
    outbuf o = {buf, cap, 0};
    if (n > 0 && stages) {
        int per = width / n;
        for (int k = 0; k < n; k++) {
            const progress_stage *s = &stages[k];
            char header[48], tail[96];
            int total = s->num_tasks < 0 ? 0 : s->num_tasks;
            int done = s->completed < 0 ? 0 : s->completed;
            int active = s->active < 0 ? 0 : s->active;
            int hl = snprintf(header, sizeof header, "[Stage %d:", s->stage_id);
            int tl = snprintf(tail, sizeof tail, "(%d + %d) / %d]", done, active, total);
            int w = per - hl - tl;
            out_puts(&o, header, (size_t)hl);
            if (w > 0) {
                int filled = done > total ? total : done;
                int64_t percent = total > 0 ? (int64_t)w * filled / total : 0;
                for (int i = 0; i < w; i++)
                    out_putc(&o, i < percent ? '=' : (i == percent ? '>' : ' '));
            }
            out_puts(&o, tail, (size_t)tl);
        }
    }
    if (cap > 0) buf[o.len < cap ? o.len : cap - 1] = '\0';
    return o.len;
}

int cs_progress_terminal_width(int fd)
{
    const char *cols = getenv("COLUMNS");
    if (cols && *cols) {
        char *end = NULL;
        long v = strtol(cols, &end, 10);
        if (end && *end == '\0' && v > 0 && v < 100000) return (int)v;
    }
    struct winsize ws;
    if (isatty(fd) && ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) return ws.ws_col;
    return PROGRESS_DEFAULT_WIDTH;
}

/* ---- the view: what the bar shows, over explicit times -------------------------------------- */

static void put_erase(progress_view *v, cs_sbuf *out)
{
    if (!v->last || v->last[0] == '\0') return;
    cs_sbuf_putc(out, '\r');
    for (int i = 0; i < v->width; i++)
        cs_sbuf_putc(out, ' ');
    cs_sbuf_putc(out, '\r');
    v->last[0] = '\0';
}

static int cmp_stage(const void *a, const void *b)
{
    const progress_stage *x = a, *y = b;
    if (x->stage_id != y->stage_id) return x->stage_id < y->stage_id ? -1 : 1;
    return (x->stage_attempt > y->stage_attempt) - (x->stage_attempt < y->stage_attempt);
}

void cs_progress_view_init(progress_view *v, int width, int64_t first_delay_ms)
{
    memset(v, 0, sizeof *v);
    v->width = width > 0 ? width : PROGRESS_DEFAULT_WIDTH;
    v->first_delay_ms = first_delay_ms >= 0 ? first_delay_ms : PROGRESS_FIRST_DELAY_MS;
    v->last_cap = 128;
    v->last = cs_xcalloc(1, v->last_cap);
}

void cs_progress_view_free(progress_view *v)
{
    free(v->stages);
    free(v->last);
    memset(v, 0, sizeof *v);
}

void cs_progress_view_redraw(progress_view *v, int64_t now_ms, cs_sbuf *out)
{
    if (v->nstages == 0) {
        put_erase(v, out);
        return;
    }
    progress_stage show[64];
    int n = 0;
    for (size_t i = 0; i < v->nstages && n < 64; i++)
        if (now_ms - v->stages[i].submitted_ms > v->first_delay_ms) show[n++] = v->stages[i].c;
    if (n == 0) return;
    qsort(show, (size_t)n, sizeof show[0], cmp_stage);
    if (n > PROGRESS_MAX_STAGES) n = PROGRESS_MAX_STAGES;
    size_t need = cs_progress_render(show, n, v->width, NULL, 0) + 1;
    char *line = cs_xmalloc(need);
    cs_progress_render(show, n, v->width, line, need);
    /* unchanged lines are redrawn once a minute, so idle ssh sessions stay alive (as Spark) */
    if (strcmp(line, v->last) != 0 || now_ms - v->last_draw_ms > 60 * 1000) {
        cs_sbuf_putc(out, '\r');
        cs_sbuf_append(out, line, need - 1);
        cs_sbuf_putc(out, '\r');
        v->last_draw_ms = now_ms;
        if (need > v->last_cap) {
            v->last = cs_xrealloc(v->last, need);
            v->last_cap = need;
        }
        memcpy(v->last, line, need);
    }
    free(line);
}

static progress_view_stage *find_stage(progress_view *v, int stage_id, int attempt)
{
    for (size_t i = 0; i < v->nstages; i++)
        if (v->stages[i].c.stage_id == stage_id && v->stages[i].c.stage_attempt == attempt)
            return &v->stages[i];
    return NULL;
}

void cs_progress_view_event(progress_view *v, const cs_event *ev, int64_t now_ms, cs_sbuf *out)
{
    switch (ev->kind) {
    case CS_EV_STAGE_SUBMITTED: {
        progress_view_stage *s = find_stage(v, ev->stage_id, ev->stage_attempt);
        if (!s) {
            if (v->nstages == v->capstages) {
                v->capstages = v->capstages ? 2 * v->capstages : 8;
                v->stages = cs_xrealloc(v->stages, v->capstages * sizeof *v->stages);
            }
            s = &v->stages[v->nstages++];
            memset(s, 0, sizeof *s);
            s->c.stage_id = ev->stage_id;
            s->c.stage_attempt = ev->stage_attempt;
        }
        s->c.num_tasks = ev->num_tasks;
        s->submitted_ms = now_ms;
        break;
    }
    case CS_EV_TASK_START: {
        progress_view_stage *s = find_stage(v, ev->stage_id, ev->stage_attempt);
        if (s) s->c.active++;
        break;
    }
    case CS_EV_TASK_END: {
        progress_view_stage *s = find_stage(v, ev->stage_id, ev->stage_attempt);
        if (s) {
            if (s->c.active > 0) s->c.active--;
            if (ev->succeeded) s->c.completed++;
        }
        break;
    }
    case CS_EV_STAGE_COMPLETED: {
        progress_view_stage *s = find_stage(v, ev->stage_id, ev->stage_attempt);
        if (s) {
            *s = v->stages[--v->nstages];
            if (v->nstages == 0) put_erase(v, out);
        }
        break;
    }
    case CS_EV_JOB_END:
    case CS_EV_APPLICATION_END:
        /* As Spark's finishAll(): the bar of a finished job never lingers. */
        put_erase(v, out);
        break;
    default:
        break;
    }
}

/* ---- the progress bar: the view, a terminal and a redraw thread ------------------------------ */

struct progress_bar {
    int fd;
    int64_t interval_ms;
    pthread_mutex_t mu; /* guards view; every terminal write happens under it */
    pthread_cond_t cv;
    bool stop;
    pthread_t thread;
    progress_view view;
};

static void write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR) continue;
            return; /* a closed terminal is not worth failing a job for */
        }
        p += w;
        n -= (size_t)w;
    }
}

/* Writes and empties out; mu held. */
static void flush_locked(progress_bar *pb, cs_sbuf *out)
{
    if (out->len) write_all(pb->fd, out->data, out->len);
    out->len = 0;
}

static void *progress_main(void *arg)
{
    progress_bar *pb = arg;
    cs_sbuf out = CS_SBUF_INIT;
    pthread_mutex_lock(&pb->mu);
    while (!pb->stop) {
        int64_t wake = cs_mono_ms() + pb->interval_ms;
        while (!pb->stop && cs_mono_ms() < wake)
            cs_cond_wait_ms(&pb->cv, &pb->mu, wake - cs_mono_ms());
        if (pb->stop) break;
        cs_progress_view_redraw(&pb->view, cs_mono_ms(), &out);
        flush_locked(pb, &out);
    }
    pthread_mutex_unlock(&pb->mu);
    cs_sbuf_free(&out);
    return NULL;
}

progress_bar *cs_progress_new(int fd, int64_t update_interval_ms, int64_t first_delay_ms, int width)
{
    progress_bar *pb = cs_xcalloc(1, sizeof *pb);
    pb->fd = fd;
    pb->interval_ms = update_interval_ms > 0 ? update_interval_ms : 200;
    cs_progress_view_init(&pb->view, width > 0 ? width : cs_progress_terminal_width(fd),
                          first_delay_ms);
    pthread_mutex_init(&pb->mu, NULL);
    cs_cond_init_monotonic(&pb->cv);
    if (pthread_create(&pb->thread, NULL, progress_main, pb) != 0) {
        pthread_cond_destroy(&pb->cv);
        pthread_mutex_destroy(&pb->mu);
        cs_progress_view_free(&pb->view);
        free(pb);
        return NULL;
    }
    return pb;
}

void cs_progress_listener(void *arg, const cs_event *ev)
{
    progress_bar *pb = arg;
    cs_sbuf out = CS_SBUF_INIT;
    pthread_mutex_lock(&pb->mu);
    cs_progress_view_event(&pb->view, ev, cs_mono_ms(), &out);
    flush_locked(pb, &out);
    pthread_mutex_unlock(&pb->mu);
    cs_sbuf_free(&out);
}

void cs_progress_free(progress_bar *pb)
{
    if (!pb) return;
    pthread_mutex_lock(&pb->mu);
    pb->stop = true;
    pthread_cond_signal(&pb->cv);
    pthread_mutex_unlock(&pb->mu);
    pthread_join(pb->thread, NULL);
    cs_sbuf out = CS_SBUF_INIT;
    put_erase(&pb->view, &out);
    flush_locked(pb, &out);
    cs_sbuf_free(&out);
    pthread_cond_destroy(&pb->cv);
    pthread_mutex_destroy(&pb->mu);
    cs_progress_view_free(&pb->view);
    free(pb);
}

/* ---- the stage logger ----------------------------------------------------------------------- */

typedef struct lstage {
    int stage_id, attempt, num_tasks;
    int64_t submitted_ms;
    char *name;
} lstage;

struct stage_logger {
    lstage *v;
    size_t n, cap;
};

stage_logger *cs_stage_logger_new(void)
{
    return cs_xcalloc(1, sizeof(stage_logger));
}

void cs_stage_logger_free(stage_logger *sl)
{
    if (!sl) return;
    for (size_t i = 0; i < sl->n; i++)
        free(sl->v[i].name);
    free(sl->v);
    free(sl);
}

void cs_stage_logger_listener(void *arg, const cs_event *ev)
{
    stage_logger *sl = arg;
    if (ev->kind == CS_EV_STAGE_SUBMITTED) {
        size_t i;
        for (i = 0; i < sl->n; i++)
            if (sl->v[i].stage_id == ev->stage_id && sl->v[i].attempt == ev->stage_attempt) break;
        if (i == sl->n) {
            if (sl->n == sl->cap) {
                sl->cap = sl->cap ? 2 * sl->cap : 8;
                sl->v = cs_xrealloc(sl->v, sl->cap * sizeof *sl->v);
            }
            sl->v[sl->n++].name = NULL;
        }
        free(sl->v[i].name);
        sl->v[i] = (lstage){ev->stage_id, ev->stage_attempt, ev->num_tasks, ev->time_ms,
                            cs_xstrdup(ev->stage_name ? ev->stage_name : "")};
        CS_INFO("scheduler", "stage=%d attempt=%d tasks=%d name=%s event=submitted", ev->stage_id,
                ev->stage_attempt, ev->num_tasks,
                cs_log_quote(ev->stage_name ? ev->stage_name : ""));
    } else if (ev->kind == CS_EV_STAGE_COMPLETED) {
        int64_t duration = -1;
        int tasks = ev->num_tasks;
        char *stored = NULL;
        for (size_t i = 0; i < sl->n; i++) {
            if (sl->v[i].stage_id == ev->stage_id && sl->v[i].attempt == ev->stage_attempt) {
                duration = ev->time_ms - sl->v[i].submitted_ms;
                if (duration < 0) duration = 0;
                if (tasks <= 0) tasks = sl->v[i].num_tasks;
                stored = sl->v[i].name;
                sl->v[i] = sl->v[--sl->n];
                break;
            }
        }
        const char *sname = ev->stage_name ? ev->stage_name : (stored ? stored : "");
        if (ev->succeeded) {
            CS_INFO("scheduler",
                    "stage=%d attempt=%d tasks=%d name=%s event=completed duration_ms=%lld",
                    ev->stage_id, ev->stage_attempt, tasks, cs_log_quote(sname),
                    (long long)duration);
        } else {
            CS_INFO("scheduler",
                    "stage=%d attempt=%d tasks=%d name=%s event=completed duration_ms=%lld "
                    "failed=true reason=%s",
                    ev->stage_id, ev->stage_attempt, tasks, cs_log_quote(sname),
                    (long long)duration, cs_log_quote(ev->reason ? ev->reason : ""));
        }
        free(stored);
    }
}
