/*
 * connect_execute.c — operations: ExecutePlan, ReattachExecute, ReleaseExecute and Interrupt, as
 * Spark's ExecuteHolder, ExecuteResponseObserver and ExecuteGrpcResponseSender.
 *
 * An ExecutePlan call registers an operation (its id the client's, or a new UUID) in its session
 * on the loop thread and queues it; its work's thread runs it (connect_service.c): a root relation
 * is translated and run as a query (its jobs in the job group "cspark-connect-<operation id>"), a
 * sql_command is answered with SqlCommandResult (a query's relation as given, to run when
 * collected; a command run now, its rows as a LocalRelation), other commands run through
 * connect_plan.h; a catalog relation (spark.catalog) is answered by connect_catalog.c, a ShowString
 * (df.show()) by connect_show.c. Responses go in order: the schema, one ArrowBatch per result batch
 * (an Arrow IPC stream each, with its row count and start offset), then ResultComplete; each has a
 * response id.
 *
 * Responses are kept in the operation until the client releases them (ReleaseExecute until a
 * response id, or all), so that a client whose stream broke reattaches (ReattachExecute after
 * its last response id) and gets the rest; the attached stream is fed as responses come. When the
 * operation has sent everything its stream ends (OK, or the operation's error as Spark's status).
 * An operation the client did not ask to be reattachable goes when it has ended and its stream
 * is done (sent everything, or gone), as Spark's: nothing can reattach to it.
 *
 * Interrupt (all, by tag, by operation id) marks the operations interrupted and cancels their job
 * group; a watchdog thread cancels again every WATCH_MS while an interrupted operation runs (a
 * query may start more jobs), and interrupts an operation whose stream went away and was not
 * reattached within DETACHED_GRACE_MS (a client that died). An interrupted operation fails with
 * Spark's OPERATION_CANCELED.
 *
 * Threads: see connect_internal.h. Lock order: svc->lock, then the gRPC server's own.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "columnar/col_builder.h"
#include "common/clock.h"
#include "common/log.h"
#include "common/strutil.h"
#include "connect/connect_errors.h"
#include "connect/connect_internal.h"
#include "connect/connect_plan.h"
#include "connect/connect_show.h"
#include "connect/connect_types.h"
#include "formats/arrow_ipc.h"
#include "spark/connect/base.pb-c.h"
#include "sql/logical_plan.h"
#include "sql/sql_arena.h"
#include "sql/sql_parser.h"
#include "sqlexec/pexpr.h"
#include "sqlexec/sql_error.h"

void cs_connect_op_unref(connect_op *op)
{
    if (--op->refs > 0) return;
    if (op->attached) cs_grpc_call_finish(op->attached, CS_GRPC_CANCELLED, "released", NULL, 0);
    for (int i = op->first; i < op->n; i++)
        free(op->responses[i].data);
    free(op->responses);
    for (int i = 0; i < op->n_tags; i++)
        free(op->tags[i]);
    free(op->tags);
    free(op);
}

static connect_op *find_op(connect_session *s, const char *id)
{
    for (connect_op *op = s->ops; op; op = op->next)
        if (strcmp(op->id, id) == 0) return op;
    return NULL;
}

static void unlink_op(connect_session *s, connect_op *op)
{
    for (connect_op **p = &s->ops; *p; p = &(*p)->next)
        if (*p == op) {
            *p = op->next;
            op->released = true;
            cs_connect_op_unref(op);
            return;
        }
}

/* Feeds the attached stream what it has not sent; ends it when the operation is done (and, when
 * it is not reattachable, takes it off its session: the caller must hold a reference of its own
 * to use op afterwards). Under svc->lock. */
static void pump(cs_connect_service *svc, connect_op *op)
{
    while (op->attached && op->next_send < op->n) {
        connect_response *r = &op->responses[op->next_send];
        if (r->data && cs_grpc_call_send(op->attached, r->data, r->len) != 0) {
            cs_grpc_call_release(op->attached);
            op->attached = NULL;
            return;
        }
        op->next_send++;
    }
    if (op->attached && op->finished && op->next_send == op->n) {
        cs_grpc_call *c = op->attached;
        op->attached = NULL;
        if (op->failed) {
            size_t len;
            uint8_t *details = cs_connect_error_status(&op->error, op->error_id, &len);
            cs_error view;
            cs_grpc_call_finish(c, CS_GRPC_INTERNAL, cs_connect_error_shown(&op->error, &view)->msg,
                                details, len);
            free(details);
        } else {
            cs_grpc_call_finish(c, CS_GRPC_OK, NULL, NULL, 0);
        }
    }
    /* a non-reattachable operation goes with its stream, as Spark removes its execution when the
     * ExecutePlan call ends: nothing can ask for its responses again */
    if (!op->reattachable && op->finished && !op->attached && op->sess && !op->released)
        unlink_op(op->sess, op);
}

