/* progress.h — console progress for running stages: Spark's ConsoleProgressBar, and the
 * one-line-per-stage logging listener used when stderr is not a terminal.
 *
 * The progress bar is a listener (cs_progress_listener) that keeps per-stage task counts from
 * StageSubmitted / TaskStart / TaskEnd / StageCompleted events, plus a timer thread that every
 * spark.ui.consoleProgress.update.interval redraws, with '\r', one bar per stage that has been
 * running longer than the first delay (500 ms), up to 3 side by side:
 *     [Stage 1:=================>                                       (12 + 2) / 40]
 * and erases the line when no stage is running. The line itself is built by the pure function
 * cs_progress_render(), which tests check byte for byte, and what is shown when by the pure state
 * machine progress_view (explicit times), which tests drive without threads or sleeps. The stage
 * logger (cs_stage_logger_listener) prints `INFO <time> scheduler stage=1 attempt=0 tasks=40
 * name="..." event=submitted` and
 * `... event=completed duration_ms=123` lines instead. Both are installed by cs_listener_bus_new
 * (listener.c); they run on the bus's dispatch thread.
 *
 * Ownership: cs_progress_new / cs_stage_logger_new return objects owned by the caller (the bus),
 * freed with cs_progress_free / cs_stage_logger_free after the bus has stopped delivering to them.
 * The fd given to cs_progress_new is borrowed (never closed). Threads: cs_progress_listener runs
 * on the bus's dispatch thread, the redraw thread is the bar's own; both take the bar's mutex.
 */
#ifndef CSPARK_SCHED_PROGRESS_H
#define CSPARK_SCHED_PROGRESS_H

#include <stddef.h>
#include <stdint.h>

#include "common/strutil.h"
#include "sched/listener.h"

/* Counts of one running stage attempt, as shown in the bar. */
typedef struct progress_stage {
    int stage_id;
    int stage_attempt;
    int num_tasks; /* total tasks of the attempt */
    int completed; /* tasks finished successfully */
    int active;    /* tasks running now */
} progress_stage;

#define PROGRESS_MAX_STAGES 3       /* bars shown side by side, as Spark */
#define PROGRESS_FIRST_DELAY_MS 500 /* a stage is shown once it has run this long */
#define PROGRESS_DEFAULT_WIDTH 80

/* Renders the progress line for stages[0..n) exactly as Spark's ConsoleProgressBar.show: each
 * stage gets width/n columns: "[Stage <id>:" + bar + "(<completed> + <active>) / <total>]", the bar
 * being w = columns - len(header) - len(tail) characters: '=' for the finished fraction
 * (w * completed / total, completed clamped to total), then '>', then spaces; no bar when w <= 0.
 * No '\r' and no newline. Writes at most cap-1 bytes and a NUL into buf; returns the length of the
 * full line (like snprintf). n <= 0 renders "". Pure: no I/O, no state. */
size_t cs_progress_render(const progress_stage *stages, int n, int width, char *buf, size_t cap);

/* Terminal width for the bar: $COLUMNS if a positive number, else the window size of fd
 * (TIOCGWINSZ) when fd is a terminal, else 80. */
int cs_progress_terminal_width(int fd);

/* ---- the view: a pure state machine over explicit times (no thread, no clock, no I/O) ---- */

typedef struct progress_view_stage {
    progress_stage c;
    int64_t submitted_ms; /* when its StageSubmitted arrived (monotonic) */
} progress_view_stage;

typedef struct progress_view {
    int width;
    int64_t first_delay_ms;
    progress_view_stage *stages; /* running stage attempts, unordered */
    size_t nstages, capstages;
    char *last; /* last line drawn ("" when none is shown) */
    size_t last_cap;
    int64_t last_draw_ms;
} progress_view;

/* width <= 0 means 80; first_delay_ms < 0 means 500. Free with cs_progress_view_free. */
void cs_progress_view_init(progress_view *v, int width, int64_t first_delay_ms);
void cs_progress_view_free(progress_view *v);
/* An event at now_ms; appends to out what the terminal must receive (an erase when the last
 * stage completed or a job ended). */
void cs_progress_view_event(progress_view *v, const cs_event *ev, int64_t now_ms, cs_sbuf *out);
/* A redraw tick at now_ms: appends "\r<line>\r" when the line changed (or a minute passed since
 * it was drawn), an erase when no stage runs, nothing otherwise. */
void cs_progress_view_redraw(progress_view *v, int64_t now_ms, cs_sbuf *out);

/* ---- the progress bar: the view on a terminal, with its redraw thread ---------------------- */

typedef struct progress_bar progress_bar;

/* Starts the redraw thread writing to fd. update_interval_ms <= 0 means 200; first_delay_ms < 0
 * means 500; width <= 0 means cs_progress_terminal_width(fd). Returns NULL only if the thread
 * cannot be created. */
progress_bar *cs_progress_new(int fd, int64_t update_interval_ms, int64_t first_delay_ms,
                              int width);
/* The listener: arg is the progress_bar. */
void cs_progress_listener(void *arg, const cs_event *ev);
/* Stops the thread and erases the bar if one is shown. NULL is a no-op. */
void cs_progress_free(progress_bar *pb);

typedef struct stage_logger stage_logger;
stage_logger *cs_stage_logger_new(void);
/* The listener: arg is the stage_logger; logs with CS_INFO("scheduler", ...). */
void cs_stage_logger_listener(void *arg, const cs_event *ev);
void cs_stage_logger_free(stage_logger *sl);

#endif /* CSPARK_SCHED_PROGRESS_H */
