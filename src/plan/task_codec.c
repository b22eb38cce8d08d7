/*
 * task_codec.c — TaskResult / MapStatus / TaskMetrics codecs (see task_codec.h). Record payloads
 * are written as uncompressed recio blocks directly into one exact-size buffer.
 */
#include "plan/task_codec.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "records/recio.h"
#include "plan/pb_helpers.h"

void cs_task_metrics_to_pb(const cs_task_metrics *m, Cspark__TaskMetrics *pb)
{
    cspark__task_metrics__init(pb);
    pb->run_time_ms = m->run_time_ms;
    pb->cpu_time_ns = m->cpu_time_ns;
    pb->result_size = m->result_size;
    pb->records_read = m->records_read;
    pb->bytes_read = m->bytes_read;
    pb->records_written = m->records_written;
    pb->bytes_written = m->bytes_written;
    pb->shuffle_bytes_written = m->shuffle_bytes_written;
    pb->shuffle_records_written = m->shuffle_records_written;
    pb->shuffle_bytes_read = m->shuffle_bytes_read;
    pb->shuffle_records_read = m->shuffle_records_read;
    pb->memory_bytes_spilled = m->memory_bytes_spilled;
    pb->disk_bytes_spilled = m->disk_bytes_spilled;
    pb->peak_execution_memory = m->peak_execution_memory;
    pb->shuffle_remote_bytes_read = m->shuffle_remote_bytes_read;
    pb->shuffle_local_blocks_fetched = m->shuffle_local_blocks_fetched;
    pb->shuffle_remote_blocks_fetched = m->shuffle_remote_blocks_fetched;
}

void cs_task_metrics_from_pb(const Cspark__TaskMetrics *pb, cs_task_metrics *m)
{
    memset(m, 0, sizeof *m);
    if (!pb) return;
    m->run_time_ms = pb->run_time_ms;
    m->cpu_time_ns = pb->cpu_time_ns;
    m->result_size = pb->result_size;
    m->records_read = pb->records_read;
    m->bytes_read = pb->bytes_read;
    m->records_written = pb->records_written;
    m->bytes_written = pb->bytes_written;
    m->shuffle_bytes_written = pb->shuffle_bytes_written;
    m->shuffle_records_written = pb->shuffle_records_written;
    m->shuffle_bytes_read = pb->shuffle_bytes_read;
    m->shuffle_records_read = pb->shuffle_records_read;
    m->memory_bytes_spilled = pb->memory_bytes_spilled;
    m->disk_bytes_spilled = pb->disk_bytes_spilled;
    m->peak_execution_memory = pb->peak_execution_memory;
    m->shuffle_remote_bytes_read = pb->shuffle_remote_bytes_read;
    m->shuffle_local_blocks_fetched = pb->shuffle_local_blocks_fetched;
    m->shuffle_remote_blocks_fetched = pb->shuffle_remote_blocks_fetched;
}

int cs_map_status_encode(const cs_map_status *st, Cspark__MapStatus *out, cs_error *err)
{
    cspark__map_status__init(out);
    if (!st) return cs_error_set(err, CS_EINVAL, "map status: NULL");
    int rc = cs_map_status_validate(st, err);
    if (rc < 0) {
        if (err) err->code = CS_EINVAL;
        return CS_EINVAL;
    }
    out->shuffle_id = st->shuffle_id;
    out->map_id = st->map_id;
    out->num_reduces = st->num_reduces;
    out->sizes_kind = st->sizes_kind;
    size_t n = cs_map_status_blocks_len(st->sizes_kind, st->num_reduces);
    out->blocks = cs_pb_bin_dup(st->blocks, n);
    out->avg_size = st->avg_size;
    if (st->num_huge > 0) {
        out->n_huge_ids = out->n_huge_sizes = (size_t)st->num_huge;
        out->huge_ids = cs_xmalloc((size_t)st->num_huge * sizeof *out->huge_ids);
        out->huge_sizes = cs_xmalloc((size_t)st->num_huge * sizeof *out->huge_sizes);
        for (int i = 0; i < st->num_huge; i++) {
            out->huge_ids[i] = st->huge[i].reduce_id;
            out->huge_sizes[i] = st->huge[i].size;
        }
    }
    out->has_raw = st->has_raw;
    if (st->raw_blocks) out->raw_blocks = cs_pb_bin_dup(st->raw_blocks, (size_t)st->num_reduces);
    out->raw_avg_size = st->raw_avg_size;
    if (st->has_raw && st->num_huge > 0) {
        out->n_huge_raw_sizes = (size_t)st->num_huge;
        out->huge_raw_sizes = cs_xmalloc((size_t)st->num_huge * sizeof *out->huge_raw_sizes);
        for (int i = 0; i < st->num_huge; i++)
            out->huge_raw_sizes[i] = st->huge[i].raw_size;
    }
    out->executor_id = cs_xstrndup(st->executor_id, sizeof st->executor_id - 1);
    out->host = cs_xstrndup(st->host, sizeof st->host - 1);
    out->port = st->port;
    out->records_written = st->records_written;
    out->bytes_written = st->bytes_written;
    return 0;
}

