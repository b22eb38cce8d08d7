/*
 * pairops.c — a job running every key/value and ordering operation of cspark.h's issue-13 set,
 * writing what each returns as text under OUTDIR (one file per operation) for
 * tests/integration/pair_ops.sh to compare with a reference computed in Python.
 *
 * Usage: pairops.so A.tsv B.tsv DOCS_DIR OUTDIR
 *   A.tsv: key TAB integer lines; B.tsv: key TAB word lines; DOCS_DIR: text files.
 * The functions that run inside tasks fail the first attempt of partition 1 (the retried task must
 * give the same result), so the test also shows retries change nothing.
 */
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cspark.h"

static const char *outdir;

static void flaky(cspark_task_context *tc)
{
    if (cspark_partition_id(tc) == 1 && cspark_attempt_number(tc) == 0)
        cspark_task_fail(tc, "pairops: planned failure of the first attempt of partition 1");
}

/* The executor running the first task that finds OUTDIR/kill-executor (the closure of parse_num:
 * a driver global such as outdir would not reach an executor) removes it and dies: an executor
 * lost mid-job. Only a test on local-cluster creates the file. */
static void maybe_kill_executor(cspark_task_context *tc)
{
    size_t len;
    const char *dir = cspark_closure(tc, &len);
    if (!dir || !len || cspark_partition_id(tc) != 2) return;
    char path[4200];
    snprintf(path, sizeof path, "%s/kill-executor", dir);
    if (unlink(path) == 0) raise(SIGKILL);
}

/* "key\tnumber" -> (key, i64) */
void parse_num(const cspark_record *in, cspark_emitter *out, cspark_task_context *tc)
{
    flaky(tc);
    maybe_kill_executor(tc);
    const uint8_t *tab = memchr(in->key.ptr, '\t', in->key.len);
    size_t klen = tab ? (size_t)(tab - in->key.ptr) : in->key.len;
    char num[32] = "0";
    if (tab) {
        size_t n = in->key.len - klen - 1;
        if (n > sizeof num - 1) n = sizeof num - 1;
        memcpy(num, tab + 1, n);
        num[n] = 0;
    }
    uint8_t v[8];
    cspark_i64_encode(strtoll(num, NULL, 10), v);
    cspark_emit(out, in->key.ptr, klen, v, 8);
}

/* "key\tword" -> (key, word) */
void parse_word(const cspark_record *in, cspark_emitter *out, cspark_task_context *tc)
{
    const uint8_t *tab = memchr(in->key.ptr, '\t', in->key.len);
    size_t klen = tab ? (size_t)(tab - in->key.ptr) : in->key.len;
    cspark_emit(out, in->key.ptr, klen, tab ? tab + 1 : NULL, tab ? in->key.len - klen - 1 : 0);
}

void double_value(const cspark_record *in, cspark_emitter *out, cspark_task_context *tc)
{
    flaky(tc);
    uint8_t v[8];
    cspark_i64_encode(2 * cspark_slice_i64(in->value), v);
    cspark_emit_value(out, v, 8);
}

/* v mod 3 copies of v */
void repeat_value(const cspark_record *in, cspark_emitter *out, cspark_task_context *tc)
{
    int64_t v = cspark_slice_i64(in->value);
    for (int64_t i = 0; i < ((v % 3) + 3) % 3; i++)
        cspark_emit_value(out, in->value.ptr, 8);
}

/* key_by / sort_by: the value, negated (so ascending order = values descending) */
void neg_value_key(const cspark_record *in, cspark_emitter *out, cspark_task_context *tc)
{
    flaky(tc);
    uint8_t k[8];
    cspark_i64_encode(-cspark_slice_i64(in->value), k);
    cspark_emit_key(out, k, 8);
}

/* combine_by_key with a tuple (sum i64, count i64) */
void sc_create(cspark_value *acc, cspark_slice v, cspark_task_context *tc)
{
    uint8_t buf[16];
    cspark_tuple_writer w;
    cspark_tuple_init(&w, buf, sizeof buf);
    cspark_tuple_put_i64(&w, cspark_slice_i64(v));
    cspark_tuple_put_i64(&w, 1);
    cspark_value_set(acc, buf, w.len);
}

