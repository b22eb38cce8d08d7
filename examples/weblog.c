/*
 * weblog.c — web-server access log analytics: status codes, the most requested pages and the
 * hosts that downloaded the most bytes.
 *
 * Spark equivalent:
 *
 *     val malformed = sc.longAccumulator("malformed lines")
 *     val logs   = sc.textFile(input).flatMap { l =>
 *                    val r = parse(l); if (r.isEmpty) malformed.add(1); r }.cache()
 *     val status = logs.map(_.status).countByValue()        // reads the file, fills the cache
 *     val pages  = logs.map(r => (r.path, 1L)).reduceByKey(_ + _).map(_.swap).top(10)
 *     val hosts  = logs.map(r => (r.host, r.bytes)).reduceByKey(_ + _).map(_.swap).top(5)
 *
 * Lines are in the Common (or Combined) Log Format:
 *     host ident user [day/Mon/year:hh:mm:ss zone] "METHOD path PROTOCOL" status bytes ...
 * where the request has exactly three fields, status is three digits and bytes may be "-" (0). A
 * line that does not parse is malformed: the parse skips it and adds 1 to the "malformed lines"
 * accumulator, so counting them costs no extra pass. The parsed lines are cached (MEMORY_ONLY):
 * the file is read once, by the status count; the page and host jobs read the cache. The
 * accumulator is read after that first job, which parsed every line once (Spark's semantics: a
 * partition parsed again — a cached block evicted or lost — counts its lines again).
 *
 * A parsed line is one record: key = a cspark list of host, path and status; value = the bytes
 * (i64). The page and host rankings use cspark.h's tuples: the key (i64 count, bytes name) sorts
 * by count, then name, so top(10) returns the 10 most requested pages, ties broken by the path
 * (greater first), without sorting the data: each task keeps a heap of 10.
 *
 * Output (stdout):
 *     lines N
 *     malformed M
 *     status CODE COUNT          (one line per status code, in code order)
 *     page COUNT PATH            (top 10: count descending, then path descending)
 *     host BYTES HOST            (top 5: bytes descending, then host descending)
 * Usage: weblog.so INPUT (file, directory, glob or comma-separated list).
 */
#include <cspark.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WEBLOG_TOP_PAGES 10
#define WEBLOG_TOP_HOSTS 5

typedef struct log_line {
    cspark_slice host, path, status;
    int64_t bytes;
} log_line;

static const uint8_t *skip_field(const uint8_t *p, const uint8_t *end)
{
    while (p < end && *p != ' ')
        p++;
    return p < end ? p + 1 : NULL;
}

/* Parses one Common Log Format line; false when it is malformed. */
static bool parse_line(cspark_slice line, log_line *out)
{
    const uint8_t *p = line.ptr, *end = line.ptr + line.len, *q;
    out->host.ptr = p;
    if (!(q = skip_field(p, end)) || q - p < 2) return false;
    out->host.len = (uint32_t)(q - 1 - p);
    if (!(p = skip_field(q, end)) || !(p = skip_field(p, end))) return false; /* ident, user */
    if (p >= end || *p != '[' || !(q = memchr(p, ']', (size_t)(end - p)))) return false;
    p = q + 1;
    if (end - p < 3 || p[0] != ' ' || p[1] != '"') return false;
    p += 2;
    if (!(q = memchr(p, '"', (size_t)(end - p)))) return false;
    const uint8_t *req_end = q, *sp1 = memchr(p, ' ', (size_t)(req_end - p));
    if (!sp1 || sp1 == p) return false;
    const uint8_t *path = sp1 + 1, *sp2 = memchr(path, ' ', (size_t)(req_end - path));
    if (!sp2 || sp2 == path || sp2 + 1 == req_end) return false;
    if (memchr(sp2 + 1, ' ', (size_t)(req_end - sp2 - 1))) return false; /* METHOD path PROTO */
    out->path = (cspark_slice){path, (uint32_t)(sp2 - path)};
    p = req_end + 1;
    if (end - p < 5 || p[0] != ' ') return false;
    p++;
    for (int i = 0; i < 3; i++)
        if (p[i] < '0' || p[i] > '9') return false;
    out->status = (cspark_slice){p, 3};
    p += 3;
    if (p >= end || *p != ' ') return false;
    p++;
    if (p < end && *p == '-') {
        out->bytes = 0;
        p++;
    } else {
        int64_t b = 0;
        const uint8_t *digits = p;
        while (p < end && *p >= '0' && *p <= '9' && p - digits < 18)
            b = b * 10 + (*p++ - '0');
        if (p == digits) return false;
        out->bytes = b;
    }
    return p == end || *p == ' ';
}

/* line -> (list(host, path, status), i64 bytes); a malformed line adds 1 to the accumulator in
 * the closure and emits nothing. */
void weblog_parse(const cspark_record *in, cspark_emitter *out, cspark_task_context *tc)
{
    const cspark_accumulator *malformed = cspark_closure(tc, NULL);
    log_line l;
    if (!parse_line(in->key, &l)) {
        cspark_long_accumulator_add(tc, *malformed, 1);
        return;
    }
    uint8_t *value;
    uint8_t *key =
        cspark_emit_reserve(out, 12 + (size_t)l.host.len + l.path.len + l.status.len, 8, &value);
    key = cspark_list_put(key, l.host.ptr, l.host.len);
    key = cspark_list_put(key, l.path.ptr, l.path.len);
    cspark_list_put(key, l.status.ptr, l.status.len);
    cspark_i64_encode(l.bytes, value);
}

