/*
 * shuffle.c — partitioners, map statuses, shuffle file naming, index files, the local block
 * source and the reduce-side shuffle reader (see shuffle.h). The writer is shuffle_writer.c.
 * Called by the task runner (src/exec) and by the block server for index lookups.
 */
#include "shuffle/shuffle.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xxhash.h>

#include "common/err.h"
#include "common/log.h"
#include "records/recio.h"
#include "shuffle/external_sort.h"
#include "shuffle/spill.h"

int cs_ext_key_compare(const uint8_t *a, uint32_t alen, const uint8_t *b, uint32_t blen)
{
    uint32_t n = alen < blen ? alen : blen;
    int c = n ? memcmp(a, b, n) : 0;
    if (c) return c;
    return alen < blen ? -1 : alen > blen;
}

int cs_partitioner_get(const cs_partitioner *p, cspark_slice key, uint64_t key_hash)
{
    int n = p->num_partitions > 0 ? p->num_partitions : 1;
    if (p->kind == PART_RANGE) {
        /* first bound >= key */
        int lo = 0, hi = p->num_bounds;
        while (lo < hi) {
            int mid = (lo + hi) / 2;
            const cspark_slice *b = &p->bounds[mid];
            if (cs_ext_key_compare(b->ptr, b->len, key.ptr, key.len) < 0)
                lo = mid + 1;
            else
                hi = mid;
        }
        int part = lo < n ? lo : n - 1;
        return p->ascending ? part : n - 1 - part;
    }
    if (p->kind == PART_PASSTHROUGH) {
        if (key.len != 4) return 0;
        const uint8_t *k = key.ptr;
        uint32_t v = (uint32_t)k[0] << 24 | (uint32_t)k[1] << 16 | (uint32_t)k[2] << 8 | k[3];
        return (int)(v % (uint32_t)n);
    }
    return (int)(key_hash % (uint64_t)n);
}

int cs_shuffle_round_robin_start(int map_id, int num_partitions)
{
    if (num_partitions <= 1) return 0;
    uint32_t id = (uint32_t)map_id;
    return (int)(XXH3_64bits(&id, sizeof id) % (uint64_t)num_partitions);
}

int cs_shuffle_checksum_conf(const cs_conf *conf, cs_checksum_algo *out, cs_error *err)
{
    bool enabled = true;
    int rc = cs_conf_get_bool(conf, "spark.shuffle.checksum.enabled", "true", &enabled, err);
    if (rc < 0) return rc;
    const char *name = cs_conf_get(conf, "spark.shuffle.checksum.algorithm");
    cs_checksum_algo algo = CS_CHECKSUM_DEFAULT;
    if (name) {
        rc = cs_checksum_parse(name, &algo, err);
        if (rc < 0) return rc;
    }
    *out = enabled ? algo : CS_CHECKSUM_NONE;
    return 0;
}

void cs_shuffle_file_paths(const char *dir, int shuffle_id, int map_id, char *data, char *index,
                           size_t cap)
{
    if (data) snprintf(data, cap, "%s/shuffle_%d_%d_0.data", dir, shuffle_id, map_id);
    if (index) snprintf(index, cap, "%s/shuffle_%d_%d_0.index", dir, shuffle_id, map_id);
}

int cs_shuffle_remove_files(const char *dir, const int *ids, int n)
{
    DIR *d = n > 0 && dir ? opendir(dir) : NULL;
    if (!d) return 0;
    int removed = 0;
    for (struct dirent *de; (de = readdir(d));) {
        int sid = -1;
        if (sscanf(de->d_name, "shuffle_%d_", &sid) != 1) continue;
        bool listed = false;
        for (int i = 0; i < n && !listed; i++)
            listed = ids[i] == sid;
        if (!listed) continue;
        if (unlinkat(dirfd(d), de->d_name, 0) == 0)
            removed++;
        else if (errno != ENOENT)
            CS_WARN("shuffle", "event=shuffle_file_not_removed file=%s/%s reason=%s", dir,
                    de->d_name, cs_log_quote(strerror(errno)));
    }
    closedir(d);
    return removed;
}