/* Adds one response (session, operation and response ids filled here) and sends it. */
static void push(cs_connect_service *svc, connect_op *op, Spark__Connect__ExecutePlanResponse *r)
{
    char rid[40];
    cs_connect_uuid(rid);
    r->session_id = op->sess->session_id;
    r->server_side_session_id = op->sess->server_side_id;
    r->operation_id = op->id;
    r->response_id = rid;
    size_t len = spark__connect__execute_plan_response__get_packed_size(r);
    uint8_t *buf = cs_xmalloc(len ? len : 1);
    spark__connect__execute_plan_response__pack(r, buf);
    pthread_mutex_lock(&svc->lock);
    if (op->n == op->cap) {
        op->cap = op->cap ? 2 * op->cap : 16;
        op->responses = cs_xrealloc(op->responses, (size_t)op->cap * sizeof *op->responses);
    }
    connect_response *slot = &op->responses[op->n++];
    memcpy(slot->id, rid, sizeof slot->id);
    slot->data = buf;
    slot->len = len;
    pump(svc, op);
    pthread_mutex_unlock(&svc->lock);
}

static void finish_op(cs_connect_service *svc, connect_op *op, const cs_error *err)
{
    pthread_mutex_lock(&svc->lock);
    op->running = false;
    op->finished = true;
    if (err) {
        op->failed = true;
        op->error = *err;
        if (op->sess) cs_connect_session_keep_error(op->sess, err, op->error_id);
    }
    pump(svc, op);
    pthread_mutex_unlock(&svc->lock);
}

static void push_complete(cs_connect_service *svc, connect_op *op)
{
    Spark__Connect__ExecutePlanResponse r = SPARK__CONNECT__EXECUTE_PLAN_RESPONSE__INIT;
    Spark__Connect__ExecutePlanResponse__ResultComplete done =
        SPARK__CONNECT__EXECUTE_PLAN_RESPONSE__RESULT_COMPLETE__INIT;
    r.response_type_case = SPARK__CONNECT__EXECUTE_PLAN_RESPONSE__RESPONSE_TYPE_RESULT_COMPLETE;
    r.result_complete = &done;
    push(svc, op, &r);
}

/* One Arrow IPC stream (schema, the batch, end) as the bytes of an ArrowBatch. */
static int arrow_stream(const cs_col_batch *b, cs_sbuf *out, cs_error *err)
{
    cs_ipc_writer *w = cs_ipc_writer_new(b->schema, cs_ipc_write_sbuf, out);
    cs_ipc_writer_set_unique_nested_names(w);
    int rc = cs_ipc_writer_write(w, b, err);
    if (rc == 0) rc = cs_ipc_writer_close(w, err);
    cs_ipc_writer_free(w);
    return rc;
}

/* A batch of schema without rows: what an empty result sends, as Spark's server does (the
 * client builds its table from the batches it gets). A new reference. */
static cs_col_batch *empty_batch(cs_col_type *schema, cs_error *err)
{
    int n = schema->n_fields;
    cs_column **cols = cs_xcalloc((size_t)n + 1, sizeof *cols);
    for (int i = 0; i < n; i++) {
        cs_col_builder *b = cs_col_builder_new(NULL, schema->fields[i].type);
        cols[i] = cs_col_builder_finish(b);
        cs_col_builder_free(b);
    }
    cs_col_batch *batch = cs_col_batch_new(cs_col_type_ref(schema), cols, n, 0, err);
    free(cols);
    return batch;
}

/* One ArrowBatch response of rows [*offset, *offset + b->num_rows). */
static void push_arrow(cs_connect_service *svc, connect_op *op, const cs_sbuf *data, int64_t rows,
                       int64_t *offset)
{
    Spark__Connect__ExecutePlanResponse br = SPARK__CONNECT__EXECUTE_PLAN_RESPONSE__INIT;
    Spark__Connect__ExecutePlanResponse__ArrowBatch ab =
        SPARK__CONNECT__EXECUTE_PLAN_RESPONSE__ARROW_BATCH__INIT;
    ab.row_count = rows;
    ab.data.data = (uint8_t *)data->data;
    ab.data.len = data->len;
    ab._start_offset_case =
        SPARK__CONNECT__EXECUTE_PLAN_RESPONSE__ARROW_BATCH___START_OFFSET_START_OFFSET;
    ab.start_offset = *offset;
    *offset += rows;
    br.response_type_case = SPARK__CONNECT__EXECUTE_PLAN_RESPONSE__RESPONSE_TYPE_ARROW_BATCH;
    br.arrow_batch = &ab;
    push(svc, op, &br);
}

/* b as ArrowBatch responses of at most `limit` bytes each (a single row larger than that goes
 * alone): a batch over the limit is cut into as many row ranges as its size asks, each cut
 * again if still too large, as Spark's ArrowConverters cut at an estimated size. */
