/*
 * sort.c — sorts text records by their first 10 bytes (TeraSort / gensort records).
 *
 * Spark equivalent:
 *
 *     sc.textFile(input).map(l => (l.take(10), l.drop(10)))
 *       .sortByKey()
 *       .map { case (k, rest) => k + rest }
 *       .saveAsTextFile(outdir)
 *
 * Each input line is a record keyed by its first 10 bytes (a line shorter than 10 bytes is its
 * own key), compared as unsigned bytes (memcmp; LC_ALL=C order). The output holds the original
 * lines, each exactly once; reading OUTDIR/part-NNNNN in name order gives them globally sorted by
 * key. The order of lines with equal keys is not specified. Usage: sort.so INPUT OUTDIR.
 */
#include <cspark.h>

#include <stdio.h>

#define SORT_KEY_LEN 10

/* map(l => (l.take(10), l.drop(10))) */
void sort_split(const cspark_record *in, cspark_emitter *out, cspark_task_context *tc)
{
    uint32_t k = in->key.len < SORT_KEY_LEN ? in->key.len : SORT_KEY_LEN;
    cspark_emit(out, in->key.ptr, k, in->key.ptr + k, in->key.len - k);
}

/* map { case (k, rest) => k + rest }: the original line as the key, empty value. */
void sort_join(const cspark_record *in, cspark_emitter *out, cspark_task_context *tc)
{
    uint8_t *v;
    uint8_t *line = cspark_emit_reserve(out, (size_t)in->key.len + in->value.len, 0, &v);
    if (in->key.len) memcpy(line, in->key.ptr, in->key.len);
    if (in->value.len) memcpy(line + in->key.len, in->value.ptr, in->value.len);
}

int cspark_main(cspark_context *sc, int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: sort.so INPUT OUTDIR\n");
        return 2;
    }
    cspark_rdd *keyed = cspark_map(cspark_text_file(sc, argv[1], 0), sort_split, NULL, 0);
    cspark_rdd *sorted = cspark_sort_by_key(keyed, true, 0);
    if (cspark_save_as_text_file(cspark_map(sorted, sort_join, NULL, 0), argv[2]) < 0) {
        /* cspark-submit prints the reason (cspark_last_error) as its last line */
        return 1;
    }
    return 0;
}
