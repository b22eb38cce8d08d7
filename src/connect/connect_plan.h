/*
 * connect_plan.h — Spark Connect plans to cspark's SQL trees: the translation of the protobuf
 * messages a Spark Connect client sends (spark.connect.Relation, Expression, Command; the C
 * structs protoc-c generates at build time from the pinned client's .proto files) into the
 * unresolved logical plans and statements the SQL parser would give for the same query
 * (sql/logical_plan.h, sql/sql_expr.h). Spark's own server does the same in its
 * SparkConnectPlanner: every DataFrame call becomes an unresolved Catalyst node, and the
 * analyzer does the rest. The server (connect_service.c and its neighbours) calls these for
 * ExecutePlan and AnalyzePlan, then runs the result through the session (session/sql_session.h).
 *
 *   Relation  --cs_connect_plan_relation-->  cs_logical_plan (unresolved)
 *   Expression --cs_connect_plan_expression--> cs_sql_expr (unresolved)
 *   Command   --cs_connect_plan_command-->   cs_sql_statement (CREATE VIEW, write, SQL command)
 *
 * Errors are Spark's: a malformed message (a missing input, an unset oneof, a bad enum) is
 * Spark's InvalidPlanInput, which Spark 4 reports as INTERNAL_ERROR (SQLSTATE XX000) with the
 * planner's message; a kind cspark does not run yet is UNSUPPORTED_FEATURE (0A000) naming it;
 * errors of the SQL layers keep their classes (PARSE_SYNTAX_ERROR, UNBOUND_SQL_PARAMETER,
 * INVALID_TYPED_LITERAL, ...). err->error_class is set so that the client raises the exception
 * Spark's would. The implementation is src/connect/plan_*.c (plan_internal.h lists the parts).
 *
 * Ownership: every node, string and batch made is allocated in ctx->arena and lives as long as
 * it (the caller frees the arena, or hands it to the session when the session keeps it). The
 * protobuf messages are borrowed for the call only: nothing made keeps a pointer into them.
 */
#ifndef CSPARK_CONNECT_CONNECT_PLAN_H
#define CSPARK_CONNECT_CONNECT_PLAN_H

#include "common/err.h"
#include "session/sql_session.h"
#include "sql/logical_plan.h"
#include "sql/sql_arena.h"
#include "sql/sql_expr.h"

/* The generated messages (spark/connect/{base,relations,expressions,commands}.pb-c.h). */
typedef struct Spark__Connect__Relation Spark__Connect__Relation;
typedef struct Spark__Connect__Expression Spark__Connect__Expression;
typedef struct Spark__Connect__Command Spark__Connect__Command;

typedef struct cs_connect_plan_ctx {
    cs_sql_arena *arena;     /* where the nodes are made */
    cs_sql_session *session; /* the client's session: conf, catalog (borrowed) */
    cs_error *err;           /* filled on failure */
} cs_connect_plan_ctx;

/* The server's own relation extensions (Relation.extension, an Any of these type names whose
 * value is a packed AnalyzePlanRequest.Persist: a storage level and a relation), which the
 * server puts in place of the relations it keeps rows for (connect_persist.c): a persisted
 * DataFrame (Spark's InMemoryRelation) and a checkpointed one (Spark's LogicalRDD). Translated
 * into a local relation of the rows (when the relation in it is a LocalRelation) or, without
 * them, of its schema alone (AnalyzePlan: no job runs), which EXPLAIN names as Spark does. */
#define CS_CONNECT_KEPT_CACHED "type.cspark/InMemoryRelation"
#define CS_CONNECT_KEPT_CHECKPOINT "type.cspark/LogicalRDD"

/* One relation (with its inputs) as an unresolved plan. 0 and *out, or a negative code with
 * ctx->err set. The `sql` relation (query text with positional or named arguments) is parsed
 * here too, so that a DataFrame built on spark.sql(...) is one tree. */
int cs_connect_plan_relation(cs_connect_plan_ctx *ctx, const Spark__Connect__Relation *rel,
                             cs_logical_plan **out);

/* One expression as an unresolved expression (columns by name, functions by name, literals
 * typed as Spark's). 0 and *out, or a negative code with ctx->err set. */
int cs_connect_plan_expression(cs_connect_plan_ctx *ctx, const Spark__Connect__Expression *e,
                               cs_sql_expr **out);

/* A command as a statement the session runs (cs_sql_session_run_statement): sql_command
 * (its text parsed, with its arguments), write_operation (DataFrameWriter),
 * create_dataframe_view (createOrReplaceTempView). 0 and *out, or a negative code with
 * ctx->err set; commands the server handles itself (checkpoint) and those cspark does not run
 * (streaming, ML) are refused with Spark's UNSUPPORTED class. */
int cs_connect_plan_command(cs_connect_plan_ctx *ctx, const Spark__Connect__Command *cmd,
                            cs_sql_statement **out);

/* The output of a resolved plan as a struct type (a new reference): its columns' names ("" for
 * none), types and nullability, as Spark's schema of the DataFrame. */
cs_col_type *cs_connect_plan_schema(const cs_logical_plan *resolved);

#endif /* CSPARK_CONNECT_CONNECT_PLAN_H */
