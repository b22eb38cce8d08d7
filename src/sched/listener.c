/* listener.c — the listener bus: a bounded queue of deep-copied events and one dispatch thread.
 *
 * Spark's LiveListenerBus/AsyncEventQueue in one queue ("shared"). cs_listener_bus_post copies the
 * event and everything it points to into a single allocation, appends it to a linked list under
 * a mutex and wakes the dispatch thread only when it sleeps, so posting costs one malloc, a few
 * memcpy and an uncontended lock. After a delivery the dispatch thread lingers a few
 * milliseconds for more events, and posters of task events (a task's start and end, metrics,
 * block updates) leave a lingering thread alone unless the backlog grows (or a flush waits): the
 * steady stream of a stage's tasks — thousands a second — is delivered in batches with no wake-up
 * per event, while job, stage and executor events, and the first event after a quiet spell, are
 * delivered at once. When spark.scheduler.listenerbus.eventqueue.capacity events
 * are waiting (or being delivered), new events are dropped and counted; the first drop is logged
 * as an error and the count at most once a minute, with Spark's wording. The dispatch thread
 * takes the whole list at once and calls every listener for each event in posting order, then
 * publishes how far it got so cs_listener_bus_flush can return. cs_listener_bus_new installs the
 * built-in listeners from conf (event_log.c, progress.c). Used by the DAG and task schedulers
 * (posting) and by the context (new/free).
 */
#include "sched/listener.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/log.h"
#include "common/sync.h"
#include "sched/event_log.h"
#include "sched/json_protocol.h"
#include "sched/progress.h"

#define MAX_LISTENERS 32
#define DELIVER_PUBLISH_EVERY 256
/* After delivering, the dispatch thread lingers this long for more events before it sleeps until
 * woken: while events keep coming, posters never pay for a wake-up. */
#define DISPATCH_LINGER_MS 10
/* ... unless this many are waiting (at most half the queue's capacity). */
#define DISPATCH_WAKE_BACKLOG 512
#define DROP_LOG_INTERVAL_MS (60 * 1000)
#define QUEUE_NAME "shared"

typedef struct qnode {
    struct qnode *next;
    uint64_t seq;
    cs_conf *conf; /* owned clone (environment update) */
    cs_event ev;
    _Alignas(8) char data[]; /* executor metrics, rdd infos, parent stage ids, stage ids, per-stage
                                task and parent counts, job-start parents, strings */
} qnode;

typedef struct listener_entry {
    listener_fn fn;
    void *arg;
} listener_entry;

struct listener_bus {
    pthread_mutex_t mu;
    pthread_cond_t cv_work; /* dispatch thread waits for events */
    pthread_cond_t cv_done; /* flushers wait for delivery */
    pthread_t thread;
    bool thread_started;
    bool stopping;
    bool dispatch_waiting;   /* in cv_work's wait: lingering or asleep */
    bool dispatch_lingering; /* the wait is timed: it collects events, no need to wake it */
    int flush_waiters;
    int64_t wake_backlog; /* a poster wakes a lingering dispatch thread at this many pending */

    qnode *head, *tail;
    int64_t capacity;
    int64_t pending;        /* queued + being delivered */
    uint64_t posted_seq;    /* seq of the last accepted event */
    uint64_t delivered_seq; /* seq of the last delivered event */

    int64_t dropped;          /* total */
    int64_t dropped_reported; /* total at the last report */
    int64_t last_report_ms;   /* wall clock of the last report, 0 = never */

    listener_entry listeners[MAX_LISTENERS];
    int nlisteners;

    event_log *elog;
    progress_bar *progress;
    stage_logger *slogger;
};

const char *cs_event_kind_name(cs_event_kind kind)
{
    return cs_json_protocol_event_name(kind);
}

/* ---- copying -------------------------------------------------------------------------------- */

static size_t slen(const char *s)
{
    return s ? strlen(s) + 1 : 0;
}

static const char *scopy(char **cursor, const char *s)
{
    if (!s) return NULL;
    size_t n = strlen(s) + 1;
    memcpy(*cursor, s, n);
    const char *out = *cursor;
    *cursor += n;
    return out;
}