int cs_shuffle_index_read(const char *dir, int shuffle_id, int map_id, int reduce_id,
                          uint64_t *offset, uint64_t *length, cs_error *err)
{
    char path[4096];
    cs_shuffle_file_paths(dir, shuffle_id, map_id, NULL, path, sizeof path);
    if (reduce_id < 0) return cs_error_set(err, CS_EINVAL, "bad reduce id %d", reduce_id);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return cs_error_set(err, errno == ENOENT ? CS_ENOTFOUND : CS_EIO, "cannot open %s: %s",
                            path, strerror(errno));
    uint8_t b[16];
    int rc = 0;
    ssize_t k;
    do {
        k = pread(fd, b, 16, (off_t)reduce_id * 8);
    } while (k < 0 && errno == EINTR);
    if (k < 0) {
        rc = cs_error_set(err, CS_EIO, "cannot read %s: %s", path, strerror(errno));
    } else if (k != 16) {
        rc = cs_error_set(err, CS_EPROTO, "%s: no entry for reduce partition %d", path, reduce_id);
    } else {
        uint64_t a = 0, e = 0;
        for (int i = 0; i < 8; i++) {
            a = (a << 8) | b[i];
            e = (e << 8) | b[8 + i];
        }
        if (e < a) {
            rc = cs_error_set(err, CS_EPROTO, "%s: corrupt index", path);
        } else {
            *offset = a;
            *length = e - a;
        }
    }
    close(fd);
    return rc;
}

/* ---- local block source ------------------------------------------------------------------ */

/* Where reduce_id's block of st's map output lies in its data file, by the index file, checked
 * against the size the map status reported. */
static int local_locate(const char *dir, const cs_map_status *st, int reduce_id, uint64_t *offp,
                        uint64_t *np, cs_error *err)
{
    uint64_t off = 0, n = 0;
    int rc = cs_shuffle_index_read(dir, st->shuffle_id, st->map_id, reduce_id, &off, &n, err);
    if (rc < 0) {
        cs_error_prefix(err, "shuffle %d map %d", st->shuffle_id, st->map_id);
        if (err) err->code = CS_EIO;
        return CS_EIO;
    }
    if (!cs_map_status_size_agrees(st, reduce_id, n))
        return cs_error_set(err, CS_EIO,
                            "shuffle %d map %d reduce %d: index says %llu bytes, map status about "
                            "%llu",
                            st->shuffle_id, st->map_id, reduce_id, (unsigned long long)n,
                            (unsigned long long)cs_map_status_size(st, reduce_id));
    *offp = off;
    *np = n;
    return 0;
}

static int local_open(void *arg, const cs_map_status *st, int reduce_id, int *fdp, uint64_t *offp,
                      uint64_t *lenp, cs_error *err)
{
    const char *dir = arg;
    uint64_t off = 0, n = 0;
    *fdp = -1;
    int rc = local_locate(dir, st, reduce_id, &off, &n, err);
    if (rc < 0) return rc;
    char path[4096];
    cs_shuffle_file_paths(dir, st->shuffle_id, st->map_id, path, NULL, sizeof path);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return cs_error_set(err, CS_EIO, "cannot open %s: %s", path, strerror(errno));
    *fdp = fd;
    *offp = off;
    *lenp = n;
    return 0;
}