/* The host, path and status of a parsed line. */
static void parsed_fields(const cspark_record *in, cspark_slice *host, cspark_slice *path,
                          cspark_slice *status, cspark_task_context *tc)
{
    cspark_slice list = in->key;
    if (!cspark_list_next(&list, host) || !cspark_list_next(&list, path) ||
        !cspark_list_next(&list, status))
        cspark_task_fail(tc, "weblog: a parsed line without host, path and status");
}

/* parsed line -> (status, empty): counted by count_by_value */
void weblog_status(const cspark_record *in, cspark_emitter *out, cspark_task_context *tc)
{
    cspark_slice host, path, status;
    parsed_fields(in, &host, &path, &status, tc);
    cspark_emit(out, status.ptr, status.len, NULL, 0);
}

/* parsed line -> (path, 1) */
void weblog_page(const cspark_record *in, cspark_emitter *out, cspark_task_context *tc)
{
    cspark_slice host, path, status;
    parsed_fields(in, &host, &path, &status, tc);
    uint8_t one[8];
    cspark_i64_encode(1, one);
    cspark_emit(out, path.ptr, path.len, one, 8);
}

/* parsed line -> (host, bytes) */
void weblog_host(const cspark_record *in, cspark_emitter *out, cspark_task_context *tc)
{
    cspark_slice host, path, status;
    parsed_fields(in, &host, &path, &status, tc);
    cspark_emit(out, host.ptr, host.len, in->value.ptr, in->value.len);
}

/* (name, i64 n) -> key tuple (n, name): top orders by n, then name */
void weblog_rank_key(const cspark_record *in, cspark_emitter *out, cspark_task_context *tc)
{
    size_t need = 8 + (size_t)in->key.len * 2 + 2; /* worst case: every byte escaped */
    uint8_t stack[512];
    uint8_t *buf = need <= sizeof stack ? stack : malloc(need);
    if (!buf) cspark_task_fail(tc, "weblog: out of memory");
    cspark_tuple_writer w;
    cspark_tuple_init(&w, buf, need);
    cspark_tuple_put_i64(&w, cspark_slice_i64(in->value));
    cspark_tuple_put_bytes(&w, in->key.ptr, in->key.len);
    cspark_emit(out, buf, w.len, NULL, 0);
    if (buf != stack) free(buf);
}

static int print_ranking(cspark_rdd *counts, size_t n, const char *label)
{
    cspark_records *top = NULL;
    if (cspark_top(cspark_map(counts, weblog_rank_key, NULL, 0), n, &top) < 0) return -1;
    for (size_t i = 0; i < cspark_records_count(top); i++) {
        cspark_tuple_reader r = cspark_tuple_read(cspark_records_get(top, i).key);
        int64_t count;
        cspark_slice name;
        uint8_t scratch[4096];
        if (!cspark_tuple_get_i64(&r, &count) ||
            !cspark_tuple_get_bytes(&r, &name, scratch, sizeof scratch))
            continue;
        printf("%s %" PRId64 " %.*s\n", label, count, (int)name.len, (const char *)name.ptr);
    }
    cspark_records_free(top);
    return 0;
}

int cspark_main(cspark_context *sc, int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: weblog.so INPUT\n");
        return 2;
    }
    cspark_accumulator malformed = cspark_long_accumulator(sc, "malformed lines");
    if (malformed.id < 0) return 1;
    cspark_rdd *logs = cspark_cache(cspark_flat_map(cspark_text_file(sc, argv[1], 0), weblog_parse,
                                                    &malformed, sizeof malformed));

    cspark_records *status = NULL;
    if (cspark_count_by_value(cspark_map(logs, weblog_status, NULL, 0), &status) < 0) return 1;
    int64_t bad = cspark_long_accumulator_value(sc, malformed), total = bad;
    for (size_t i = 0; i < cspark_records_count(status); i++)
        total += cspark_slice_i64(cspark_records_get(status, i).value);
    printf("lines %" PRId64 "\nmalformed %" PRId64 "\n", total, bad);
    for (size_t i = 0; i < cspark_records_count(status); i++) {
        cspark_record r = cspark_records_get(status, i);
        printf("status %.*s %" PRId64 "\n", (int)r.key.len, (const char *)r.key.ptr,
               cspark_slice_i64(r.value));
    }
    cspark_records_free(status);

    cspark_rdd *pages =
        cspark_reduce_by_key(cspark_map(logs, weblog_page, NULL, 0), cspark_sum_i64, NULL, 0, 0);
    cspark_rdd *hosts =
        cspark_reduce_by_key(cspark_map(logs, weblog_host, NULL, 0), cspark_sum_i64, NULL, 0, 0);
    int rc = print_ranking(pages, WEBLOG_TOP_PAGES, "page") < 0 ||
                     print_ranking(hosts, WEBLOG_TOP_HOSTS, "host") < 0
                 ? 1
                 : 0;
    cspark_unpersist(logs);
    return rc;
}