static int push_batch(cs_connect_service *svc, connect_op *op, cs_col_batch *b, size_t limit,
                      int64_t *offset, cs_error *err)
{
    cs_sbuf data = CS_SBUF_INIT;
    int rc = arrow_stream(b, &data, err);
    if (rc != 0 || data.len <= limit || b->num_rows <= 1) {
        if (rc == 0) push_arrow(svc, op, &data, b->num_rows, offset);
        cs_sbuf_free(&data);
        return rc;
    }
    int64_t pieces = (int64_t)((data.len + limit - 1) / limit);
    cs_sbuf_free(&data);
    if (pieces > b->num_rows) pieces = b->num_rows;
    int64_t per = (b->num_rows + pieces - 1) / pieces;
    int32_t *idx = cs_xmalloc((size_t)per * sizeof *idx);
    for (int64_t start = 0; rc == 0 && start < b->num_rows; start += per) {
        int64_t n = b->num_rows - start < per ? b->num_rows - start : per;
        for (int64_t i = 0; i < n; i++)
            idx[i] = (int32_t)(start + i);
        cs_col_batch *part = cs_col_batch_take(b, idx, n, NULL);
        rc = push_batch(svc, op, part, limit, offset, err);
        cs_col_batch_unref(part);
    }
    free(idx);
    return rc;
}

/* The schema, the batches and ResultComplete of a result. */
static int push_result(cs_connect_service *svc, connect_op *op, const cs_sql_result *res,
                       cs_error *err)
{
    Spark__Connect__ExecutePlanResponse r = SPARK__CONNECT__EXECUTE_PLAN_RESPONSE__INIT;
    r.schema = cs_connect_data_type(res->schema);
    push(svc, op, &r);
    protobuf_c_message_free_unpacked(&r.schema->base, NULL);
    /* Spark cuts at 70% of spark.connect.grpc.arrow.maxBatchSize (its size is an estimate) */
    size_t limit = svc->opts.max_batch / 10 * 7;
    int64_t offset = 0;
    for (int i = 0; i < res->n_batches; i++) {
        if (res->batches[i]->num_rows == 0) continue;
        int rc = push_batch(svc, op, res->batches[i], limit, &offset, err);
        if (rc != 0) return rc;
    }
    if (offset == 0) { /* no rows: one batch of none */
        cs_col_batch *b = empty_batch(res->schema, err);
        if (!b) return err->code ? err->code : CS_EINVAL;
        cs_sbuf data = CS_SBUF_INIT;
        int rc = arrow_stream(b, &data, err);
        cs_col_batch_unref(b);
        if (rc == 0) {
            Spark__Connect__ExecutePlanResponse br = SPARK__CONNECT__EXECUTE_PLAN_RESPONSE__INIT;
            Spark__Connect__ExecutePlanResponse__ArrowBatch ab =
                SPARK__CONNECT__EXECUTE_PLAN_RESPONSE__ARROW_BATCH__INIT;
            ab.data.data = (uint8_t *)data.data;
            ab.data.len = data.len;
            ab._start_offset_case =
                SPARK__CONNECT__EXECUTE_PLAN_RESPONSE__ARROW_BATCH___START_OFFSET_START_OFFSET;
            br.response_type_case =
                SPARK__CONNECT__EXECUTE_PLAN_RESPONSE__RESPONSE_TYPE_ARROW_BATCH;
            br.arrow_batch = &ab;
            push(svc, op, &br);
        }
        cs_sbuf_free(&data);
        return rc;
    }
    return 0;
}

/* Runs st with the operation's job group; fails with OPERATION_CANCELED when interrupted. */
static int run_statement(cs_connect_service *svc, connect_op *op, cs_sql_session *sql,
                         cs_sql_arena *a, const cs_sql_statement *st, const char *text,
                         cs_sql_result *res, bool *kept, cs_error *err)
{
    pthread_mutex_lock(&svc->lock);
    bool interrupted = op->interrupted; /* while it waited for its turn */
    pthread_mutex_unlock(&svc->lock);
    int rc = 0;
    if (!interrupted) {
        /* an interrupt from here on cancels the group; the watchdog cancels it again while
         * the operation runs, so a job started after the interrupt ends too */
        cs_sql_session_set_job_group(sql, op->job_group);
        rc = cs_connect_run_statement(svc, sql, a, st, text, res, kept, err);
        cs_sql_session_set_job_group(sql, NULL);
        pthread_mutex_lock(&svc->lock);
        interrupted = op->interrupted;
        pthread_mutex_unlock(&svc->lock);
    }
    if (interrupted) {
        if (rc == 0) cs_sql_result_free(res);
        memset(res, 0, sizeof *res);
        return cs_sql_error_set(err, CS_ECANCELLED, "OPERATION_CANCELED", "HY008",
                                "Operation has been canceled.");
    }
    return rc;
}

/* sql_command: a query's relation back to the client; a command run now, its rows as a
 * LocalRelation. */