static qnode *copy_event(const cs_event *ev)
{
    size_t ids = ev->stage_ids && ev->num_stage_ids > 0 ? (size_t)ev->num_stage_ids : 0;
    size_t tasks = ids && ev->stage_num_tasks ? ids : 0;
    size_t rdds = ev->rdd_infos && ev->num_rdd_infos > 0 ? (size_t)ev->num_rdd_infos : 0;
    size_t parents =
        ev->parent_stage_ids && ev->num_parent_stage_ids > 0 ? (size_t)ev->num_parent_stage_ids : 0;
    size_t nparents = ids && ev->stage_num_parents ? ids : 0, job_parents = 0;
    for (size_t i = 0; i < nparents; i++)
        job_parents += ev->stage_num_parents[i] > 0 ? (size_t)ev->stage_num_parents[i] : 0;
    if (!ev->stage_parents) job_parents = nparents = 0;
    size_t metrics = ev->exec_metrics ? sizeof(cs_executor_metrics) : 0;
    size_t reason = ev->end_reason ? (sizeof(cs_task_end_reason) + 7) & ~(size_t)7 : 0;
    size_t blocks =
        ev->updated_blocks && ev->num_updated_blocks > 0 ? (size_t)ev->num_updated_blocks : 0;
    size_t n = metrics + reason + blocks * sizeof(cs_block_status) + rdds * sizeof(cs_rdd_info) +
               (ids + tasks + parents + nparents + job_parents) * sizeof(int) +
               slen(ev->stage_name) + slen(ev->executor_id) + slen(ev->host) + slen(ev->reason) +
               slen(ev->task_type) + slen(ev->app_id) + slen(ev->app_name) + slen(ev->user) +
               slen(ev->sql_description) + slen(ev->sql_plan) + slen(ev->sql_plan_info);
    for (size_t i = 0; i < rdds; i++)
        n += slen(ev->rdd_infos[i].name) + slen(ev->rdd_infos[i].callsite);
    size_t names = ids && ev->stage_names ? ids : 0;
    size_t props =
        ev->job_properties && ev->num_job_properties > 0 ? 2 * (size_t)ev->num_job_properties : 0;
    n += (names + props) * sizeof(const char *);
    for (size_t i = 0; i < names; i++)
        n += slen(ev->stage_names[i]);
    for (size_t i = 0; i < props; i++)
        n += slen(ev->job_properties[i]);
    size_t accs = ev->accumulables && ev->num_accumulables > 0 ? (size_t)ev->num_accumulables : 0;
    n += accs * sizeof(cs_accumulable);
    for (size_t i = 0; i < accs; i++)
        n += slen(ev->accumulables[i].name) + slen(ev->accumulables[i].update) +
             slen(ev->accumulables[i].value);
    qnode *q = cs_xmalloc(sizeof *q + n);
    q->next = NULL;
    q->conf = NULL;
    q->ev = *ev;
    char *cur = q->data; /* 8-byte aligned things first: data[] is aligned for them */
    if (metrics) {
        memcpy(cur, ev->exec_metrics, metrics);
        q->ev.exec_metrics = (const cs_executor_metrics *)(void *)cur;
        cur += metrics;
    }
    const char **names_copy = NULL, **props_copy = NULL; /* pointer arrays: aligned here */
    if (names) {
        names_copy = (const char **)(void *)cur;
        cur += names * sizeof *names_copy;
    }
    if (props) {
        props_copy = (const char **)(void *)cur;
        cur += props * sizeof *props_copy;
    }
    q->ev.stage_names = names_copy;
    q->ev.job_properties = props_copy;
    q->ev.num_job_properties = (int)(props / 2);
    cs_accumulable *acc_copy = NULL;
    if (accs) {
        acc_copy = (cs_accumulable *)(void *)cur;
        memcpy(acc_copy, ev->accumulables, accs * sizeof *acc_copy);
        cur += accs * sizeof *acc_copy;
    }
    q->ev.accumulables = acc_copy;
    q->ev.num_accumulables = (int)accs;
    if (reason) { /* rounded up to 8 bytes: what follows stays aligned */
        memcpy(cur, ev->end_reason, sizeof(cs_task_end_reason));
        q->ev.end_reason = (const cs_task_end_reason *)(void *)cur;
        cur += reason;
    }
    if (blocks) { /* int64 fields and a size that keeps what follows aligned */
        memcpy(cur, ev->updated_blocks, blocks * sizeof(cs_block_status));
        q->ev.updated_blocks = (const cs_block_status *)(void *)cur;
        cur += blocks * sizeof(cs_block_status);
    } else {
        q->ev.updated_blocks = NULL;
        q->ev.num_updated_blocks = 0;
    }
    cs_rdd_info *infos = NULL;
    if (rdds) { /* its size keeps ints aligned */
        infos = (cs_rdd_info *)(void *)cur;
        memcpy(infos, ev->rdd_infos, rdds * sizeof *infos);
        cur += rdds * sizeof *infos;
    }
    q->ev.rdd_infos = infos;
    q->ev.num_rdd_infos = (int)rdds;
    if (parents) {
        memcpy(cur, ev->parent_stage_ids, parents * sizeof(int));
        q->ev.parent_stage_ids = (const int *)(void *)cur;
        cur += parents * sizeof(int);
    } else {
        q->ev.parent_stage_ids = NULL;
        q->ev.num_parent_stage_ids = 0;
    }
    if (ids) {
        memcpy(cur, ev->stage_ids, ids * sizeof(int));
        q->ev.stage_ids = (const int *)(void *)cur;
        cur += ids * sizeof(int);
    } else {
        q->ev.stage_ids = NULL;
        q->ev.num_stage_ids = 0;
    }
    if (tasks) {
        memcpy(cur, ev->stage_num_tasks, tasks * sizeof(int));
        q->ev.stage_num_tasks = (const int *)(void *)cur;
        cur += tasks * sizeof(int);
    } else {
        q->ev.stage_num_tasks = NULL;
    }
    if (nparents) {
        memcpy(cur, ev->stage_num_parents, nparents * sizeof(int));
        q->ev.stage_num_parents = (const int *)(void *)cur;
        cur += nparents * sizeof(int);
        memcpy(cur, ev->stage_parents, job_parents * sizeof(int));
        q->ev.stage_parents = (const int *)(void *)cur;
        cur += job_parents * sizeof(int);
    } else {
        q->ev.stage_num_parents = q->ev.stage_parents = NULL;
    }
    q->ev.stage_name = scopy(&cur, ev->stage_name);
    q->ev.executor_id = scopy(&cur, ev->executor_id);
    q->ev.host = scopy(&cur, ev->host);
    q->ev.reason = scopy(&cur, ev->reason);
    q->ev.task_type = scopy(&cur, ev->task_type);
    q->ev.app_id = scopy(&cur, ev->app_id);
    q->ev.app_name = scopy(&cur, ev->app_name);
    q->ev.user = scopy(&cur, ev->user);
    q->ev.sql_description = scopy(&cur, ev->sql_description);
    q->ev.sql_plan = scopy(&cur, ev->sql_plan);
    q->ev.sql_plan_info = scopy(&cur, ev->sql_plan_info);
    for (size_t i = 0; i < rdds; i++) {
        infos[i].name = scopy(&cur, ev->rdd_infos[i].name);
        infos[i].callsite = scopy(&cur, ev->rdd_infos[i].callsite);
    }
    for (size_t i = 0; i < names; i++)
        names_copy[i] = scopy(&cur, ev->stage_names[i]);
    for (size_t i = 0; i < props; i++)
        props_copy[i] = scopy(&cur, ev->job_properties[i]);
    for (size_t i = 0; i < accs; i++) {
        acc_copy[i].name = scopy(&cur, ev->accumulables[i].name);
        acc_copy[i].update = scopy(&cur, ev->accumulables[i].update);
        acc_copy[i].value = scopy(&cur, ev->accumulables[i].value);
    }
    if (ev->conf) {
        q->conf = cs_conf_clone(ev->conf);
        q->ev.conf = q->conf;
    }
    if (q->ev.time_ms == 0) q->ev.time_ms = cs_now_ms();
    return q;
}

