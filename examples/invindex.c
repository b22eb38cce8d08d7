/*
 * invindex.c — an inverted index: for every word of a set of documents, the documents it occurs
 * in.
 *
 * Spark equivalent:
 *
 *     val docs  = sc.wholeTextFiles(input)                              // (path, content)
 *     val pairs = docs.flatMap { case (p, text) =>
 *                   text.split("\\s+").filter(_.nonEmpty).distinct.map(w => (w, name(p))) }
 *     val index = pairs.aggregateByKey(List.empty[String])(_ :+ _, _ ++ _)
 *     index.map { case (w, ds) => s"$w\t${ds.sorted.mkString(" ")}" }.saveAsTextFile(outdir)
 *
 * Documents are whole files (whole_text_files: one record per file, its path and content); a
 * document's name is its path's last component. A word is a maximal run of bytes that are not
 * ASCII whitespace; each (word, document) pair is emitted once per document. The documents of a
 * word are gathered with cspark.h's list encoding (aggregate_by_key with cspark_list_append /
 * cspark_list_concat), then sorted and joined by map_values.
 *
 * Output: OUTDIR/part-* with one "word<TAB>doc1 doc2 ..." line per word (documents sorted by
 * name, byte order; lines in any order); stdout "N documents, M words". Usage: invindex.so INPUT
 * OUTDIR (INPUT: a directory, file, glob or comma-separated list).
 */
#include <cspark.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool is_space(uint8_t c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

typedef struct word_ref {
    const uint8_t *ptr;
    uint32_t len;
} word_ref;

static int cmp_words(const void *a, const void *b)
{
    const word_ref *x = a, *y = b;
    uint32_t n = x->len < y->len ? x->len : y->len;
    int c = memcmp(x->ptr, y->ptr, n);
    return c ? c : (x->len > y->len) - (x->len < y->len);
}

/* (path, content) -> (word, document name), once per distinct word of the document */
void invindex_words(const cspark_record *in, cspark_emitter *out, cspark_task_context *tc)
{
    const uint8_t *name = in->key.ptr, *p = in->value.ptr, *end = p + in->value.len;
    for (uint32_t i = 0; i < in->key.len; i++)
        if (in->key.ptr[i] == '/') name = in->key.ptr + i + 1;
    uint32_t name_len = (uint32_t)(in->key.ptr + in->key.len - name);
    size_t n = 0, cap = 1024;
    word_ref *words = malloc(cap * sizeof *words); /* one array per document, not per word */
    if (!words) cspark_task_fail(tc, "invindex: out of memory");
    while (p < end) {
        while (p < end && is_space(*p))
            p++;
        const uint8_t *w = p;
        while (p < end && !is_space(*p))
            p++;
        if (p == w) break;
        if (n == cap) {
            word_ref *grown = realloc(words, 2 * cap * sizeof *words);
            if (!grown) {
                free(words);
                cspark_task_fail(tc, "invindex: out of memory");
            }
            words = grown;
            cap *= 2;
        }
        words[n++] = (word_ref){w, (uint32_t)(p - w)};
    }
    qsort(words, n, sizeof *words, cmp_words);
    for (size_t i = 0; i < n; i++)
        if (i == 0 || cmp_words(&words[i - 1], &words[i]) != 0)
            cspark_emit(out, words[i].ptr, words[i].len, name, name_len);
    free(words);
}

/* (word, list of documents) -> (word, "doc1 doc2 ...") sorted; small lists (the usual case)
 * need no allocation */
void invindex_format(const cspark_record *in, cspark_emitter *out, cspark_task_context *tc)
{
    word_ref docs_stack[64];
    uint8_t text_stack[4096];
    size_t n = cspark_list_count(in->value);
    size_t len = in->value.len; /* >= the joined names (each item has 4 length bytes) */
    word_ref *docs = n <= 64 ? docs_stack : malloc(n * sizeof *docs);
    uint8_t *text = len <= sizeof text_stack ? text_stack : malloc(len);
    if (!docs || !text) cspark_task_fail(tc, "invindex: out of memory");
    cspark_slice list = in->value, item;
    for (size_t i = 0; cspark_list_next(&list, &item); i++)
        docs[i] = (word_ref){item.ptr, item.len};
    qsort(docs, n, sizeof *docs, cmp_words);
    size_t at = 0;
    for (size_t i = 0; i < n; i++) {
        if (i) text[at++] = ' ';
        memcpy(text + at, docs[i].ptr, docs[i].len);
        at += docs[i].len;
    }
    cspark_emit_value(out, text, at);
    if (docs != docs_stack) free(docs);
    if (text != text_stack) free(text);
}

int cspark_main(cspark_context *sc, int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: invindex.so INPUT OUTDIR\n");
        return 2;
    }
    cspark_rdd *docs = cspark_whole_text_files(sc, argv[1], 0);
    cspark_rdd *pairs = cspark_flat_map(docs, invindex_words, NULL, 0);
    cspark_rdd *index =
        cspark_aggregate_by_key(pairs, "", 0, cspark_list_append, cspark_list_concat, NULL, 0, 0);
    cspark_rdd *lines = cspark_map_values(index, invindex_format, NULL, 0);
    if (cspark_save_as_text_file(lines, argv[2]) < 0) return 1;
    /* the saved index is read back to count words: cheaper than computing it again */
    int64_t ndocs = 0, nwords = 0;
    if (cspark_count(docs, &ndocs) < 0 ||
        cspark_count(cspark_text_file(sc, argv[2], 0), &nwords) < 0)
        return 1;
    printf("%" PRId64 " documents, %" PRId64 " words\n", ndocs, nwords);
    return 0;
}