static int sql_command(cs_connect_service *svc, connect_op *op, cs_sql_session *sql,
                       cs_sql_arena *a, const Spark__Connect__SqlCommand *cmd, bool *kept,
                       cs_error *err)
{
    Spark__Connect__Relation legacy = SPARK__CONNECT__RELATION__INIT;
    Spark__Connect__SQL legacy_sql = SPARK__CONNECT__SQL__INIT;
    const Spark__Connect__Relation *input = cmd->input;
    if (!input) {
        legacy_sql.query = cmd->sql;
        legacy.rel_type_case = SPARK__CONNECT__RELATION__REL_TYPE_SQL;
        legacy.sql = &legacy_sql;
        input = &legacy;
    }
    Spark__Connect__ExecutePlanResponse r = SPARK__CONNECT__EXECUTE_PLAN_RESPONSE__INIT;
    Spark__Connect__ExecutePlanResponse__SqlCommandResult result =
        SPARK__CONNECT__EXECUTE_PLAN_RESPONSE__SQL_COMMAND_RESULT__INIT;
    r.response_type_case = SPARK__CONNECT__EXECUTE_PLAN_RESPONSE__RESPONSE_TYPE_SQL_COMMAND_RESULT;
    r.sql_command_result = &result;
    cs_sql_statement *st = NULL;
    int rc = 0;
    bool plain_sql = input->rel_type_case == SPARK__CONNECT__RELATION__REL_TYPE_SQL && input->sql &&
                     input->sql->n_pos_arguments == 0 && input->sql->n_named_arguments == 0 &&
                     input->sql->n_args == 0 && input->sql->n_pos_args == 0;
    if (plain_sql) {
        rc = cs_sql_parse_statement(a, input->sql->query, &st, NULL, err);
        if (rc != 0) return rc;
    }
    if (!plain_sql || st->kind == CS_STMT_QUERY) {
        /* a query (or one with arguments): parsed now so that a syntax error is raised here,
         * run when the DataFrame is collected */
        /* and analysed, as Spark's spark.sql() does: an unknown column is raised here */
        cs_logical_plan *p = plain_sql ? st->plan : NULL, *resolved;
        if (!plain_sql) rc = cs_connect_relation_plan(sql, a, input, &p, err);
        if (rc == 0) rc = cs_sql_session_analyze(sql, a, p, &resolved, err);
        if (rc != 0) return rc;
        result.relation = (Spark__Connect__Relation *)input;
        push(svc, op, &r);
        return 0;
    }
    cs_sql_result res;
    rc = run_statement(svc, op, sql, a, st, input->sql->query, &res, kept, err);
    if (rc != 0) return rc;
    cs_sbuf data = CS_SBUF_INIT;
    rc = cs_connect_result_arrow(&res, &data, err);
    if (rc == 0) {
        Spark__Connect__Relation local = SPARK__CONNECT__RELATION__INIT;
        Spark__Connect__LocalRelation lr = SPARK__CONNECT__LOCAL_RELATION__INIT;
        lr._data_case = SPARK__CONNECT__LOCAL_RELATION___DATA_DATA;
        lr.data.data = (uint8_t *)data.data;
        lr.data.len = data.len;
        local.rel_type_case = SPARK__CONNECT__RELATION__REL_TYPE_LOCAL_RELATION;
        local.local_relation = &lr;
        result.relation = &local;
        push(svc, op, &r);
    }
    cs_sbuf_free(&data);
    cs_sql_result_free(&res);
    return rc;
}

int cs_connect_result_arrow(const cs_sql_result *res, cs_sbuf *out, cs_error *err)
{
    int rc = 0;
    cs_ipc_writer *w = cs_ipc_writer_new(res->schema, cs_ipc_write_sbuf, out);
    for (int i = 0; rc == 0 && i < res->n_batches; i++)
        rc = cs_ipc_writer_write(w, res->batches[i], err);
    if (rc == 0) rc = cs_ipc_writer_close(w, err);
    cs_ipc_writer_free(w);
    return rc;
}

/* df.show(): the rows to show fetched by a query, answered with the table's text. */
static int show_string(cs_connect_service *svc, connect_op *op, cs_sql_session *sql,
                       cs_sql_arena *a, const Spark__Connect__ShowString *show, bool *kept,
                       cs_error *err)
{
    cs_connect_show sh;
    int rc = cs_connect_show_plan(sql, a, show, &sh, err);
    if (rc != 0) return rc;
    cs_sql_statement st = {.kind = CS_STMT_QUERY, .plan = sh.plan};
    cs_sql_result rows, text;
    rc = run_statement(svc, op, sql, a, &st, "showString", &rows, kept, err);
    if (rc != 0) return rc;
    rc = cs_connect_show_result(&sh, &rows, &text, err);
    cs_sql_result_free(&rows);
    if (rc != 0) return rc;
    rc = push_result(svc, op, &text, err);
    cs_sql_result_free(&text);
    return rc;
}

/* A persisted relation's rows, computed as the operation's own statement (its job group, its
 * interruption), for connect_persist.c. */
typedef struct persist_run {
    cs_connect_service *svc;
    connect_op *op;
    cs_sql_session *sql;
} persist_run;

static int run_persisted(void *arg, const Spark__Connect__Relation *rel, cs_sql_result *out,
                         cs_error *err)
{
    persist_run *r = arg;
    cs_sql_arena *a = cs_sql_arena_new();
    cs_logical_plan *p;
    bool kept = false;
    int rc = cs_connect_relation_plan(r->sql, a, rel, &p, err);
    if (rc == 0) {
        cs_sql_statement st = {.kind = CS_STMT_QUERY, .plan = p};
        rc = run_statement(r->svc, r->op, r->sql, a, &st, "cache", out, &kept, err);
    }
    if (!kept) cs_sql_arena_free(a);
    return rc;
}

/* df.localCheckpoint(): the relation kept by the session (connect_persist.c), answered with the
 * CachedRemoteRelation of its id, as Spark's handleCheckpointCommand. */