static int local_fetch(void *arg, const cs_map_status *st, int reduce_id, uint8_t **out,
                       size_t *len, cs_error *err)
{
    const char *dir = arg;
    uint64_t off = 0, n = 0;
    *out = NULL;
    *len = 0;
    int rc = local_locate(dir, st, reduce_id, &off, &n, err);
    if (rc < 0) return rc;
    if (n == 0) return 0;
    char path[4096];
    cs_shuffle_file_paths(dir, st->shuffle_id, st->map_id, path, NULL, sizeof path);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return cs_error_set(err, CS_EIO, "cannot open %s: %s", path, strerror(errno));
    uint8_t *buf = cs_xmalloc((size_t)n);
    rc = cs_spill_pread_full(fd, buf, (size_t)n, off, err);
    close(fd);
    if (rc < 0) {
        free(buf);
        return cs_error_set(err, CS_EIO, "%s: segment of reduce %d unreadable", path, reduce_id);
    }
    *out = buf;
    *len = (size_t)n;
    return 0;
}

shuffle_block_source cs_shuffle_local_source(const char *dir)
{
    shuffle_block_source s;
    memset(&s, 0, sizeof s);
    s.fetch = local_fetch;
    s.arg = (void *)dir;
    s.open_range = local_open;
    return s;
}

/* ---- reader -------------------------------------------------------------------------------- */

struct shuffle_reader {
    const cs_map_status *const *maps;
    int num_maps;
    int reduce_id;
    shuffle_block_source src;
    int next_map; /* next map to fetch */
    int cur_map;  /* map of the segment being decoded, -1 none */
    uint8_t *seg;
    size_t seg_len;
    int seg_fd;
    void *stream; /* src.open_stream's handle */
    recio_reader *rd;
    cs_batch view;       /* next_view's batch: recs owned, data borrowed from rd */
    int cur_index;       /* index in maps[] of the segment being decoded, -1 none */
    uint64_t *map_bytes; /* per index: bytes of its segment read (segments done or dropped) */
};

shuffle_reader *cs_shuffle_reader_new(const cs_map_status *const *maps, int num_maps, int reduce_id,
                                      const shuffle_block_source *src, cs_error *err)
{
    if (num_maps < 0 || (num_maps > 0 && !maps) || !src || !src->fetch || reduce_id < 0) {
        cs_error_set(err, CS_EINVAL, "shuffle reader: bad arguments");
        return NULL;
    }
    shuffle_reader *r = cs_xcalloc(1, sizeof *r);
    r->maps = maps;
    r->num_maps = num_maps;
    r->reduce_id = reduce_id;
    r->src = *src;
    r->cur_map = -1;
    r->cur_index = -1;
    r->seg_fd = -1;
    r->map_bytes = cs_xcalloc((size_t)num_maps + 1, sizeof *r->map_bytes);
    return r;
}

static void drop_segment(shuffle_reader *r)
{
    if (r->rd && r->cur_index >= 0) r->map_bytes[r->cur_index] += cs_recio_reader_offset(r->rd);
    r->cur_index = -1;
    cs_recio_reader_free(r->rd);
    r->rd = NULL;
    free(r->seg);
    r->seg = NULL;
    r->seg_len = 0;
    if (r->stream) r->src.stream_close(r->stream);
    r->stream = NULL;
    if (r->seg_fd >= 0) close(r->seg_fd);
    r->seg_fd = -1;
    r->cur_map = -1;
}