static void free_node(qnode *q)
{
    if (q->conf) cs_conf_free(q->conf);
    free(q);
}

/* ---- dispatch ------------------------------------------------------------------------------- */

static void publish(listener_bus *bus, int64_t n, uint64_t seq)
{
    pthread_mutex_lock(&bus->mu);
    __atomic_store_n(&bus->pending, bus->pending - n, __ATOMIC_RELAXED);
    bus->delivered_seq = seq;
    if (bus->flush_waiters > 0) pthread_cond_broadcast(&bus->cv_done);
    pthread_mutex_unlock(&bus->mu);
}

/* Waits on cv_work until events or stop: a timed wait (linger) right after a delivery, so a
 * steady stream is collected in batches without a wake-up per event; an untimed one once a linger
 * found nothing. Called and returns with bus->mu held. */
static void dispatch_wait(listener_bus *bus, bool delivered)
{
    bool linger = delivered;
    while (!bus->head && !bus->stopping) {
        bus->dispatch_waiting = true;
        bus->dispatch_lingering = linger;
        if (linger) {
            cs_cond_wait_ms(&bus->cv_work, &bus->mu, DISPATCH_LINGER_MS);
            linger = false; /* nothing came in the window: sleep until woken */
        } else {
            pthread_cond_wait(&bus->cv_work, &bus->mu);
        }
        bus->dispatch_waiting = bus->dispatch_lingering = false;
    }
}