static int checkpoint(cs_connect_service *svc, connect_op *op, cs_sql_session *sql,
                      const Spark__Connect__CheckpointCommand *cmd, cs_error *err)
{
    char id[40];
    int rc = cs_connect_checkpoint(op->sess, cmd, cs_sql_session_conf(sql, "spark.checkpoint.dir"),
                                   run_persisted, &(persist_run){svc, op, sql}, id, err);
    if (rc != 0) return rc;
    Spark__Connect__ExecutePlanResponse r = SPARK__CONNECT__EXECUTE_PLAN_RESPONSE__INIT;
    Spark__Connect__CheckpointCommandResult result =
        SPARK__CONNECT__CHECKPOINT_COMMAND_RESULT__INIT;
    Spark__Connect__CachedRemoteRelation rel = SPARK__CONNECT__CACHED_REMOTE_RELATION__INIT;
    rel.relation_id = id;
    result.relation = &rel;
    r.response_type_case =
        SPARK__CONNECT__EXECUTE_PLAN_RESPONSE__RESPONSE_TYPE_CHECKPOINT_COMMAND_RESULT;
    r.checkpoint_command_result = &result;
    push(svc, op, &r);
    return 0;
}

void cs_connect_execute_run(cs_connect_service *svc, connect_work *w)
{
    connect_op *op = w->op;
    Spark__Connect__ExecutePlanRequest *req = w->request;
    cs_error err;
    cs_error_clear(&err);
    cs_sql_arena *a = cs_sql_arena_new();
    bool kept = false;
    int rc = 0;
    pthread_mutex_lock(&svc->lock);
    bool interrupted = op->interrupted;
    op->running = !interrupted;
    pthread_mutex_unlock(&svc->lock);
    cs_sql_session *sql = interrupted ? NULL : cs_connect_session_sql(svc, w->sess, &err);
    const Spark__Connect__Plan *plan = req->plan;
    if (interrupted) {
        rc = cs_sql_error_set(&err, CS_ECANCELLED, "OPERATION_CANCELED", "HY008",
                              "Operation has been canceled.");
    } else if (!sql) {
        rc = err.code ? err.code : CS_EINVAL;
    } else if ((rc = cs_connect_resolve_cached(svc, w->sess, &req->base, &err)) != 0) {
        /* a CachedLocalRelation whose artifact is not there */
    } else if ((rc = cs_connect_persisted_use(w->sess, &req->base, run_persisted,
                                              &(persist_run){svc, op, sql}, &err)) != 0) {
        /* a persisted relation whose first computation failed */
    } else if (plan && plan->op_type_case == SPARK__CONNECT__PLAN__OP_TYPE_ROOT && plan->root &&
               plan->root->rel_type_case == SPARK__CONNECT__RELATION__REL_TYPE_CATALOG) {
        cs_sql_result res;
        rc = cs_connect_catalog_result(svc, sql, a, plan->root->catalog, &res, &err);
        if (rc == 0) {
            rc = push_result(svc, op, &res, &err);
            cs_sql_result_free(&res);
        }
    } else if (plan && plan->op_type_case == SPARK__CONNECT__PLAN__OP_TYPE_ROOT && plan->root &&
               plan->root->rel_type_case == SPARK__CONNECT__RELATION__REL_TYPE_SHOW_STRING) {
        rc = show_string(svc, op, sql, a, plan->root->show_string, &kept, &err);
    } else if (plan && plan->op_type_case == SPARK__CONNECT__PLAN__OP_TYPE_ROOT) {
        cs_logical_plan *p;
        rc = cs_connect_relation_plan(sql, a, plan->root, &p, &err);
        if (rc == 0) {
            cs_sql_statement st = {.kind = CS_STMT_QUERY, .plan = p};
            cs_sql_result res;
            rc = run_statement(svc, op, sql, a, &st, "collect", &res, &kept, &err);
            if (rc == 0) {
                rc = push_result(svc, op, &res, &err);
                cs_sql_result_free(&res);
            }
        }
    } else if (plan && plan->op_type_case == SPARK__CONNECT__PLAN__OP_TYPE_COMMAND &&
               plan->command->command_type_case ==
                   SPARK__CONNECT__COMMAND__COMMAND_TYPE_SQL_COMMAND) {
        rc = sql_command(svc, op, sql, a, plan->command->sql_command, &kept, &err);
    } else if (plan && plan->op_type_case == SPARK__CONNECT__PLAN__OP_TYPE_COMMAND &&
               plan->command->command_type_case ==
                   SPARK__CONNECT__COMMAND__COMMAND_TYPE_CHECKPOINT_COMMAND) {
        rc = checkpoint(svc, op, sql, plan->command->checkpoint_command, &err);
    } else if (plan && plan->op_type_case == SPARK__CONNECT__PLAN__OP_TYPE_COMMAND &&
               plan->command->command_type_case ==
                   SPARK__CONNECT__COMMAND__COMMAND_TYPE_REMOVE_CACHED_REMOTE_RELATION_COMMAND) {
        const Spark__Connect__RemoveCachedRemoteRelationCommand *rm =
            plan->command->remove_cached_remote_relation_command;
        /* Spark's removeCachedDataFrame: an id not kept is no error */
        if (rm && rm->relation) cs_connect_checkpoint_remove(w->sess, rm->relation->relation_id);
    } else if (plan && plan->op_type_case == SPARK__CONNECT__PLAN__OP_TYPE_COMMAND) {
        cs_sql_statement *st = NULL;
        cs_connect_plan_ctx ctx = {.arena = a, .session = sql, .err = &err};
        rc = cs_connect_plan_command(&ctx, plan->command, &st);
        if (rc == 0) {
            cs_sql_result res;
            rc = run_statement(svc, op, sql, a, st, "command", &res, &kept, &err);
            if (rc == 0) cs_sql_result_free(&res);
        }
    } else {
        rc = cs_sql_error_set(&err, CS_EINVAL, "INTERNAL_ERROR", "XX000",
                              "ExecutePlan expects a plan with a root relation or a command.");
    }
    if (rc == 0) push_complete(svc, op);
    if (rc != 0)
        CS_INFO("connect", "event=operation_failed operation=%s class=%s", op->id,
                cs_log_value(err.error_class[0] ? err.error_class : "-"));
    finish_op(svc, op, rc != 0 ? &err : NULL);
    if (!kept) cs_sql_arena_free(a);
}