static void sc_add(cspark_value *acc, int64_t s, int64_t c)
{
    cspark_tuple_reader r = cspark_tuple_read((cspark_slice){acc->ptr, acc->len});
    int64_t s0, c0;
    if (!cspark_tuple_get_i64(&r, &s0) || !cspark_tuple_get_i64(&r, &c0)) return;
    cspark_tuple_writer w;
    cspark_tuple_init(&w, acc->ptr, acc->len);
    cspark_tuple_put_i64(&w, s0 + s);
    cspark_tuple_put_i64(&w, c0 + c);
}

void sc_merge_value(cspark_value *acc, cspark_slice v, cspark_task_context *tc)
{
    sc_add(acc, cspark_slice_i64(v), 1);
}

void sc_merge_combiners(cspark_value *acc, cspark_slice other, cspark_task_context *tc)
{
    cspark_tuple_reader r = cspark_tuple_read(other);
    int64_t s, c;
    if (!cspark_tuple_get_i64(&r, &s) || !cspark_tuple_get_i64(&r, &c))
        cspark_task_fail(tc, "bad combiner");
    sc_add(acc, s, c);
}

void count_in_partition(int index, cspark_iterator *in, cspark_emitter *out,
                        cspark_task_context *tc)
{
    cspark_record r;
    int64_t n = 0;
    while (cspark_iterator_next(in, &r))
        n++;
    uint8_t k[8], v[8];
    cspark_i64_encode(index, k);
    cspark_i64_encode(n, v);
    cspark_emit(out, k, 8, v, 8);
}

/* the line's file name (its last path component) as key */
void by_file(const cspark_record *in, cspark_emitter *out, cspark_task_context *tc)
{
    const char *f = cspark_input_file_name(tc), *slash = strrchr(f, '/');
    if (slash) f = slash + 1;
    cspark_emit(out, f, strlen(f), NULL, 0);
}

/* partition_by: key "k<number>" -> number mod n */
int key_number_mod(cspark_slice key, int n, cspark_task_context *tc)
{
    char digits[16] = "0";
    size_t len = key.len > 1 && key.len - 1 < sizeof digits ? key.len - 1 : 0;
    if (len) memcpy(digits, key.ptr + 1, len);
    digits[len ? len : 1] = 0;
    return (int)(strtol(digits, NULL, 10) % n);
}

/* (key, value) -> (partition index as text, key): where partition_by put each record */
void tag_partition(int index, cspark_iterator *in, cspark_emitter *out, cspark_task_context *tc)
{
    cspark_record r;
    char idx[16];
    int n = snprintf(idx, sizeof idx, "%d", index);
    while (cspark_iterator_next(in, &r))
        cspark_emit(out, idx, (size_t)n, r.key.ptr, r.key.len);
}

/* (k, "") -> (k, k): range numbers as values for tree_aggregate */
void key_as_value(const cspark_record *in, cspark_emitter *out, cspark_task_context *tc)
{
    flaky(tc);
    cspark_emit_value(out, in->key.ptr, in->key.len);
}

/* fails once the closure's marker file exists: proves a checkpointed RDD is not recomputed */
void fail_if_marker(const cspark_record *in, cspark_emitter *out, cspark_task_context *tc)
{
    size_t len;
    const char *marker = cspark_closure(tc, &len);
    if (access(marker, F_OK) == 0)
        cspark_task_fail(tc, "pairops: the checkpointed lineage was computed again");
    cspark_emit_record(out, in);
}

/* ---- the driver ---------------------------------------------------------------------------- */

static FILE *open_out(const char *name)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.txt", outdir, name);
    FILE *f = fopen(path, "w");
    if (!f) {
        perror(path);
        exit(1);
    }
    return f;
}

static void put_bytes(FILE *f, cspark_slice s)
{
    fwrite(s.ptr, 1, s.len, f);
}

enum fmt { TEXT, NUM, NUMKEY_NUM, NUMKEY };

