/*
 * op_sample.c — the Sample operator (Spark's SampleExec): the rows of Sample(lower, upper,
 * with_replacement, seed) over its child in one task.
 *  - Without replacement, Spark's BernoulliCellSampler: a partition's XORShiftRandom seeded with
 *    seed + the partition index draws one double per row, in the partition's order, and the row
 *    stays when the draw is in [lower, upper). Those draws are rand(seed)'s, so the operator
 *    evaluates a compiled rand(seed) over each batch (kernels_random.c keeps the generator).
 *    randomSplit's splits are such ranges of one seed's draws: disjoint and covering.
 *  - With replacement, Spark's PoissonSampler: each row comes out as many times (0 included) as
 *    a PoissonDistribution of mean upper - lower draws, over a Well19937c seeded with the
 *    (partition + 1)-th nextLong of java.util.Random(seed) (sampler.c); copies are adjacent and
 *    an output batch holds at most the context's batch rows.
 * Built by phys_build.c from a SAMPLE node (cs_sql_op_sample); runs on the task's thread.
 *
 * Ownership: the operator owns its child, its rand expression and program, and the input batch it
 * is still repeating rows of.
 */
#include <stdlib.h>

#include "columnar/col_builder.h"
#include "formats/text_values.h"
#include "sqlexec/pexpr_internal.h"
#include "sqlexec/sampler.h"
#include "sqlexec/sql_ops_internal.h"

typedef struct sample_op {
    cs_sql_op base;
    double lower, upper;
    bool with_replacement;
    int64_t seed;
    cs_pexpr *draw; /* rand(seed), without replacement */
    cs_pexpr_program *program;
    cs_poisson poisson; /* with replacement */
    cs_col_batch *in;   /* with replacement: the batch being repeated, from row `at` */
    int64_t at;
    int pending; /* copies of row `at` still to give */
    int32_t *idx;
    int64_t idx_cap;
} sample_op;

static int sample_open(cs_sql_op *op, const cs_sql_exec_ctx *ctx, cs_error *err)
{
    sample_op *s = (sample_op *)op;
    int rc = cs_sql_op_open(op->children[0], ctx, err);
    if (rc) return rc;
    s->in = NULL;
    s->at = 0;
    s->pending = 0;
    if (s->with_replacement) {
        if (s->upper - s->lower > 0.0)
            cs_poisson_init(&s->poisson, s->upper - s->lower,
                            cs_java_random_nth_long(s->seed, ctx->partition_id + 1));
        return CS_OK;
    }
    s->program = cs_pexpr_compile(s->draw, op->children[0]->schema, err);
    return s->program ? CS_OK : (err && err->code ? err->code : CS_EINVAL);
}

static int32_t *idx_room(sample_op *s, int64_t n)
{
    if (n > s->idx_cap) {
        free(s->idx);
        s->idx_cap = n;
        s->idx = cs_xmalloc(sizeof *s->idx * (size_t)n);
    }
    return s->idx;
}

/* BernoulliCellSampler: the rows of each batch whose draw is in [lower, upper) */
static int bernoulli_next(sample_op *s, cs_col_batch **out, cs_error *err)
{
    cs_sql_op *op = &s->base;
    for (;;) {
        cs_col_batch *in;
        int rc = cs_sql_op_next(op->children[0], &in, err);
        if (rc || !in) return rc;
        if (in->num_rows == 0) {
            cs_col_batch_unref(in);
            continue;
        }
        cs_column *x;
        if ((rc = cs_pexpr_eval(s->program, in, op->ctx, &x, err)) != 0) {
            cs_col_batch_unref(in);
            return rc;
        }
        const double *d = (const double *)x->values;
        int32_t *idx = idx_room(s, in->num_rows);
        int64_t m = 0;
        for (int64_t i = 0; i < in->num_rows; i++)
            if (d[i] >= s->lower && d[i] < s->upper) idx[m++] = (int32_t)i;
        cs_column_unref(x);
        if (m == 0) {
            cs_col_batch_unref(in);
            continue;
        }
        if (m == in->num_rows) {
            *out = in;
            return CS_OK;
        }
        *out = cs_col_batch_take(in, idx, m, op->ctx->alloc);
        cs_col_batch_unref(in);
        return CS_OK;
    }
}