/* ---- loop thread ------------------------------------------------------------------------------
 */

static const char *user_of(const Spark__Connect__UserContext *u)
{
    return u && u->user_id ? u->user_id : "";
}

static void *unpack_or_refuse(cs_grpc_call *call, const ProtobufCMessageDescriptor *d)
{
    size_t len;
    const uint8_t *data = cs_grpc_call_message(call, &len);
    void *m = protobuf_c_message_unpack(d, NULL, len, data);
    if (!m) {
        char msg[200];
        snprintf(msg, sizeof msg, "the request is not a valid %s message (%zu bytes)", d->name,
                 len);
        cs_grpc_call_finish(call, CS_GRPC_INVALID_ARGUMENT, msg, NULL, 0);
    }
    return m;
}

static bool is_uuid(const char *s)
{
    if (!s || strlen(s) != 36) return false;
    for (int i = 0; i < 36; i++) {
        bool dash = i == 8 || i == 13 || i == 18 || i == 23;
        char c = s[i];
        bool hex = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
        if (dash ? c != '-' : !hex) return false;
    }
    return true;
}

void cs_connect_execute_call(cs_connect_service *svc, cs_grpc_call *call)
{
    Spark__Connect__ExecutePlanRequest *r =
        unpack_or_refuse(call, &spark__connect__execute_plan_request__descriptor);
    if (!r) return;
    cs_error err;
    cs_error_clear(&err);
    const char *observed =
        r->_client_observed_server_side_session_id_case ==
                SPARK__CONNECT__EXECUTE_PLAN_REQUEST___CLIENT_OBSERVED_SERVER_SIDE_SESSION_ID_CLIENT_OBSERVED_SERVER_SIDE_SESSION_ID
            ? r->client_observed_server_side_session_id
            : NULL;
    char op_id[40];
    const char *given =
        r->_operation_id_case == SPARK__CONNECT__EXECUTE_PLAN_REQUEST___OPERATION_ID_OPERATION_ID
            ? r->operation_id
            : NULL;
    pthread_mutex_lock(&svc->lock);
    connect_session *s =
        cs_connect_session_find(svc, r->session_id, user_of(r->user_context), observed, true, &err);
    connect_op *op = NULL;
    if (s && given && !is_uuid(given)) {
        cs_sql_error_set(&err, CS_EINVAL, "INVALID_HANDLE.FORMAT", "HY000",
                         "The handle %s is invalid. Handle must be an UUID string of the format "
                         "'00112233-4455-6677-8899-aabbccddeeff'",
                         given);
    } else if (s && given && find_op(s, given)) {
        cs_sql_error_set(&err, CS_EEXIST, "INVALID_HANDLE.OPERATION_ALREADY_EXISTS", "HY000",
                         "The handle %s is invalid. Operation already exists.", given);
    } else if (s) {
        if (!given) cs_connect_uuid(op_id);
        op = cs_xcalloc(1, sizeof *op);
        op->refs = 2; /* the session's list and its work's */
        op->sess = s;
        snprintf(op->id, sizeof op->id, "%s", given ? given : op_id);
        snprintf(op->job_group, sizeof op->job_group, "cspark-connect-%s", op->id);
        op->n_tags = (int)r->n_tags;
        op->tags = r->n_tags ? cs_xcalloc(r->n_tags, sizeof *op->tags) : NULL;
        for (size_t i = 0; i < r->n_tags; i++)
            op->tags[i] = cs_xstrdup(r->tags[i]);
        for (size_t i = 0; i < r->n_request_options; i++) {
            const Spark__Connect__ExecutePlanRequest__RequestOption *o = r->request_options[i];
            if (o->request_option_case ==
                    SPARK__CONNECT__EXECUTE_PLAN_REQUEST__REQUEST_OPTION__REQUEST_OPTION_REATTACH_OPTIONS &&
                o->reattach_options)
                op->reattachable = o->reattach_options->reattachable;
        }
        op->attached = call;
        op->next = s->ops;
        s->ops = op;
        connect_work *w = cs_xcalloc(1, sizeof *w);
        w->kind = WORK_EXECUTE;
        w->sess = s;
        w->op = op;
        w->request = r;
        cs_connect_queue_locked(svc, w);
    }
    char error_id[40] = "";
    if (!op && s) cs_connect_session_keep_error(s, &err, error_id);
    pthread_mutex_unlock(&svc->lock);
    if (!op) {
        cs_connect_finish_error(call, &err, error_id);
        protobuf_c_message_free_unpacked(&r->base, NULL);
    }
}

