/* history_provider.c — the event log directory as applications and stores (see
 * history_provider.h).
 *
 * State under the mutex: `logs`, one entry per log file with its size, mtime and summary; `cache`,
 * the stores built so far, each with the size/mtime it was built from, a reference count and a
 * last-use tick. acquire finds the log of an application id (the newest log when an id appears
 * twice, e.g. an .inprogress left next to the finished log), returns the cached store when the
 * file is unchanged, else replays the file into a new store without holding the mutex and
 * publishes it (a store still referenced by readers is freed by the last release). Applications
 * are listed and served under a URL-safe form of their id (url_safe_app_id).
 */
#include "history/history_provider.h"

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/fsutil.h"
#include "common/log.h"
#include "history/event_replay.h"
#include "sched/event_log_reader.h"

typedef struct log_entry {
    char *path;
    int64_t size, mtime_ms;
    bool inprogress;
    replay_summary sum;
    bool seen; /* during a scan */
} log_entry;

typedef struct cached {
    char *path;
    int64_t size, mtime_ms;
    ui_store *store;
    int refs;
    uint64_t used;
} cached;

struct history_provider {
    pthread_mutex_t lock;
    char *dir;
    int retained;
    log_entry *logs;
    size_t nlogs, caplogs;
    cached **cache;
    size_t ncache, capcache;
    cached **dropped; /* evicted or replaced while readers held them: freed at the last release */
    size_t ndropped, capdropped;
    uint64_t tick;
    history_remove_fn remove; /* the cleaner's first step, when set */
    void *remove_arg;
};

/* The id an application is listed and served under: the log's spark.app.id with every byte
 * other than a letter, digit, '-', '_' or '.' made '-', and a leading '.' made '_'. Logs written
 * by other tools may carry ids with '/', '?', '%' or control bytes, which would make the
 * application listed but unreachable (/history/<id>/...) or its URLs point elsewhere. */
static void url_safe_app_id(char **id)
{
    if (!**id) {
        free(*id);
        *id = cs_xstrdup("_");
        return;
    }
    for (char *p = *id; *p; p++) {
        char ch = *p;
        if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
              ch == '-' || ch == '_' || ch == '.'))
            *p = '-';
    }
    if (**id == '.') **id = '_';
}

history_provider *cs_history_provider_new(const char *dir, int retained_apps)
{
    history_provider *hp = cs_xcalloc(1, sizeof *hp);
    pthread_mutex_init(&hp->lock, NULL);
    hp->dir = cs_xstrdup(dir);
    hp->retained = retained_apps > 0 ? retained_apps : 50;
    return hp;
}

static void entry_free(log_entry *e)
{
    free(e->path);
    cs_replay_summary_free(&e->sum);
}

static void cached_free(cached *c)
{
    cs_ui_store_free(c->store);
    free(c->path);
    free(c);
}

void cs_history_provider_free(history_provider *hp)
{
    if (!hp) return;
    for (size_t i = 0; i < hp->nlogs; i++)
        entry_free(&hp->logs[i]);
    free(hp->logs);
    for (size_t i = 0; i < hp->ncache; i++)
        cached_free(hp->cache[i]);
    free(hp->cache);
    for (size_t i = 0; i < hp->ndropped; i++)
        cached_free(hp->dropped[i]);
    free(hp->dropped);
    free(hp->dir);
    pthread_mutex_destroy(&hp->lock);
    free(hp);
}

/* ---- scanning ----------------------------------------------------------------------------- */

static log_entry *find_log(history_provider *hp, const char *path)
{
    for (size_t i = 0; i < hp->nlogs; i++)
        if (strcmp(hp->logs[i].path, path) == 0) return &hp->logs[i];
    return NULL;
}

