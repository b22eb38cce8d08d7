/* progress.c — Spark's ConsoleProgressBar and the per-stage logging listener.
 *
 * The progress bar keeps a small table of running stage attempts updated by the listener bus's
 * dispatch thread (cs_progress_listener) and a redraw thread that wakes every update interval,
 * renders the stages running longer than the first delay with cs_progress_render() and writes
 * "\r<line>\r" to the terminal when the line changed (or a minute passed, so idle ssh sessions
 * stay alive, as Spark). When the last stage completes (or a job ends) the line is erased with
 * "\r<width spaces>\r". All terminal writes happen under the table's mutex, so redraw and erase
 * never interleave. The stage logger is the non-terminal alternative: one CS_INFO line when a
 * stage attempt is submitted and one when it completes, with its duration. Both are created by
 * cs_listener_bus_new (listener.c).
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

/* ---- the progress bar ----------------------------------------------------------------------- */

typedef struct pstage {
    progress_stage c;
    int64_t submitted_mono_ms;
} pstage;

struct progress_bar {
    int fd;
    int width;
    int64_t interval_ms;
    int64_t first_delay_ms;

    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool stop;
    pthread_t thread;

    pstage *stages; /* running stage attempts, unordered */
    size_t nstages, capstages;

    char *last; /* last line drawn ("" when none is shown) */
    size_t last_cap;
    int64_t last_draw_ms;
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

/* Erases the shown line; mu held. */
static void erase_locked(progress_bar *pb)
{
    if (pb->last[0] == '\0') return;
    size_t n = (size_t)pb->width + 2;
    char *line = cs_xmalloc(n);
    line[0] = '\r';
    memset(line + 1, ' ', (size_t)pb->width);
    line[n - 1] = '\r';
    write_all(pb->fd, line, n);
    free(line);
    pb->last[0] = '\0';
}

static int cmp_stage(const void *a, const void *b)
{
    const progress_stage *x = a, *y = b;
    if (x->stage_id != y->stage_id) return x->stage_id < y->stage_id ? -1 : 1;
    return (x->stage_attempt > y->stage_attempt) - (x->stage_attempt < y->stage_attempt);
}

/* One redraw; mu held. */
static void redraw_locked(progress_bar *pb)
{
    int64_t now = cs_mono_ms();
    if (pb->nstages == 0) {
        erase_locked(pb);
        return;
    }
    progress_stage show[64];
    int n = 0;
    for (size_t i = 0; i < pb->nstages && n < 64; i++)
        if (now - pb->stages[i].submitted_mono_ms > pb->first_delay_ms) show[n++] = pb->stages[i].c;
    if (n == 0) return;
    qsort(show, (size_t)n, sizeof show[0], cmp_stage);
    if (n > PROGRESS_MAX_STAGES) n = PROGRESS_MAX_STAGES;
    size_t need = cs_progress_render(show, n, pb->width, NULL, 0) + 1;
    char *line = cs_xmalloc(need + 2);
    line[0] = '\r';
    cs_progress_render(show, n, pb->width, line + 1, need);
    if (strcmp(line + 1, pb->last) != 0 || now - pb->last_draw_ms > 60 * 1000) {
        line[need] = '\r';
        write_all(pb->fd, line, need + 1);
        pb->last_draw_ms = now;
        if (need > pb->last_cap) {
            pb->last = cs_xrealloc(pb->last, need);
            pb->last_cap = need;
        }
        memcpy(pb->last, line + 1, need - 1);
        pb->last[need - 1] = '\0';
    }
    free(line);
}

static void *progress_main(void *arg)
{
    progress_bar *pb = arg;
    pthread_mutex_lock(&pb->mu);
    while (!pb->stop) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        ts.tv_sec += pb->interval_ms / 1000;
        ts.tv_nsec += (pb->interval_ms % 1000) * 1000000L;
        if (ts.tv_nsec >= 1000000000L) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000L;
        }
        while (!pb->stop) {
            int rc = pthread_cond_timedwait(&pb->cv, &pb->mu, &ts);
            if (rc == ETIMEDOUT) break;
        }
        if (pb->stop) break;
        redraw_locked(pb);
    }
    pthread_mutex_unlock(&pb->mu);
    return NULL;
}