/* Session and operation of a Reattach/Release request, under svc->lock: NULL + err. */
static connect_op *lookup_op(cs_connect_service *svc, const char *session_id,
                             const Spark__Connect__UserContext *user, const char *observed,
                             const char *op_id, connect_session **sess, cs_error *err)
{
    *sess = cs_connect_session_find(svc, session_id, user_of(user), observed, false, err);
    if (!*sess) return NULL;
    connect_op *op = find_op(*sess, op_id);
    if (!op)
        cs_sql_error_set(err, CS_ENOTFOUND, "INVALID_HANDLE.OPERATION_NOT_FOUND", "HY000",
                         "The handle %s is invalid. Operation not found.", op_id);
    return op;
}

void cs_connect_reattach_call(cs_connect_service *svc, cs_grpc_call *call)
{
    Spark__Connect__ReattachExecuteRequest *r =
        unpack_or_refuse(call, &spark__connect__reattach_execute_request__descriptor);
    if (!r) return;
    cs_error err;
    cs_error_clear(&err);
    connect_session *s;
    pthread_mutex_lock(&svc->lock);
    connect_op *op = lookup_op(
        svc, r->session_id, r->user_context,
        r->_client_observed_server_side_session_id_case ==
                SPARK__CONNECT__REATTACH_EXECUTE_REQUEST___CLIENT_OBSERVED_SERVER_SIDE_SESSION_ID_CLIENT_OBSERVED_SERVER_SIDE_SESSION_ID
            ? r->client_observed_server_side_session_id
            : NULL,
        r->operation_id, &s, &err);
    int from = op ? op->first : 0;
    if (op && r->_last_response_id_case ==
                  SPARK__CONNECT__REATTACH_EXECUTE_REQUEST___LAST_RESPONSE_ID_LAST_RESPONSE_ID) {
        from = -1;
        for (int i = op->first; i < op->n && from < 0; i++)
            if (strcmp(op->responses[i].id, r->last_response_id) == 0) from = i + 1;
        if (from < 0) {
            cs_sql_error_set(&err, CS_EINVAL, "INVALID_CURSOR.POSITION_NOT_AVAILABLE", "HY109",
                             "The cursor is invalid. The cursor position id %s is no longer "
                             "available at index 0.",
                             r->last_response_id);
            op = NULL;
        }
    }
    if (op) {
        if (op->attached) /* the old stream ends; its client gave up on it */
            cs_grpc_call_finish(op->attached, CS_GRPC_OK, NULL, NULL, 0);
        op->attached = call;
        op->next_send = from;
        pump(svc, op);
    }
    char error_id[40] = "";
    if (!op && s) cs_connect_session_keep_error(s, &err, error_id);
    pthread_mutex_unlock(&svc->lock);
    if (!op) cs_connect_finish_error(call, &err, error_id);
    protobuf_c_message_free_unpacked(&r->base, NULL);
}

void cs_connect_release_execute_call(cs_connect_service *svc, cs_grpc_call *call)
{
    Spark__Connect__ReleaseExecuteRequest *r =
        unpack_or_refuse(call, &spark__connect__release_execute_request__descriptor);
    if (!r) return;
    cs_error err;
    cs_error_clear(&err);
    connect_session *s;
    char server_side[40] = "";
    pthread_mutex_lock(&svc->lock);
    connect_op *op = lookup_op(
        svc, r->session_id, r->user_context,
        r->_client_observed_server_side_session_id_case ==
                SPARK__CONNECT__RELEASE_EXECUTE_REQUEST___CLIENT_OBSERVED_SERVER_SIDE_SESSION_ID_CLIENT_OBSERVED_SERVER_SIDE_SESSION_ID
            ? r->client_observed_server_side_session_id
            : NULL,
        r->operation_id, &s, &err);
    if (s) snprintf(server_side, sizeof server_side, "%s", s->server_side_id);
    if (op && r->release_case == SPARK__CONNECT__RELEASE_EXECUTE_REQUEST__RELEASE_RELEASE_ALL) {
        if (op->running) op->interrupted = true; /* released before its end: Spark stops it */
        unlink_op(s, op);
    } else if (op &&
               r->release_case == SPARK__CONNECT__RELEASE_EXECUTE_REQUEST__RELEASE_RELEASE_UNTIL &&
               r->release_until) {
        int until = -1;
        for (int i = op->first; i < op->n && until < 0; i++)
            if (strcmp(op->responses[i].id, r->release_until->response_id) == 0) until = i;
        for (int i = op->first; i <= until && i < op->next_send; i++) {
            free(op->responses[i].data);
            op->responses[i].data = NULL;
            op->first = i + 1;
        }
    }
    pthread_mutex_unlock(&svc->lock);
    if (!s) {
        cs_connect_fail_call(svc, NULL, call, &err);
    } else { /* an operation already gone is released already: OK, as Spark */
        Spark__Connect__ReleaseExecuteResponse resp =
            SPARK__CONNECT__RELEASE_EXECUTE_RESPONSE__INIT;
        resp.session_id = r->session_id;
        resp.server_side_session_id = server_side;
        resp._operation_id_case =
            SPARK__CONNECT__RELEASE_EXECUTE_RESPONSE___OPERATION_ID_OPERATION_ID;
        resp.operation_id = r->operation_id;
        cs_connect_reply(call, &resp.base);
    }
    protobuf_c_message_free_unpacked(&r->base, NULL);
}

