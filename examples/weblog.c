/*
 * weblog.c — web-server access log analytics: status codes, the most requested pages and the
 * hosts that downloaded the most bytes.
 *
 * Spark equivalent:
 *
 *     val logs   = sc.textFile(input).map(parse)                    // None for a malformed line
 *     val status = logs.map(_.fold("malformed")(_.status)).countByValue()
 *     val ok     = logs.flatMap(identity)
 *     val pages  = ok.map(r => (r.path, 1L)).reduceByKey(_ + _).map(_.swap).top(10)
 *     val hosts  = ok.map(r => (r.host, r.bytes)).reduceByKey(_ + _).map(_.swap).top(5)
 *
 * Lines are in the Common (or Combined) Log Format:
 *     host ident user [day/Mon/year:hh:mm:ss zone] "METHOD path PROTOCOL" status bytes ...
 * where the request has exactly three fields, status is three digits and bytes may be "-" (0). A
 * line that does not parse is malformed: it is counted under the status "malformed" by the same
 * count_by_value job that counts the status codes, so malformed lines cost no extra pass (an
 * accumulator would do the same once cspark.h has them).
 *
 * The page and host rankings use cspark.h's tuples: the key (i64 count, bytes path) sorts by
 * count, then path, so top(10) returns the 10 most requested pages, ties broken by the path
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

/* line -> (status or "malformed", empty): counted by count_by_value */
void weblog_status(const cspark_record *in, cspark_emitter *out, cspark_task_context *tc)
{
    log_line l;
    if (parse_line(in->key, &l))
        cspark_emit(out, l.status.ptr, l.status.len, NULL, 0);
    else
        cspark_emit(out, "malformed", 9, NULL, 0);
}

/* line -> (path, 1) for well-formed lines */
void weblog_page(const cspark_record *in, cspark_emitter *out, cspark_task_context *tc)
{
    log_line l;
    if (!parse_line(in->key, &l)) return;
    uint8_t one[8];
    cspark_i64_encode(1, one);
    cspark_emit(out, l.path.ptr, l.path.len, one, 8);
}

/* line -> (host, bytes) for well-formed lines */
void weblog_host(const cspark_record *in, cspark_emitter *out, cspark_task_context *tc)
{
    log_line l;
    if (!parse_line(in->key, &l)) return;
    uint8_t b[8];
    cspark_i64_encode(l.bytes, b);
    cspark_emit(out, l.host.ptr, l.host.len, b, 8);
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
    cspark_rdd *lines = cspark_text_file(sc, argv[1], 0);

    cspark_records *status = NULL;
    if (cspark_count_by_value(cspark_map(lines, weblog_status, NULL, 0), &status) < 0) return 1;
    int64_t total = 0, malformed = 0;
    for (size_t i = 0; i < cspark_records_count(status); i++)
        total += cspark_slice_i64(cspark_records_get(status, i).value);
    cspark_slice v;
    if (cspark_records_find(status, "malformed", 9, &v)) malformed = cspark_slice_i64(v);
    printf("lines %" PRId64 "\nmalformed %" PRId64 "\n", total, malformed);
    for (size_t i = 0; i < cspark_records_count(status); i++) {
        cspark_record r = cspark_records_get(status, i);
        if (r.key.len == 3)
            printf("status %.3s %" PRId64 "\n", (const char *)r.key.ptr, cspark_slice_i64(r.value));
    }
    cspark_records_free(status);

    cspark_rdd *pages = cspark_reduce_by_key(cspark_flat_map(lines, weblog_page, NULL, 0),
                                             cspark_sum_i64, NULL, 0, 0);
    cspark_rdd *hosts = cspark_reduce_by_key(cspark_flat_map(lines, weblog_host, NULL, 0),
                                             cspark_sum_i64, NULL, 0, 0);
    if (print_ranking(pages, WEBLOG_TOP_PAGES, "page") < 0 ||
        print_ranking(hosts, WEBLOG_TOP_HOSTS, "host") < 0)
        return 1;
    return 0;
}