static void *dispatch_main(void *arg)
{
    listener_bus *bus = arg;
    bool delivered = false;
    for (;;) {
        pthread_mutex_lock(&bus->mu);
        dispatch_wait(bus, delivered);
        if (!bus->head) { /* stopping and drained */
            pthread_mutex_unlock(&bus->mu);
            break;
        }
        qnode *batch = bus->head;
        bus->head = bus->tail = NULL;
        int nl = bus->nlisteners;
        pthread_mutex_unlock(&bus->mu);

        int64_t n = 0;
        uint64_t seq = 0;
        while (batch) {
            qnode *q = batch;
            batch = q->next;
            for (int i = 0; i < nl; i++)
                bus->listeners[i].fn(bus->listeners[i].arg, &q->ev);
            seq = q->seq;
            free_node(q);
            if (++n == DELIVER_PUBLISH_EVERY) {
                publish(bus, n, seq);
                n = 0;
            }
        }
        if (n > 0) publish(bus, n, seq);
        delivered = true;
    }
    return NULL;
}

/* ---- public API ----------------------------------------------------------------------------- */

static void add_locked(listener_bus *bus, listener_fn fn, void *arg)
{
    if (bus->nlisteners >= MAX_LISTENERS) {
        CS_ERROR("listenerbus", "max=%d too many listeners; listener not added", MAX_LISTENERS);
        return;
    }
    bus->listeners[bus->nlisteners++] = (listener_entry){fn, arg};
}