static bool has_tag(const connect_op *op, const char *tag)
{
    for (int i = 0; i < op->n_tags; i++)
        if (strcmp(op->tags[i], tag) == 0) return true;
    return false;
}

void cs_connect_interrupt_call(cs_connect_service *svc, cs_grpc_call *call)
{
    Spark__Connect__InterruptRequest *r =
        unpack_or_refuse(call, &spark__connect__interrupt_request__descriptor);
    if (!r) return;
    cs_error err;
    cs_error_clear(&err);
    Spark__Connect__InterruptResponse resp = SPARK__CONNECT__INTERRUPT_RESPONSE__INIT;
    char server_side[40] = "";
    char **ids = NULL;
    size_t n_ids = 0;
    pthread_mutex_lock(&svc->lock);
    connect_session *s =
        cs_connect_session_find(svc, r->session_id, user_of(r->user_context), NULL, true, &err);
    if (s) {
        snprintf(server_side, sizeof server_side, "%s", s->server_side_id);
        for (connect_op *op = s->ops; op; op = op->next) {
            bool match = false;
            switch (r->interrupt_type) {
            case SPARK__CONNECT__INTERRUPT_REQUEST__INTERRUPT_TYPE__INTERRUPT_TYPE_ALL:
                match = true;
                break;
            case SPARK__CONNECT__INTERRUPT_REQUEST__INTERRUPT_TYPE__INTERRUPT_TYPE_TAG:
                match = r->interrupt_case ==
                            SPARK__CONNECT__INTERRUPT_REQUEST__INTERRUPT_OPERATION_TAG &&
                        has_tag(op, r->operation_tag);
                break;
            case SPARK__CONNECT__INTERRUPT_REQUEST__INTERRUPT_TYPE__INTERRUPT_TYPE_OPERATION_ID:
                match = r->interrupt_case ==
                            SPARK__CONNECT__INTERRUPT_REQUEST__INTERRUPT_OPERATION_ID &&
                        strcmp(op->id, r->operation_id) == 0;
                break;
            default:
                break;
            }
            if (!match || op->finished || op->interrupted) continue;
            op->interrupted = true;
            if (op->running) cspark_cancel_job_group(svc->opts.sc, op->job_group);
            ids = cs_xrealloc(ids, (n_ids + 1) * sizeof *ids);
            ids[n_ids++] = op->id;
            CS_INFO("connect", "event=interrupt operation=%s", op->id);
        }
    }
    pthread_mutex_unlock(&svc->lock);
    if (!s) {
        cs_connect_fail_call(svc, NULL, call, &err);
    } else {
        resp.session_id = r->session_id;
        resp.server_side_session_id = server_side;
        resp.n_interrupted_ids = n_ids;
        resp.interrupted_ids = ids;
        cs_connect_reply(call, &resp.base);
    }
    free(ids);
    protobuf_c_message_free_unpacked(&r->base, NULL);
}

void cs_connect_execute_detach(cs_connect_service *svc, cs_grpc_call *call)
{
    pthread_mutex_lock(&svc->lock);
    for (connect_session *s = svc->sessions; s; s = s->next)
        for (connect_op *op = s->ops; op; op = op->next)
            if (op->attached == call) {
                op->attached = NULL;
                op->detached_ms = cs_mono_ms();
                cs_grpc_call_release(call);
                if (!op->reattachable && !op->finished && !op->interrupted) {
                    op->interrupted = true;
                    if (op->running) cspark_cancel_job_group(svc->opts.sc, op->job_group);
                }
            }
    pthread_mutex_unlock(&svc->lock);
}

void cs_connect_watchdog_round(cs_connect_service *svc, int64_t now_ms, int64_t grace_ms)
{
    pthread_mutex_lock(&svc->lock);
    for (connect_session *s = svc->sessions; s; s = s->next)
        for (connect_op *op = s->ops; op; op = op->next) {
            if (!op->running) continue;
            if (!op->interrupted && !op->attached && op->detached_ms &&
                now_ms - op->detached_ms > grace_ms) {
                CS_INFO("connect", "event=abandoned operation=%s", op->id);
                op->interrupted = true;
            }
            if (op->interrupted) cspark_cancel_job_group(svc->opts.sc, op->job_group);
        }
    pthread_mutex_unlock(&svc->lock);
}
