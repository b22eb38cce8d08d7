/*
 * join.c — inner join of two tab-separated key/value files.
 *
 * Spark equivalent:
 *
 *     def kv(l: String) = { val i = l.indexOf('\t'); (l.substring(0, i), l.substring(i + 1)) }
 *     val left  = sc.textFile(leftPath).filter(_.contains('\t')).map(kv)
 *     val right = sc.textFile(rightPath).filter(_.contains('\t')).map(kv)
 *     left.join(right).map { case (k, (l, r)) => s"$k\t$l\t$r" }.saveAsTextFile(outdir)
 *
 * Input lines are "key<TAB>value", split at the first TAB (the value may hold more TABs); lines
 * without a TAB are skipped. Output: one "key<TAB>left<TAB>right" line per matching pair (a key
 * with m left and n right values gives m*n lines); order free. Usage: join.so LEFT RIGHT OUTDIR.
 */
#include <cspark.h>

#include <stdio.h>

/* filter(_.contains('\t')).map(kv) */
void join_parse(const cspark_record *in, cspark_emitter *out, cspark_task_context *tc)
{
    const uint8_t *tab = in->key.len ? memchr(in->key.ptr, '\t', in->key.len) : NULL;
    if (!tab) return;
    uint32_t k = (uint32_t)(tab - in->key.ptr);
    cspark_emit(out, in->key.ptr, k, tab + 1, in->key.len - k - 1);
}

/* map { case (k, (l, r)) => s"$k\t$l\t$r" } */
void join_format(const cspark_record *in, cspark_emitter *out, cspark_task_context *tc)
{
    cspark_slice l, r;
    if (!cspark_pair_split(in->value, &l, &r)) cspark_task_fail(tc, "join: malformed join value");
    uint8_t *v;
    uint8_t *p = cspark_emit_reserve(out, (size_t)in->key.len + 1 + l.len + 1 + r.len, 0, &v);
    if (in->key.len) memcpy(p, in->key.ptr, in->key.len);
    p += in->key.len;
    *p++ = '\t';
    if (l.len) memcpy(p, l.ptr, l.len);
    p += l.len;
    *p++ = '\t';
    if (r.len) memcpy(p, r.ptr, r.len);
}

int cspark_main(cspark_context *sc, int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: join.so LEFT RIGHT OUTDIR\n");
        return 2;
    }
    cspark_rdd *left = cspark_flat_map(cspark_text_file(sc, argv[1], 0), join_parse, NULL, 0);
    cspark_rdd *right = cspark_flat_map(cspark_text_file(sc, argv[2], 0), join_parse, NULL, 0);
    cspark_rdd *joined = cspark_join(left, right, 0);
    if (cspark_save_as_text_file(cspark_map(joined, join_format, NULL, 0), argv[3]) < 0) {
        /* cspark-submit prints the reason (cspark_last_error) as its last line */
        return 1;
    }
    return 0;
}