progress_bar *cs_progress_new(int fd, int64_t update_interval_ms, int64_t first_delay_ms, int width)
{
    progress_bar *pb = cs_xcalloc(1, sizeof *pb);
    pb->fd = fd;
    pb->interval_ms = update_interval_ms > 0 ? update_interval_ms : 200;
    pb->first_delay_ms = first_delay_ms >= 0 ? first_delay_ms : PROGRESS_FIRST_DELAY_MS;
    pb->width = width > 0 ? width : cs_progress_terminal_width(fd);
    pb->last_cap = 128;
    pb->last = cs_xcalloc(1, pb->last_cap);
    pthread_mutex_init(&pb->mu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&pb->cv, &ca);
    pthread_condattr_destroy(&ca);
    if (pthread_create(&pb->thread, NULL, progress_main, pb) != 0) {
        pthread_cond_destroy(&pb->cv);
        pthread_mutex_destroy(&pb->mu);
        free(pb->last);
        free(pb);
        return NULL;
    }
    return pb;
}

static pstage *find_stage(progress_bar *pb, int stage_id, int attempt)
{
    for (size_t i = 0; i < pb->nstages; i++)
        if (pb->stages[i].c.stage_id == stage_id && pb->stages[i].c.stage_attempt == attempt)
            return &pb->stages[i];
    return NULL;
}

void cs_progress_listener(void *arg, const cs_event *ev)
{
    progress_bar *pb = arg;
    pthread_mutex_lock(&pb->mu);
    switch (ev->kind) {
    case CS_EV_STAGE_SUBMITTED: {
        pstage *s = find_stage(pb, ev->stage_id, ev->stage_attempt);
        if (!s) {
            if (pb->nstages == pb->capstages) {
                pb->capstages = pb->capstages ? 2 * pb->capstages : 8;
                pb->stages = cs_xrealloc(pb->stages, pb->capstages * sizeof *pb->stages);
            }
            s = &pb->stages[pb->nstages++];
            memset(s, 0, sizeof *s);
            s->c.stage_id = ev->stage_id;
            s->c.stage_attempt = ev->stage_attempt;
        }
        s->c.num_tasks = ev->num_tasks;
        s->submitted_mono_ms = cs_mono_ms();
        break;
    }
    case CS_EV_TASK_START: {
        pstage *s = find_stage(pb, ev->stage_id, ev->stage_attempt);
        if (s) s->c.active++;
        break;
    }
    case CS_EV_TASK_END: {
        pstage *s = find_stage(pb, ev->stage_id, ev->stage_attempt);
        if (s) {
            if (s->c.active > 0) s->c.active--;
            if (ev->succeeded) s->c.completed++;
        }
        break;
    }
    case CS_EV_STAGE_COMPLETED: {
        pstage *s = find_stage(pb, ev->stage_id, ev->stage_attempt);
        if (s) {
            *s = pb->stages[--pb->nstages];
            if (pb->nstages == 0) erase_locked(pb);
        }
        break;
    }
    case CS_EV_JOB_END:
    case CS_EV_APPLICATION_END:
        /* As Spark's finishAll(): the bar of a finished job never lingers. */
        erase_locked(pb);
        break;
    default:
        break;
    }
    pthread_mutex_unlock(&pb->mu);
}

void cs_progress_free(progress_bar *pb)
{
    if (!pb) return;
    pthread_mutex_lock(&pb->mu);
    pb->stop = true;
    pthread_cond_signal(&pb->cv);
    pthread_mutex_unlock(&pb->mu);
    pthread_join(pb->thread, NULL);
    erase_locked(pb);
    pthread_cond_destroy(&pb->cv);
    pthread_mutex_destroy(&pb->mu);
    free(pb->stages);
    free(pb->last);
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

/* Copies s into buf with '"' and '\\' replaced by '\'' and '/', so the value stays one quoted
 * field of the log line. */
static const char *quotable(const char *s, char *buf, size_t cap)
{
    size_t i = 0;
    for (; s && s[i] && i + 1 < cap; i++)
        buf[i] = s[i] == '"' ? '\'' : (s[i] == '\\' ? '/' : s[i]);
    buf[i] = '\0';
    return buf;
}

void cs_stage_logger_listener(void *arg, const cs_event *ev)
{
    stage_logger *sl = arg;
    char name[512];
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
        CS_INFO("scheduler", "stage=%d attempt=%d tasks=%d name=\"%s\" event=submitted",
                ev->stage_id, ev->stage_attempt, ev->num_tasks,
                quotable(ev->stage_name, name, sizeof name));
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
                    "stage=%d attempt=%d tasks=%d name=\"%s\" event=completed duration_ms=%lld",
                    ev->stage_id, ev->stage_attempt, tasks, quotable(sname, name, sizeof name),
                    (long long)duration);
        } else {
            char reason[512];
            CS_INFO("scheduler",
                    "stage=%d attempt=%d tasks=%d name=\"%s\" event=completed duration_ms=%lld "
                    "failed=true reason=\"%s\"",
                    ev->stage_id, ev->stage_attempt, tasks, quotable(sname, name, sizeof name),
                    (long long)duration, quotable(ev->reason, reason, sizeof reason));
        }
        free(stored);
    }
}