int cs_history_provider_scan(history_provider *hp, cs_error *err)
{
    DIR *d = opendir(hp->dir);
    if (!d)
        return cs_error_set(err, CS_EIO, "cannot list the event log directory %s: %s", hp->dir,
                            strerror(errno));
    pthread_mutex_lock(&hp->lock);
    for (size_t i = 0; i < hp->nlogs; i++)
        hp->logs[i].seen = false;
    pthread_mutex_unlock(&hp->lock);
    struct dirent *de;
    while ((de = readdir(d))) {
        if (de->d_name[0] == '.') continue;
        char path[4096];
        if ((size_t)snprintf(path, sizeof path, "%s/%s", hp->dir, de->d_name) >= sizeof path)
            continue;
        cs_event_log_info info; /* a file, or a rolled log's directory */
        cs_error e1 = {0};
        if (cs_event_log_info_read(path, &info, &e1) < 0 || !info.is_log) continue;
        int64_t mtime = info.mtime_ms;
        pthread_mutex_lock(&hp->lock);
        log_entry *e = find_log(hp, path);
        bool fresh = e && e->size == info.size && e->mtime_ms == mtime;
        if (e) e->seen = true;
        pthread_mutex_unlock(&hp->lock);
        if (fresh) continue;
        replay_summary sum;
        cs_error e2 = {0};
        if (cs_replay_summary_read(path, &sum, &e2) < 0) {
            CS_WARN("history", "path=%s event=unreadable error=%s", cs_log_value(path),
                    cs_log_quote(e2.msg));
            continue;
        }
        if (!sum.app_id) { /* not (yet) an application's log */
            cs_replay_summary_free(&sum);
            continue;
        }
        url_safe_app_id(&sum.app_id);
        pthread_mutex_lock(&hp->lock);
        e = find_log(hp, path);
        if (!e) {
            if (hp->nlogs == hp->caplogs) {
                hp->caplogs = hp->caplogs ? 2 * hp->caplogs : 16;
                hp->logs = cs_xrealloc(hp->logs, hp->caplogs * sizeof *hp->logs);
            }
            e = &hp->logs[hp->nlogs++];
            memset(e, 0, sizeof *e);
            e->path = cs_xstrdup(path);
        }
        cs_replay_summary_free(&e->sum);
        e->sum = sum;
        e->size = info.size;
        e->mtime_ms = mtime;
        e->inprogress = info.inprogress;
        e->seen = true;
        pthread_mutex_unlock(&hp->lock);
    }
    closedir(d);
    pthread_mutex_lock(&hp->lock);
    size_t w = 0;
    for (size_t r = 0; r < hp->nlogs; r++) {
        if (hp->logs[r].seen)
            hp->logs[w++] = hp->logs[r];
        else
            entry_free(&hp->logs[r]); /* the file is gone */
    }
    hp->nlogs = w;
    pthread_mutex_unlock(&hp->lock);
    return 0;
}

/* ---- the cleaner (Spark's cleanLogs) ------------------------------------------------------ */

/* By last update; logs updated in the same instant (an object store's times are whole seconds)
 * by their applications' start, then path, so the cleaner's choice never depends on list order. */
static int oldest_first(const void *a, const void *b)
{
    const log_entry *x = *(const log_entry *const *)a, *y = *(const log_entry *const *)b;
    if (x->mtime_ms != y->mtime_ms) return x->mtime_ms > y->mtime_ms ? 1 : -1;
    if (x->sum.start_ms != y->sum.start_ms) return x->sum.start_ms > y->sum.start_ms ? 1 : -1;
    return strcmp(x->path, y->path);
}