/* Writes records as "key\tvalue" lines, the value (and key) decoded as fmt says. */
static int write_records(const char *name, cspark_records *r, enum fmt fmt)
{
    if (!r) return 1;
    FILE *f = open_out(name);
    for (size_t i = 0; i < cspark_records_count(r); i++) {
        cspark_record rec = cspark_records_get(r, i);
        if (fmt == NUMKEY_NUM || fmt == NUMKEY)
            fprintf(f, "%" PRId64, cspark_slice_i64(rec.key));
        else
            put_bytes(f, rec.key);
        fputc('\t', f);
        if (fmt == TEXT)
            put_bytes(f, rec.value);
        else if (fmt != NUMKEY)
            fprintf(f, "%" PRId64, cspark_slice_i64(rec.value));
        fputc('\n', f);
    }
    fclose(f);
    cspark_records_free(r);
    return 0;
}

static cspark_records *collect(cspark_rdd *rdd)
{
    cspark_records *r = NULL;
    return cspark_collect(rdd, &r) == 0 ? r : NULL;
}

static int write_sides(const char *name, cspark_rdd *rdd)
{
    cspark_records *r = collect(rdd);
    if (!r) return 1;
    FILE *f = open_out(name);
    for (size_t i = 0; i < cspark_records_count(r); i++) {
        cspark_record rec = cspark_records_get(r, i);
        cspark_slice l, rt;
        int sides = cspark_join_sides(rec.value, &l, &rt);
        put_bytes(f, rec.key);
        fputc('\t', f);
        if (sides & CSPARK_LEFT)
            fprintf(f, "%" PRId64, cspark_slice_i64(l));
        else
            fputs("NONE", f);
        fputc('\t', f);
        if (sides & CSPARK_RIGHT)
            put_bytes(f, rt);
        else
            fputs("NONE", f);
        fputc('\n', f);
    }
    fclose(f);
    cspark_records_free(r);
    return 0;
}

/* records whose value is a pair (key, i64): "outer\tkey\tnumber" */
static int write_packed(const char *name, cspark_records *r, bool numkey)
{
    if (!r) return 1;
    FILE *f = open_out(name);
    for (size_t i = 0; i < cspark_records_count(r); i++) {
        cspark_record rec = cspark_records_get(r, i);
        cspark_slice k, v;
        if (!cspark_pair_split(rec.value, &k, &v)) return 1;
        if (numkey)
            fprintf(f, "%" PRId64, cspark_slice_i64(rec.key));
        else
            put_bytes(f, rec.key);
        fputc('\t', f);
        put_bytes(f, k);
        fputc('\t', f);
        if (v.len == 8)
            fprintf(f, "%" PRId64, cspark_slice_i64(v));
        else
            put_bytes(f, v);
        fputc('\n', f);
    }
    fclose(f);
    cspark_records_free(r);
    return 0;
}