void cs_map_status_pb_clear(Cspark__MapStatus *pb)
{
    if (!pb) return;
    free(pb->blocks.data);
    free(pb->huge_ids);
    free(pb->huge_sizes);
    free(pb->raw_blocks.data);
    free(pb->huge_raw_sizes);
    if (pb->executor_id && pb->executor_id != protobuf_c_empty_string) free(pb->executor_id);
    if (pb->host && pb->host != protobuf_c_empty_string) free(pb->host);
    cspark__map_status__init(pb);
}

int cs_map_status_decode(const Cspark__MapStatus *pb, cs_map_status *out, cs_error *err)
{
    memset(out, 0, sizeof *out);
    if (!pb) return cs_error_set(err, CS_EPROTO, "map status missing");
    const char *eid = cs_pb_str(pb->executor_id), *host = cs_pb_str(pb->host);
    if (strlen(eid) >= sizeof out->executor_id || strlen(host) >= sizeof out->host ||
        pb->n_huge_ids != pb->n_huge_sizes || pb->n_huge_ids > (size_t)INT_MAX ||
        pb->num_reduces < 0 ||
        pb->blocks.len != cs_map_status_blocks_len(pb->sizes_kind, pb->num_reduces) ||
        (pb->n_huge_raw_sizes && pb->n_huge_raw_sizes != pb->n_huge_ids) ||
        (pb->raw_blocks.len && pb->raw_blocks.len != (size_t)pb->num_reduces))
        return cs_error_set(err, CS_EPROTO, "map status of shuffle %d map %d: bad field lengths",
                            pb->shuffle_id, pb->map_id);
    out->shuffle_id = pb->shuffle_id;
    out->map_id = pb->map_id;
    out->num_reduces = pb->num_reduces;
    out->sizes_kind = pb->sizes_kind;
    if (pb->blocks.len) out->blocks = cs_pb_memdup(pb->blocks.data, pb->blocks.len);
    out->avg_size = pb->avg_size;
    out->num_huge = (int)pb->n_huge_ids;
    if (out->num_huge) {
        out->huge = cs_xmalloc((size_t)out->num_huge * sizeof *out->huge);
        for (int i = 0; i < out->num_huge; i++)
            out->huge[i] = (cs_map_huge_block){pb->huge_ids[i], pb->huge_sizes[i],
                                               pb->n_huge_raw_sizes ? pb->huge_raw_sizes[i] : 0};
    }
    out->has_raw = pb->has_raw;
    if (pb->raw_blocks.len) out->raw_blocks = cs_pb_memdup(pb->raw_blocks.data, pb->raw_blocks.len);
    out->raw_avg_size = pb->raw_avg_size;
    strcpy(out->executor_id, eid);
    strcpy(out->host, host);
    out->port = pb->port;
    out->records_written = pb->records_written;
    out->bytes_written = pb->bytes_written;
    int rc = cs_map_status_validate(out, err);
    if (rc < 0) cs_map_status_free(out);
    return rc;
}

/* ---- task results ---------------------------------------------------------------------------- */

