/*
 * shuffle_migration.c — copies map outputs of a decommissioning executor into this executor's
 * local directory, block by block, and runs MigrateShuffle requests on a thread of their own
 * (see shuffle_migration.h). Every block's checksum is verified before it is written. The files
 * it writes have exactly the layout shuffle_writer.c
 * commits (data file of concatenated reduce segments, index of prefix sums), so nothing
 * downstream can tell a migrated output from one computed here. A migration with a fallback
 * storage copies this executor's own outputs there instead (fallback_storage.c). Owned by the
 * executor's
 * decommissioning code (src/exec/executor.c calls it).
 */
#define _GNU_SOURCE
#include "exec/shuffle_migration.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/fsutil.h"
#include "common/log.h"
#include "common/serial_worker.h"
#include "records/recio.h"

/* ---- one map output -------------------------------------------------------------------------- */

static int write_full(int fd, const uint8_t *p, size_t n)
{
    while (n > 0) {
        ssize_t k = write(fd, p, n);
        if (k < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        p += k;
        n -= (size_t)k;
    }
    return 0;
}

/* Appends every non-empty block of st to fd, in reduce order, one block in memory at a time;
 * lens[r] = block r's length (the map status only estimates it). */
static int copy_blocks(const shuffle_block_source *src, const cs_map_status *st, int fd,
                       const char *path, uint64_t *lens, const atomic_int *cancel, cs_error *err)
{
    for (int r = 0; r < st->num_reduces; r++) {
        if (cancel && *cancel)
            return cs_error_set(err, CS_ECANCELLED,
                                "shuffle %d map %d: not copied, the executor is stopping",
                                st->shuffle_id, st->map_id);
        if (cs_map_status_block_empty(st, r)) continue;
        uint8_t *block = NULL;
        size_t len = 0;
        int rc = src->fetch(src->arg, st, r, &block, &len, err);
        if (rc < 0) {
            free(block);
            return rc; /* the source's message names the block and the peer */
        }
        lens[r] = len;
        if (!cs_map_status_size_agrees(st, r, len))
            rc = cs_error_set(err, CS_EPROTO,
                              "shuffle %d map %d reduce %d from executor %s: fetched %zu bytes, "
                              "the map status says about %llu",
                              st->shuffle_id, st->map_id, r, st->executor_id, len,
                              (unsigned long long)cs_map_status_size(st, r));
        /* every block's checksum, before the copy is trusted: a block damaged on the leaving
         * executor's disk or on the wire is not made into a healthy-looking output here */
        if (rc == 0 && cs_recio_verify(block, len, err) < 0)
            rc = cs_error_prefix(err, "shuffle %d map %d reduce %d from executor %s",
                                 st->shuffle_id, st->map_id, r, st->executor_id);
        if (rc == 0 && write_full(fd, block, len) < 0)
            rc = cs_error_set(err, CS_EIO, "cannot write %s: %s", path, strerror(errno));
        free(block);
        if (rc < 0) return rc;
    }
    return 0;
}

/* Writes the index of st's blocks of lengths lens (num_reduces + 1 big-endian offsets) to fd. */
static int write_index(const cs_map_status *st, const uint64_t *lens, int fd, const char *path,
                       cs_error *err)
{
    size_t n = (size_t)st->num_reduces + 1;
    uint8_t *buf = cs_xmalloc(n * 8);
    uint64_t off = 0;
    for (size_t i = 0; i < n; i++) {
        for (int b = 0; b < 8; b++)
            buf[i * 8 + (size_t)b] = (uint8_t)(off >> (56 - 8 * b));
        if (i < (size_t)st->num_reduces) off += lens[i];
    }
    int rc = 0;
    if (write_full(fd, buf, n * 8) < 0)
        rc = cs_error_set(err, CS_EIO, "cannot write %s: %s", path, strerror(errno));
    free(buf);
    return rc;
}

int cs_shuffle_migrate_output(const shuffle_block_source *src, const cs_map_status *st,
                              const char *local_dir, const atomic_int *cancel, cs_error *err)
{
    if (!src || !src->fetch || !st || !local_dir || st->num_reduces < 0 ||
        (st->num_reduces > 0 && !st->blocks))
        return cs_error_set(err, CS_EINVAL, "shuffle migration: bad arguments");
    uint64_t *lens = cs_xcalloc((size_t)st->num_reduces + 1, sizeof *lens);
    char data[4096], index[4096], tmp_data[4096], tmp_index[4096];
    cs_shuffle_file_paths(local_dir, st->shuffle_id, st->map_id, data, index, sizeof data);
    tmp_data[0] = tmp_index[0] = '\0';
    int dfd = -1, ifd = -1, rc = 0;
    bool data_renamed = false;

    dfd = cs_temp_file_beside(tmp_data, sizeof tmp_data, data, err);
    if (dfd < 0) {
        rc = dfd;
        goto done;
    }
    rc = copy_blocks(src, st, dfd, tmp_data, lens, cancel, err);
    if (rc < 0) goto done;
    int crc = close(dfd);
    dfd = -1;
    if (crc < 0) {
        rc = cs_error_set(err, CS_EIO, "cannot write %s: %s", tmp_data, strerror(errno));
        goto done;
    }
    ifd = cs_temp_file_beside(tmp_index, sizeof tmp_index, index, err);
    if (ifd < 0) {
        rc = ifd;
        goto done;
    }
    rc = write_index(st, lens, ifd, tmp_index, err);
    if (rc < 0) goto done;
    crc = close(ifd);
    ifd = -1;
    if (crc < 0) {
        rc = cs_error_set(err, CS_EIO, "cannot write %s: %s", tmp_index, strerror(errno));
        goto done;
    }
    /* data first, index last: the index is what makes the output readable */
    if (rename(tmp_data, data) < 0) {
        rc = cs_error_set(err, CS_EIO, "cannot rename %s to %s: %s", tmp_data, data,
                          strerror(errno));
        goto done;
    }
    tmp_data[0] = '\0';
    data_renamed = true;
    if (rename(tmp_index, index) < 0) {
        rc = cs_error_set(err, CS_EIO, "cannot rename %s to %s: %s", tmp_index, index,
                          strerror(errno));
        goto done;
    }
    tmp_index[0] = '\0';

done:
    free(lens);
    if (dfd >= 0) close(dfd);
    if (ifd >= 0) close(ifd);
    if (tmp_data[0]) unlink(tmp_data);
    if (tmp_index[0]) unlink(tmp_index);
    if (rc < 0 && data_renamed) {
        /* the data file replaced whatever was there: an older index no longer matches it */
        unlink(data);
        unlink(index);
    }
    return rc;
}

/* ---- migrations -------------------------------------------------------------------------- */

shuffle_migration *cs_shuffle_migration_new(int num_items)
{
    shuffle_migration *m = cs_xcalloc(1, sizeof *m);
    m->num_items = num_items > 0 ? num_items : 0;
    m->items = cs_xcalloc((size_t)m->num_items + 1, sizeof *m->items);
    return m;
}

void cs_shuffle_migration_free(shuffle_migration *m)
{
    if (!m) return;
    for (int i = 0; i < m->num_items; i++)
        cs_map_status_free(&m->items[i].st);
    free(m->items);
    free(m);
}

struct shuffle_migrator {
    shuffle_block_source src;
    const char *local_dir;
    char *log_id;
    shuffle_migration_done_fn done;
    void *arg;
    cs_serial_worker *worker; /* runs one MigrateShuffle after another; its flag cancels a copy */
};

static void run_one(void *arg, void *item, const atomic_int *stopping)
{
    shuffle_migrator *mg = arg;
    shuffle_migration *m = item;
    for (int i = 0; i < m->num_items; i++) {
        shuffle_migration_item *it = &m->items[i];
        const cs_map_status *st = &it->st;
        if (it->rc == 0) {
            cs_error err;
            cs_error_clear(&err);
            it->rc = m->fallback
                         ? cs_fallback_storage_copy(m->fallback, mg->local_dir, st, &err)
                         : cs_shuffle_migrate_output(&mg->src, st, mg->local_dir, stopping, &err);
            if (it->rc < 0 && !m->error[0]) snprintf(m->error, sizeof m->error, "%s", err.msg);
            if (it->rc < 0) {
                CS_WARN("executor",
                        "executor=%s event=shuffle_migration_failed shuffle=%d map=%d from=%s "
                        "error=%s",
                        mg->log_id, st->shuffle_id, st->map_id, cs_log_value(st->executor_id),
                        cs_log_quote(err.msg));
                continue;
            }
            uint64_t bytes = cs_map_status_total_size(st); /* about: sizes are estimates */
            CS_INFO("executor",
                    "executor=%s event=shuffle_migrated shuffle=%d map=%d from=%s bytes=%llu%s",
                    mg->log_id, st->shuffle_id, st->map_id, cs_log_value(st->executor_id),
                    (unsigned long long)bytes, m->fallback ? " to=fallback_storage" : "");
        }
    }
    if (!*stopping) mg->done(mg->arg, m);
}

static void free_migration(void *item)
{
    cs_shuffle_migration_free(item);
}

shuffle_migrator *cs_shuffle_migrator_new(const shuffle_block_source *src, const char *local_dir,
                                          const char *log_id, shuffle_migration_done_fn done,
                                          void *arg, cs_error *err)
{
    if (!src || !src->fetch || !local_dir || !done) {
        cs_error_set(err, CS_EINVAL, "shuffle migrator: bad arguments");
        return NULL;
    }
    shuffle_migrator *mg = cs_xcalloc(1, sizeof *mg);
    mg->src = *src;
    mg->local_dir = local_dir;
    mg->log_id = cs_xstrdup(log_id ? log_id : "");
    mg->done = done;
    mg->arg = arg;
    mg->worker = cs_serial_worker_new("shuffle migration", run_one, free_migration, mg, err);
    if (!mg->worker) {
        free(mg->log_id);
        free(mg);
        return NULL;
    }
    return mg;
}

void cs_shuffle_migrator_submit(shuffle_migrator *mg, shuffle_migration *m)
{
    cs_serial_worker_submit(mg->worker, m);
}

void cs_shuffle_migrator_free(shuffle_migrator *mg)
{
    if (!mg) return;
    cs_serial_worker_free(mg->worker);
    free(mg->log_id);
    free(mg);
}