int cspark_main(cspark_context *sc, int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: pairops.so A.tsv B.tsv DOCS_DIR OUTDIR\n");
        return 2;
    }
    outdir = argv[4];
    cspark_rdd *a_lines = cspark_text_file(sc, argv[1], 3);
    cspark_rdd *b_lines = cspark_text_file(sc, argv[2], 2);
    cspark_rdd *a = cspark_map(a_lines, parse_num, outdir, strlen(outdir) + 1);
    cspark_rdd *b = cspark_map(b_lines, parse_word, NULL, 0);
    int rc = 0;
    cspark_records *r;

    rc |= write_records("map_values", collect(cspark_map_values(a, double_value, NULL, 0)), NUM);
    rc |= write_records("flat_map_values",
                        collect(cspark_flat_map_values(a, repeat_value, NULL, 0)), NUM);
    rc |= write_records("keys", collect(cspark_keys(a)), TEXT);
    rc |= write_records("values", collect(cspark_values(b)), TEXT);
    rc |= write_packed("key_by", collect(cspark_key_by(a, neg_value_key, NULL, 0)), true);
    rc |=
        write_records("sort_by", collect(cspark_sort_by(a, neg_value_key, NULL, 0, true, 3)), NUM);
    r = NULL;
    rc |= cspark_top(a, 7, &r) ? 1 : write_records("top", r, NUM);
    r = NULL;
    rc |= cspark_take_ordered(a, 7, &r) ? 1 : write_records("take_ordered", r, NUM);
    r = NULL;
    rc |= cspark_top(a, 100000, &r) ? 1 : write_records("top_all", r, NUM);
    r = NULL;
    rc |= cspark_first(a_lines, &r) ? 1 : write_records("first", r, TEXT);
    r = NULL;
    rc |= cspark_count_by_key(a, &r) ? 1 : write_records("count_by_key", r, NUM);
    r = NULL;
    rc |= cspark_count_by_value(cspark_keys(b), &r) ? 1 : write_records("count_by_value", r, NUM);
    r = NULL;
    rc |= cspark_collect_as_map(b, &r) ? 1 : 0;
    if (r) { /* lookups through the sorted result */
        cspark_slice v;
        FILE *f = open_out("find");
        fprintf(f, "%d %d\n", cspark_records_find(r, "k1", 2, &v) ? (int)v.len : -1,
                cspark_records_find(r, "no-such-key", 11, &v) ? 1 : 0);
        fclose(f);
    }
    rc |= write_records("collect_as_map", r, TEXT);
    uint8_t zero[8];
    cspark_i64_encode(0, zero);
    rc |= write_records("fold_by_key",
                        collect(cspark_fold_by_key(a, zero, 8, cspark_sum_i64, NULL, 0, 2)), NUM);
    r = collect(
        cspark_combine_by_key(a, sc_create, sc_merge_value, sc_merge_combiners, NULL, 0, 3));
    if (!r) return 1;
    {
        FILE *f = open_out("combine_by_key");
        for (size_t i = 0; i < cspark_records_count(r); i++) {
            cspark_record rec = cspark_records_get(r, i);
            cspark_tuple_reader tr = cspark_tuple_read(rec.value);
            int64_t s, c;
            if (!cspark_tuple_get_i64(&tr, &s) || !cspark_tuple_get_i64(&tr, &c)) return 1;
            put_bytes(f, rec.key);
            fprintf(f, "\t%" PRId64 "\t%" PRId64 "\n", s, c);
        }
        fclose(f);
        cspark_records_free(r);
    }
    r = collect(
        cspark_aggregate_by_key(b, "", 0, cspark_list_append, cspark_list_concat, NULL, 0, 2));
    if (!r) return 1;
    {
        FILE *f = open_out("collect_list");
        for (size_t i = 0; i < cspark_records_count(r); i++) {
            cspark_record rec = cspark_records_get(r, i);
            cspark_slice list = rec.value, item;
            put_bytes(f, rec.key);
            fprintf(f, "\t%zu", cspark_list_count(list));
            while (cspark_list_next(&list, &item)) {
                fputc('\t', f);
                put_bytes(f, item);
            }
            fputc('\n', f);
        }
        fclose(f);
        cspark_records_free(r);
    }
    rc |= write_sides("right_outer_join", cspark_right_outer_join(a, b, 3));
    rc |= write_sides("full_outer_join", cspark_full_outer_join(a, b, 2));
    rc |= write_records("subtract_by_key", collect(cspark_subtract_by_key(a, b, 2)), NUM);
    rc |= write_records("subtract", collect(cspark_subtract(a_lines, b_lines, 2)), TEXT);
    rc |= write_records("intersection", collect(cspark_intersection(a_lines, b_lines, 2)), TEXT);

    /* sampling over a range whose partitions are known: [p*N/4, (p+1)*N/4) */
    cspark_rdd *range = cspark_range(sc, 0, 20000, 1, 4);
    rc |= write_records("sample", collect(cspark_sample(range, false, 0.3, 42)), NUMKEY);
    rc |= write_records("sample_repl", collect(cspark_sample(range, true, 0.5, 7)), NUMKEY);
    cspark_rdd *parts[3];
    double weights[3] = {1, 2, 3};
    if (cspark_random_split(range, weights, 3, 9, parts) < 0) return 1;
    for (int i = 0; i < 3; i++) {
        char name[32];
        snprintf(name, sizeof name, "split%d", i);
        rc |= write_records(name, collect(parts[i]), NUMKEY);
    }
    rc |= write_packed("zip_with_index", collect(cspark_zip_with_index(a_lines)), true);
    rc |= write_records(
        "partition_counts",
        collect(cspark_map_partitions_with_index(range, count_in_partition, NULL, 0)), NUMKEY_NUM);

    /* files */
    r = collect(cspark_whole_text_files(sc, argv[3], 2));
    if (!r) return 1;
    {
        FILE *f = open_out("whole_text_files");
        for (size_t i = 0; i < cspark_records_count(r); i++) {
            cspark_record rec = cspark_records_get(r, i);
            const uint8_t *slash = rec.key.ptr;
            for (size_t k = 0; k < rec.key.len; k++)
                if (rec.key.ptr[k] == '/') slash = rec.key.ptr + k + 1;
            fwrite(slash, 1, rec.key.len - (size_t)(slash - rec.key.ptr), f);
            fprintf(f, "\t%u\t", rec.value.len);
            /* the content's line count and first line */
            size_t lines = 0;
            for (size_t k = 0; k < rec.value.len; k++)
                lines += rec.value.ptr[k] == '\n';
            const uint8_t *nl = memchr(rec.value.ptr, '\n', rec.value.len);
            fprintf(f, "%zu\t", lines);
            fwrite(rec.value.ptr, 1, nl ? (size_t)(nl - rec.value.ptr) : rec.value.len, f);
            fputc('\n', f);
        }
        fclose(f);
        cspark_records_free(r);
    }
    r = NULL;
    rc |= cspark_count_by_key(cspark_map(cspark_text_file(sc, argv[3], 3), by_file, NULL, 0), &r)
              ? 1
              : write_records("input_file_name", r, NUM);
    /* partition_by with a user partitioner: where each record landed */
    rc |= write_records(
        "partition_by",
        collect(cspark_map_partitions_with_index(cspark_partition_by(a, key_number_mod, NULL, 0, 3),
                                                 tag_partition, NULL, 0)),
        TEXT);
    /* cartesian of two small parallelized RDDs */
    cspark_record xs[5], ys[4];
    const char *xk[] = {"x1", "x2", "x3", "x4", "x5"}, *yk[] = {"y1", "y2", "y3", ""};
    for (int i = 0; i < 5; i++)
        xs[i] = (cspark_record){{(const uint8_t *)xk[i], 2}, {(const uint8_t *)"v", 1}};
    for (int i = 0; i < 4; i++)
        ys[i] = (cspark_record){{(const uint8_t *)yk[i], (uint32_t)strlen(yk[i])}, {NULL, 0}};
    cspark_rdd *cart =
        cspark_cartesian(cspark_parallelize(sc, xs, 5, 2), cspark_parallelize(sc, ys, 4, 3));
    r = collect(cart);
    if (!r) return 1;
    {
        FILE *f = open_out("cartesian");
        fprintf(f, "partitions %d\n", cspark_num_partitions(cart));
        for (size_t i = 0; i < cspark_records_count(r); i++) {
            cspark_record rec = cspark_records_get(r, i);
            cspark_slice k1, v1, k2, v2;
            if (!cspark_pair_split(rec.key, &k1, &v1) || !cspark_pair_split(rec.value, &k2, &v2))
                return 1;
            fprintf(f, "%.*s\t%.*s\t%.*s\t%.*s\n", (int)k1.len, (const char *)k1.ptr, (int)v1.len,
                    (const char *)v1.ptr, (int)k2.len, (const char *)k2.ptr, (int)v2.len,
                    (const char *)v2.ptr);
        }
        fclose(f);
        cspark_records_free(r);
    }
    /* tree_aggregate: the sum of 0 .. 99999 over 64 partitions, depths 1, 2 and 3 */
    {
        cspark_rdd *vals =
            cspark_map_values(cspark_range(sc, 0, 100000, 1, 64), key_as_value, NULL, 0);
        FILE *f = open_out("tree_aggregate");
        for (int depth = 1; depth <= 3; depth++) {
            void *sum = NULL;
            size_t len = 0;
            if (cspark_tree_aggregate(vals, zero, 8, cspark_sum_i64, cspark_sum_i64, NULL, 0, depth,
                                      &sum, &len) < 0)
                return 1;
            fprintf(f, "%d %" PRId64 "\n", depth, len == 8 ? cspark_i64_decode(sum) : -1);
            free(sum);
        }
        fclose(f);
    }
    /* checkpoint: the sums by key, checkpointed; then the source may no longer be computed */
    {
        char marker[4200];
        snprintf(marker, sizeof marker, "%s/recompute-marker", outdir);
        cspark_rdd *sums = cspark_reduce_by_key(a, cspark_sum_i64, NULL, 0, 2);
        /* after the shuffle, so that recomputing the lineage (not only the map stage, whose
         * outputs are kept) would call it */
        cspark_rdd *guarded = cspark_map(sums, fail_if_marker, marker, strlen(marker) + 1);
        cspark_rdd *ck = cspark_checkpoint(guarded);
        if (!ck) return 1;
        FILE *m = fopen(marker, "w");
        if (!m) return 1;
        fclose(m);
        rc |= write_records("checkpoint", collect(ck), NUM);
        int64_t n = 0;
        rc |= cspark_count(ck, &n) ? 1 : 0;
        FILE *f = open_out("checkpoint_count");
        fprintf(f, "%" PRId64 "\n", n);
        fclose(f);
    }

    if (rc) fprintf(stderr, "pairops: %s\n", cspark_last_error(sc) ? cspark_last_error(sc) : "?");
    return rc ? 1 : 0;
}