int cs_task_result_encode(const task_result *r, Cspark__TaskResult *out, cs_error *err)
{
    cspark__task_result__init(out);
    if (!r) return cs_error_set(err, CS_EINVAL, "task result: NULL");
    out->status = (int32_t)r->status;
    if (r->error) out->error = cs_xstrdup(r->error);
    out->plan_missing = r->plan_missing;
    out->fetch_shuffle_id = r->fetch_shuffle_id;
    out->fetch_map_id = r->fetch_map_id;
    out->data = cs_pb_records(&r->data);
    if (r->accum_updates.n) out->accum_updates = cs_pb_records(&r->accum_updates);
    out->count = r->count;
    if (r->has_map_status) {
        out->map_status = cs_xmalloc(sizeof *out->map_status);
        int rc = cs_map_status_encode(&r->map_status, out->map_status, err);
        if (rc < 0) {
            cs_task_result_pb_clear(out);
            return rc;
        }
        out->has_map_status = 1;
    }
    out->metrics = cs_xmalloc(sizeof *out->metrics);
    cs_task_metrics_to_pb(&r->metrics, out->metrics);
    if (r->num_updated_blocks > 0) {
        size_t n = (size_t)r->num_updated_blocks;
        Cspark__BlockStatus *bs = cs_xcalloc(n, sizeof *bs);
        out->updated_blocks = cs_xcalloc(n, sizeof *out->updated_blocks);
        for (size_t i = 0; i < n; i++) {
            cspark__block_status__init(&bs[i]);
            bs[i].rdd_id = r->updated_blocks[i].rdd_id;
            bs[i].partition = r->updated_blocks[i].partition;
            bs[i].storage_level = r->updated_blocks[i].level;
            bs[i].memory_size = r->updated_blocks[i].memory_size;
            bs[i].disk_size = r->updated_blocks[i].disk_size;
            out->updated_blocks[i] = &bs[i];
        }
        out->n_updated_blocks = n;
    }
    return 0;
}

void cs_task_result_pb_clear(Cspark__TaskResult *pb)
{
    if (!pb) return;
    if (pb->error && pb->error != protobuf_c_empty_string) free(pb->error);
    free(pb->data.data);
    free(pb->accum_updates.data);
    if (pb->map_status) {
        cs_map_status_pb_clear(pb->map_status);
        free(pb->map_status);
    }
    free(pb->metrics);
    if (pb->n_updated_blocks) free(pb->updated_blocks[0]); /* one array of all of them */
    free(pb->updated_blocks);
    cspark__task_result__init(pb);
}

int cs_task_result_decode(const Cspark__TaskResult *pb, task_result *out, cs_error *err)
{
    if (!pb) return cs_error_set(err, CS_EPROTO, "task result missing");
    if ((pb->status < TASK_OK || pb->status > TASK_FETCH_FAILED) && pb->status != TASK_KILLED)
        return cs_error_set(err, CS_EPROTO, "task result: unknown status %d", pb->status);
    if (pb->has_map_status && !pb->map_status)
        return cs_error_set(err, CS_EPROTO, "task result: has_map_status without a map status");
    if (pb->data.len) {
        if (!pb->data.data) return cs_error_set(err, CS_EPROTO, "task result: no data");
        int rc = cs_recio_decode_all(pb->data.data, pb->data.len, &out->data, err);
        if (rc < 0) {
            cs_batch_reset(&out->data);
            cs_error_prefix(err, "task result data");
            if (err) err->code = CS_EPROTO;
            return CS_EPROTO;
        }
    }
    if (pb->accum_updates.len && cs_recio_decode_all(pb->accum_updates.data, pb->accum_updates.len,
                                                     &out->accum_updates, err) < 0) {
        cs_batch_reset(&out->data);
        cs_batch_reset(&out->accum_updates);
        cs_error_prefix(err, "task result accumulator updates");
        if (err) err->code = CS_EPROTO;
        return CS_EPROTO;
    }
    if (pb->has_map_status) {
        int rc = cs_map_status_decode(pb->map_status, &out->map_status, err);
        if (rc < 0) {
            cs_batch_reset(&out->data);
            cs_batch_reset(&out->accum_updates);
            return rc;
        }
        out->has_map_status = true;
    }
    out->status = (task_status)pb->status;
    out->plan_missing = pb->plan_missing;
    const char *e = cs_pb_str(pb->error);
    if (*e) out->error = cs_xstrdup(e);
    out->fetch_shuffle_id = pb->fetch_shuffle_id;
    out->fetch_map_id = pb->fetch_map_id;
    out->count = pb->count;
    cs_task_metrics_from_pb(pb->metrics, &out->metrics);
    if (pb->n_updated_blocks > 0) {
        out->updated_blocks = cs_xcalloc(pb->n_updated_blocks, sizeof *out->updated_blocks);
        for (size_t i = 0; i < pb->n_updated_blocks; i++) {
            const Cspark__BlockStatus *b = pb->updated_blocks[i];
            if (!b || b->storage_level < CSPARK_STORAGE_NONE ||
                b->storage_level > CSPARK_DISK_ONLY || b->memory_size < 0 || b->disk_size < 0)
                continue; /* a malformed status is ignored: the block is recomputed if needed */
            out->updated_blocks[out->num_updated_blocks++] = (cs_block_status){
                b->rdd_id, b->partition, b->storage_level, b->memory_size, b->disk_size};
        }
    }
    return 0;
}