int cs_history_provider_clean(history_provider *hp, int64_t now_ms, int64_t max_age_ms,
                              int64_t max_num)
{
    pthread_mutex_lock(&hp->lock);
    size_t n = hp->nlogs;
    log_entry **order = cs_xcalloc(n + 1, sizeof *order);
    for (size_t i = 0; i < n; i++) {
        order[i] = &hp->logs[i];
        order[i]->seen = true; /* kept */
    }
    qsort(order, n, sizeof *order, oldest_first);
    size_t left = n;
    for (size_t i = 0; i < n; i++)
        if (order[i]->mtime_ms < now_ms - max_age_ms) {
            order[i]->seen = false;
            left--;
        }
    for (size_t i = 0; i < n && (int64_t)left > max_num; i++)
        if (order[i]->seen && !order[i]->inprogress && order[i]->sum.ended) {
            order[i]->seen = false;
            left--;
        }
    free(order);
    int deleted = 0;
    size_t w = 0;
    for (size_t r = 0; r < hp->nlogs; r++) {
        log_entry *e = &hp->logs[r];
        if (e->seen) {
            hp->logs[w++] = *e;
            continue;
        }
        struct stat st;
        bool dir = stat(e->path, &st) == 0 && S_ISDIR(st.st_mode);
        if (hp->remove && hp->remove(hp->remove_arg, e->path, dir) != 0) {
            hp->logs[w++] = *e; /* kept: tried again at the next run */
            continue;
        }
        if (dir ? cs_remove_tree(e->path) == 0 : unlink(e->path) == 0 || errno == ENOENT) {
            CS_INFO("history", "path=%s event=log_deleted Deleting expired event log",
                    cs_log_value(e->path));
            deleted++;
        } else {
            CS_WARN("history", "path=%s event=log_delete_failed error=%s", cs_log_value(e->path),
                    cs_log_quote(strerror(errno)));
        }
        entry_free(e);
    }
    hp->nlogs = w;
    pthread_mutex_unlock(&hp->lock);
    return deleted;
}

void cs_history_provider_set_remover(history_provider *hp, history_remove_fn fn, void *arg)
{
    pthread_mutex_lock(&hp->lock);
    hp->remove = fn;
    hp->remove_arg = arg;
    pthread_mutex_unlock(&hp->lock);
}

/* ---- the ui_provider ---------------------------------------------------------------------- */

static int entry_newer(const void *a, const void *b)
{
    const ui_app_entry *x = a, *y = b;
    return (x->start_ms < y->start_ms) - (x->start_ms > y->start_ms);
}

static size_t hp_list(void *arg, ui_app_entry **out)
{
    history_provider *hp = arg;
    pthread_mutex_lock(&hp->lock);
    ui_app_entry *a = cs_xcalloc(hp->nlogs + 1, sizeof *a);
    size_t n = 0;
    for (size_t i = 0; i < hp->nlogs; i++) {
        const log_entry *e = &hp->logs[i];
        /* a finished log and an .inprogress left over for the same id: show the finished one */
        bool shadowed = false;
        for (size_t j = 0; j < hp->nlogs && e->inprogress; j++)
            shadowed |= j != i && !hp->logs[j].inprogress &&
                        strcmp(hp->logs[j].sum.app_id, e->sum.app_id) == 0;
        if (shadowed) continue;
        ui_app_entry *x = &a[n++];
        x->id = cs_xstrdup(e->sum.app_id);
        x->name = cs_xstrdup(e->sum.app_name ? e->sum.app_name : "");
        x->user = cs_xstrdup(e->sum.user ? e->sum.user : "");
        x->version = e->sum.spark_version ? cs_xstrdup(e->sum.spark_version) : NULL;
        x->log_path = cs_xstrdup(e->path);
        x->start_ms = e->sum.start_ms;
        x->end_ms = e->sum.ended ? e->sum.end_ms : 0;
        x->completed = e->sum.ended && !e->inprogress;
        x->last_updated_ms = e->mtime_ms;
    }
    pthread_mutex_unlock(&hp->lock);
    qsort(a, n, sizeof *a, entry_newer);
    *out = a;
    return n;
}

/* c left the cache: freed now, or by the last release when readers hold it. */
static void drop_locked(history_provider *hp, cached *c)
{
    if (c->refs == 0) {
        cached_free(c);
        return;
    }
    if (hp->ndropped == hp->capdropped) {
        hp->capdropped = hp->capdropped ? 2 * hp->capdropped : 4;
        hp->dropped = cs_xrealloc(hp->dropped, hp->capdropped * sizeof *hp->dropped);
    }
    hp->dropped[hp->ndropped++] = c;
}