/* ---- refusals (entry functions for tests/integration/pair_ops_bad_input.sh, --class NAME) -- */

static int report(cspark_context *sc)
{
    fprintf(stderr, "pairops: %s\n", cspark_last_error(sc) ? cspark_last_error(sc) : "no error");
    return 1;
}

int bad_sample(cspark_context *sc, int argc, char **argv)
{
    return cspark_sample(cspark_range(sc, 0, 10, 1, 2), false, 1.5, 1) ? 0 : report(sc);
}

int bad_split(cspark_context *sc, int argc, char **argv)
{
    double w[2] = {1, -1};
    cspark_rdd *out[2];
    return cspark_random_split(cspark_range(sc, 0, 10, 1, 2), w, 2, 1, out) == 0 ? 0 : report(sc);
}

int bad_checkpoint(cspark_context *sc, int argc, char **argv)
{
    return cspark_checkpoint(cspark_range(sc, 0, 10, 1, 2)) ? 0 : report(sc);
}

int bad_depth(cspark_context *sc, int argc, char **argv)
{
    uint8_t zero[8] = {0};
    void *out = NULL;
    size_t len;
    return cspark_tree_aggregate(cspark_range(sc, 0, 10, 1, 2), zero, 8, cspark_sum_i64,
                                 cspark_sum_i64, NULL, 0, 0, &out, &len) == 0
               ? 0
               : report(sc);
}