listener_bus *cs_listener_bus_new(const cs_conf *conf, const char *app_id, const char *app_name,
                                  cs_error *err)
{
    listener_bus *bus = cs_xcalloc(1, sizeof *bus);
    pthread_mutex_init(&bus->mu, NULL);
    cs_cond_init_monotonic(&bus->cv_work); /* the linger's deadline */
    pthread_cond_init(&bus->cv_done, NULL);

    bool log_enabled = false, show_progress = true;
    int64_t interval_ms = 200;
    bus->capacity = 10000;
    if (conf) {
        if (cs_conf_get_int(conf, "spark.scheduler.listenerbus.eventqueue.capacity", "10000",
                            &bus->capacity, err) < 0)
            goto fail;
        if (bus->capacity <= 0) {
            cs_error_set(err, CS_EINVAL,
                         "invalid value for spark.scheduler.listenerbus.eventqueue.capacity: "
                         "'%s' (expected a positive number of events)",
                         cs_conf_get(conf, "spark.scheduler.listenerbus.eventqueue.capacity"));
            goto fail;
        }
        if (cs_conf_get_bool(conf, "spark.eventLog.enabled", "false", &log_enabled, err) < 0)
            goto fail;
        if (cs_conf_get_bool(conf, "spark.ui.showConsoleProgress", "true", &show_progress, err) < 0)
            goto fail;
        if (cs_conf_get_duration_ms(conf, "spark.ui.consoleProgress.update.interval", "200", CS_MS,
                                    &interval_ms, err) < 0)
            goto fail;
    }
    bus->wake_backlog =
        bus->capacity / 2 < DISPATCH_WAKE_BACKLOG ? bus->capacity / 2 : DISPATCH_WAKE_BACKLOG;
    if (bus->wake_backlog < 1) bus->wake_backlog = 1;
    if (log_enabled) {
        bus->elog = cs_event_log_open(conf, app_id, err);
        if (!bus->elog) goto fail;
        add_locked(bus, cs_event_log_listener, bus->elog);
    }
    if (show_progress && isatty(STDERR_FILENO)) {
        bus->progress = cs_progress_new(STDERR_FILENO, interval_ms, PROGRESS_FIRST_DELAY_MS, 0);
        if (bus->progress) add_locked(bus, cs_progress_listener, bus->progress);
    }
    if (!bus->progress) {
        bus->slogger = cs_stage_logger_new();
        add_locked(bus, cs_stage_logger_listener, bus->slogger);
    }
    if (pthread_create(&bus->thread, NULL, dispatch_main, bus) != 0) {
        cs_error_set(err, CS_ENOMEM, "listener bus: cannot start the dispatch thread");
        goto fail;
    }
    bus->thread_started = true;
    (void)app_name;
    return bus;
fail:
    if (bus->elog) {
        /* nothing was written but LogStart: remove the half-created file */
        const char *p = cs_event_log_path(bus->elog);
        char *copy = p ? cs_xstrdup(p) : NULL;
        cs_event_log_close(bus->elog, NULL);
        if (copy) {
            size_t n = strlen(copy);
            if (n > 11 && strcmp(copy + n - 11, ".inprogress") == 0) {
                copy[n - 11] = '\0';
                unlink(copy);
            }
            free(copy);
        }
    }
    cs_progress_free(bus->progress);
    cs_stage_logger_free(bus->slogger);
    pthread_cond_destroy(&bus->cv_done);
    pthread_cond_destroy(&bus->cv_work);
    pthread_mutex_destroy(&bus->mu);
    free(bus);
    return NULL;
}

void cs_listener_bus_add(listener_bus *bus, listener_fn fn, void *arg)
{
    if (!bus || !fn) return;
    pthread_mutex_lock(&bus->mu);
    add_locked(bus, fn, arg);
    pthread_mutex_unlock(&bus->mu);
}