/* Opens the next non-empty segment: 1 opened, 0 none left, <0 error (*failed_map_id set). */
static int next_segment(shuffle_reader *r, int *failed_map_id, cs_error *err)
{
    while (r->next_map < r->num_maps) {
        const cs_map_status *st = r->maps[r->next_map];
        if (!st) {
            if (failed_map_id) *failed_map_id = r->next_map;
            return cs_error_set(err, CS_EIO, "missing map output %d", r->next_map);
        }
        if (cs_map_status_block_empty(st, r->reduce_id)) {
            r->next_map++;
            continue;
        }
        break;
    }
    if (r->next_map >= r->num_maps) return 0;
    int index = r->next_map;
    const cs_map_status *st = r->maps[r->next_map++];
    int rc = CS_EUNSUPPORTED;
    if (r->src.open_range) {
        /* streamed from a local file; a source may decline (remote block) */
        int fd = -1;
        uint64_t off = 0, len = 0;
        rc = r->src.open_range(r->src.arg, st, r->reduce_id, &fd, &off, &len, err);
        if (rc == 0) {
            r->seg_fd = fd;
            r->rd = cs_recio_reader_fd(fd, off, len, 0);
        } else if (fd >= 0) {
            close(fd);
        }
        if (rc == CS_EUNSUPPORTED && err) cs_error_clear(err);
    }
    if (rc == CS_EUNSUPPORTED && r->src.open_stream) {
        /* decoded part by part as it arrives; a source may decline */
        void *stream = NULL;
        rc = r->src.open_stream(r->src.arg, st, r->reduce_id, &stream, err);
        if (rc == 0) {
            r->stream = stream;
            r->rd = cs_recio_reader_pull(r->src.stream_next, stream);
        }
        if (rc == CS_EUNSUPPORTED && err) cs_error_clear(err);
    }
    if (rc == CS_EUNSUPPORTED) {
        uint8_t *seg = NULL;
        size_t len = 0;
        rc = r->src.fetch(r->src.arg, st, r->reduce_id, &seg, &len, err);
        if (rc == 0) {
            r->seg = seg;
            r->seg_len = len;
            r->rd = cs_recio_reader_mem(seg, len);
        } else {
            free(seg);
        }
    }
    if (rc < 0) {
        if (failed_map_id) *failed_map_id = st->map_id;
        if (err && err->code == CS_OK) err->code = rc;
        return rc;
    }
    r->cur_map = st->map_id;
    r->cur_index = index;
    return 1;
}

/* A block of the current segment failed to read or decode (rc). */
static int block_failed(shuffle_reader *r, int rc, int *failed_map_id, cs_error *err)
{
    if (failed_map_id) *failed_map_id = r->cur_map;
    cs_error_prefix(err, "shuffle block of map %d reduce %d %s", r->cur_map, r->reduce_id,
                    rc == CS_EPROTO ? "corrupt" : "unreadable");
    drop_segment(r);
    if (err) err->code = CS_EIO;
    return CS_EIO;
}

int cs_shuffle_reader_next(shuffle_reader *r, cs_batch *out, int *failed_map_id, cs_error *err)
{
    size_t start = out->n;
    for (;;) {
        if (!r->rd) {
            int rc = next_segment(r, failed_map_id, err);
            if (rc < 0) return rc;
            if (rc == 0) return out->n > start ? 1 : 0;
        }
        int rc = cs_recio_reader_next_block(r->rd, out, err);
        if (rc < 0) return block_failed(r, rc, failed_map_id, err);
        if (rc == 0) {
            drop_segment(r);
            continue;
        }
        if (batch_full(out)) return 1;
    }
}

int cs_shuffle_reader_next_view(shuffle_reader *r, const cs_batch **out, int *failed_map_id,
                                cs_error *err)
{
    for (;;) {
        if (!r->rd) {
            int rc = next_segment(r, failed_map_id, err);
            if (rc <= 0) return rc;
        }
        int rc = cs_recio_reader_view_block(r->rd, &r->view, err);
        if (rc < 0) return block_failed(r, rc, failed_map_id, err);
        if (rc == 0) {
            drop_segment(r);
            continue;
        }
        *out = &r->view;
        return 1;
    }
}

uint64_t cs_shuffle_reader_map_bytes(const shuffle_reader *r, int map_index)
{
    if (!r || map_index < 0 || map_index >= r->num_maps) return 0;
    uint64_t n = r->map_bytes[map_index];
    if (map_index == r->cur_index && r->rd) n += cs_recio_reader_offset(r->rd);
    return n;
}

void cs_shuffle_reader_free(shuffle_reader *r)
{
    if (!r) return;
    drop_segment(r);
    free(r->map_bytes);
    r->view.data = NULL; /* borrowed */
    cs_batch_free(&r->view);
    free(r);
}