int empty_first(cspark_context *sc, int argc, char **argv)
{
    cspark_records *r = NULL;
    return cspark_first(cspark_range(sc, 0, 0, 1, 2), &r) == 0 ? 0 : report(sc);
}

int missing_files(cspark_context *sc, int argc, char **argv)
{
    return cspark_whole_text_files(sc, argc > 1 ? argv[1] : "/nonexistent", 0) ? 0 : report(sc);
}

int out_of_range(cspark_slice key, int n, cspark_task_context *tc)
{
    return n;
}

int bad_partitioner(cspark_context *sc, int argc, char **argv)
{
    int64_t n;
    return cspark_count(
               cspark_partition_by(cspark_range(sc, 0, 10, 1, 2), out_of_range, NULL, 0, 3), &n) ==
                   0
               ? 0
               : report(sc);
}

void emits_record(const cspark_record *in, cspark_emitter *out, cspark_task_context *tc)
{
    cspark_emit_record(out, in);
}

int map_values_emit(cspark_context *sc, int argc, char **argv)
{
    int64_t n;
    return cspark_count(cspark_map_values(cspark_range(sc, 0, 10, 1, 2), emits_record, NULL, 0),
                        &n) == 0
               ? 0
               : report(sc);
}

int huge_top(cspark_context *sc, int argc, char **argv)
{
    cspark_records *r = NULL;
    return cspark_top(cspark_range(sc, 0, 10, 1, 2), (size_t)1 << 40, &r) == 0 ? 0 : report(sc);
}