static void evict_locked(history_provider *hp)
{
    while (hp->ncache > (size_t)hp->retained) {
        size_t oldest = 0;
        for (size_t i = 1; i < hp->ncache; i++)
            if (hp->cache[i]->used < hp->cache[oldest]->used) oldest = i;
        cached *c = hp->cache[oldest];
        hp->cache[oldest] = hp->cache[--hp->ncache];
        drop_locked(hp, c);
    }
}

static ui_store *hp_acquire(void *arg, const char *app_id, int64_t *last_updated)
{
    history_provider *hp = arg;
    pthread_mutex_lock(&hp->lock);
    const log_entry *best = NULL;
    for (size_t i = 0; i < hp->nlogs; i++) {
        const log_entry *e = &hp->logs[i];
        if (strcmp(e->sum.app_id, app_id) != 0) continue;
        if (!best || (best->inprogress && !e->inprogress) ||
            (best->inprogress == e->inprogress && e->mtime_ms > best->mtime_ms))
            best = e;
    }
    if (!best) {
        pthread_mutex_unlock(&hp->lock);
        return NULL;
    }
    char *path = cs_xstrdup(best->path);
    int64_t size = best->size, mtime = best->mtime_ms;
    *last_updated = mtime;
    for (size_t i = 0; i < hp->ncache; i++) {
        cached *c = hp->cache[i];
        if (strcmp(c->path, path) == 0 && c->size == size && c->mtime_ms == mtime) {
            c->refs++;
            c->used = ++hp->tick;
            pthread_mutex_unlock(&hp->lock);
            free(path);
            return c->store;
        }
    }
    pthread_mutex_unlock(&hp->lock);

    /* build outside the lock: a large log takes a while */
    ui_store *st = cs_ui_store_new(NULL);
    char *version = NULL;
    cs_error err = {0};
    if (cs_replay_file(path, cs_ui_store_listener, st, &version, &err) < 0) {
        CS_WARN("history", "path=%s event=replay_failed error=%s", cs_log_value(path),
                cs_log_quote(err.msg));
        cs_ui_store_free(st);
        free(version);
        free(path);
        return NULL;
    }
    if (version) cs_ui_store_set_spark_version(st, version);
    free(version);
    cached *c = cs_xcalloc(1, sizeof *c);
    c->path = path;
    c->size = size;
    c->mtime_ms = mtime;
    c->store = st;
    c->refs = 1;
    pthread_mutex_lock(&hp->lock);
    c->used = ++hp->tick;
    for (size_t i = 0; i < hp->ncache; i++) /* an older build of the same log goes */
        if (strcmp(hp->cache[i]->path, path) == 0) {
            cached *old = hp->cache[i];
            hp->cache[i] = hp->cache[--hp->ncache];
            drop_locked(hp, old);
            break;
        }
    if (hp->ncache == hp->capcache) {
        hp->capcache = hp->capcache ? 2 * hp->capcache : 8;
        hp->cache = cs_xrealloc(hp->cache, hp->capcache * sizeof *hp->cache);
    }
    hp->cache[hp->ncache++] = c;
    evict_locked(hp);
    pthread_mutex_unlock(&hp->lock);
    CS_INFO("history", "app=%s path=%s event=loaded", cs_log_value(app_id), cs_log_value(c->path));
    return st;
}

static void hp_release(void *arg, ui_store *st)
{
    history_provider *hp = arg;
    pthread_mutex_lock(&hp->lock);
    for (size_t i = 0; i < hp->ncache; i++)
        if (hp->cache[i]->store == st) {
            hp->cache[i]->refs--;
            pthread_mutex_unlock(&hp->lock);
            return;
        }
    for (size_t i = 0; i < hp->ndropped; i++)
        if (hp->dropped[i]->store == st) {
            cached *c = hp->dropped[i];
            if (--c->refs == 0) {
                hp->dropped[i] = hp->dropped[--hp->ndropped];
                cached_free(c);
            }
            break;
        }
    pthread_mutex_unlock(&hp->lock);
}

ui_provider cs_history_provider_ui(history_provider *hp)
{
    return (ui_provider){hp, hp_list, hp_acquire, hp_release};
}