static void format_since(int64_t ms, char *buf, size_t cap)
{
    if (ms == 0) {
        snprintf(buf, cap, "the application started");
        return;
    }
    time_t t = (time_t)(ms / 1000);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, cap, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* The events that come by the thousand a second (a task's start and end, heartbeats' metrics,
 * cached blocks): these may wait for a lingering dispatch thread. Job, stage, executor and
 * application events are delivered at once, so the stage log lines and the UI follow the job as
 * it runs. */
static bool is_task_event(cs_event_kind kind)
{
    return kind == CS_EV_TASK_START || kind == CS_EV_TASK_END || kind == CS_EV_EXECUTOR_METRICS ||
           kind == CS_EV_BLOCK_UPDATED;
}

void cs_listener_bus_post(listener_bus *bus, const cs_event *ev)
{
    if (!bus || !ev) return;
    /* Cheap pre-check so an overloaded bus does not pay for copies it will drop. */
    if (__atomic_load_n(&bus->pending, __ATOMIC_RELAXED) >= bus->capacity) {
        pthread_mutex_lock(&bus->mu);
        if (bus->pending >= bus->capacity) goto drop_locked;
        pthread_mutex_unlock(&bus->mu);
    }
    qnode *q = copy_event(ev);
    pthread_mutex_lock(&bus->mu);
    if (bus->pending >= bus->capacity || bus->stopping) {
        free_node(q);
        goto drop_locked;
    }
    __atomic_store_n(&bus->pending, bus->pending + 1, __ATOMIC_RELAXED);
    q->seq = ++bus->posted_seq;
    if (bus->tail)
        bus->tail->next = q;
    else
        bus->head = q;
    bus->tail = q;
    if (bus->dispatch_waiting && (!bus->dispatch_lingering || !is_task_event(ev->kind) ||
                                  bus->pending >= bus->wake_backlog)) {
        bus->dispatch_waiting = false; /* one wake-up is enough */
        pthread_cond_signal(&bus->cv_work);
    }
    pthread_mutex_unlock(&bus->mu);
    return;

drop_locked : {
    int64_t total = ++bus->dropped;
    bool first = total == 1;
    int64_t now = cs_now_ms();
    int64_t since_ms = bus->last_report_ms;
    int64_t increased = 0;
    if (now - bus->last_report_ms >= DROP_LOG_INTERVAL_MS) {
        increased = total - bus->dropped_reported;
        bus->dropped_reported = total;
        bus->last_report_ms = now;
    }
    pthread_mutex_unlock(&bus->mu);
    if (first)
        CS_ERROR("listenerbus",
                 "queue=" QUEUE_NAME " capacity=%lld Dropping event from queue " QUEUE_NAME
                 ". This likely means one of the listeners is too slow and cannot keep up with "
                 "the rate at which tasks are being started by the scheduler.",
                 (long long)bus->capacity);
    if (increased > 0) {
        char since[64];
        format_since(since_ms, since, sizeof since);
        CS_WARN("listenerbus",
                "queue=" QUEUE_NAME " dropped=%lld total_dropped=%lld Dropped %lld "
                "events from " QUEUE_NAME " since %s.",
                (long long)increased, (long long)total, (long long)increased, cs_log_value(since));
    }
}
}

void cs_listener_bus_flush(listener_bus *bus)
{
    if (!bus || !bus->thread_started) return;
    if (pthread_equal(pthread_self(), bus->thread))
        return; /* a listener flushing would wait for itself */
    pthread_mutex_lock(&bus->mu);
    uint64_t target = bus->posted_seq;
    if (bus->head && bus->dispatch_waiting) { /* lingering over what we wait for */
        bus->dispatch_waiting = false;
        pthread_cond_signal(&bus->cv_work);
    }
    bus->flush_waiters++;
    while (bus->delivered_seq < target)
        pthread_cond_wait(&bus->cv_done, &bus->mu);
    bus->flush_waiters--;
    pthread_mutex_unlock(&bus->mu);
}

int64_t cs_listener_bus_dropped(listener_bus *bus)
{
    if (!bus) return 0;
    pthread_mutex_lock(&bus->mu);
    int64_t d = bus->dropped;
    pthread_mutex_unlock(&bus->mu);
    return d;
}

const char *cs_listener_bus_event_log_path(const listener_bus *bus)
{
    return bus && bus->elog ? cs_event_log_path(bus->elog) : NULL;
}

void cs_listener_bus_free(listener_bus *bus)
{
    if (!bus) return;
    cs_listener_bus_flush(bus);
    pthread_mutex_lock(&bus->mu);
    bus->stopping = true;
    pthread_cond_signal(&bus->cv_work);
    pthread_mutex_unlock(&bus->mu);
    if (bus->thread_started) pthread_join(bus->thread, NULL);
    /* events posted concurrently with free (none should be) were drained by the thread */
    if (bus->elog) {
        cs_error e = {0};
        if (cs_event_log_close(bus->elog, &e) < 0)
            CS_WARN("eventlog", "error=%s", cs_log_quote(e.msg));
    }
    cs_progress_free(bus->progress);
    cs_stage_logger_free(bus->slogger);
    if (bus->dropped > 0)
        CS_WARN("listenerbus", "queue=" QUEUE_NAME " total_dropped=%lld events were dropped",
                (long long)bus->dropped);
    pthread_cond_destroy(&bus->cv_done);
    pthread_cond_destroy(&bus->cv_work);
    pthread_mutex_destroy(&bus->mu);
    free(bus);
}