/* PoissonSampler: each row as many times as its draw, at most batch_rows rows a batch */
static int poisson_next(sample_op *s, cs_col_batch **out, cs_error *err)
{
    cs_sql_op *op = &s->base;
    if (!(s->upper - s->lower > 0.0)) return CS_OK; /* Spark: Iterator.empty, no draws */
    int64_t cap = cs_sql_batch_rows(op->ctx), m = 0;
    int32_t *idx = idx_room(s, cap);
    for (;;) {
        if (!s->in) {
            int rc = cs_sql_op_next(op->children[0], &s->in, err);
            if (rc) return rc;
            if (!s->in) break;
            s->at = 0;
            s->pending = -1;
        }
        while (s->at < s->in->num_rows && m < cap) {
            if (s->pending < 0) s->pending = cs_poisson_next(&s->poisson);
            while (s->pending > 0 && m < cap) {
                idx[m++] = (int32_t)s->at;
                s->pending--;
            }
            if (s->pending == 0) {
                s->at++;
                s->pending = -1;
            }
        }
        if (m > 0) {
            *out = cs_col_batch_take(s->in, idx, m, op->ctx->alloc);
            if (s->at >= s->in->num_rows) {
                cs_col_batch_unref(s->in);
                s->in = NULL;
            }
            return CS_OK;
        }
        cs_col_batch_unref(s->in);
        s->in = NULL;
    }
    return CS_OK;
}

static int sample_next(cs_sql_op *op, cs_col_batch **out, cs_error *err)
{
    sample_op *s = (sample_op *)op;
    return s->with_replacement ? poisson_next(s, out, err) : bernoulli_next(s, out, err);
}

static void sample_close(cs_sql_op *op)
{
    sample_op *s = (sample_op *)op;
    cs_pexpr_program_free(s->program);
    s->program = NULL;
    if (s->in) cs_col_batch_unref(s->in);
    s->in = NULL;
    free(s->idx);
    s->idx = NULL;
    s->idx_cap = 0;
    cs_sql_op_close(op->children[0]);
}

static void sample_destroy(cs_sql_op *op)
{
    sample_op *s = (sample_op *)op;
    cs_pexpr_free(s->draw);
    free(s);
}

/* Spark's "Sample 0.0, 0.3, false, 17" */
static void sample_explain(const cs_sql_op *op, cs_sbuf *out)
{
    const sample_op *s = (const sample_op *)op;
    cs_tv_format_double(s->lower, out);
    cs_sbuf_puts(out, ", ");
    cs_tv_format_double(s->upper, out);
    cs_sbuf_printf(out, ", %s, %lld", s->with_replacement ? "true" : "false", (long long)s->seed);
}

static const cs_sql_op_vtable SAMPLE_VT = {"Sample",     sample_open,    sample_next,
                                           sample_close, sample_destroy, sample_explain};

cs_sql_op *cs_sql_op_sample(cs_sql_op *child, double lower, double upper, bool with_replacement,
                            int64_t seed)
{
    sample_op *s = cs_xcalloc(1, sizeof *s);
    s->lower = lower;
    s->upper = upper;
    s->with_replacement = with_replacement;
    s->seed = seed;
    if (!with_replacement) {
        cs_col_builder *b = cs_col_builder_new(NULL, cs_col_type_primitive(CS_TYPE_LONG));
        cs_col_builder_append_values(b, &seed, 1, NULL);
        cs_pexpr *arg = cs_pexpr_literal(cs_col_builder_finish(b));
        cs_col_builder_free(b);
        s->draw = cs_pexpr_call("rand", cs_col_type_primitive(CS_TYPE_DOUBLE), false, &arg, 1);
    }
    cs_sql_op_init(&s->base, &SAMPLE_VT, cs_col_type_ref(child->schema), &child, 1);
    return &s->base;
}
