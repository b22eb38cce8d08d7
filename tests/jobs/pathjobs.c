/*
 * pathjobs.c — jobs that show how cspark names the files of a path, built as
 * build/tests/jobs/pathjobs.so; used by tests/integration/path_slashes.sh and
 * tests/s3/s3a_path_slashes.sh.
 *   file_names PATH   prints each file whole_text_files(PATH) reads, by the name it gives it (one
 *                     a line, in listing order), then "lines=N": the lines text_file(PATH) reads.
 */
#include <inttypes.h>
#include <stdio.h>

#include "cspark.h"

int file_names(cspark_context *sc, int argc, char **argv)
{
    if (argc < 2) return 2;
    cspark_records *r;
    if (cspark_collect(cspark_whole_text_files(sc, argv[1], 1), &r) < 0) return 1;
    for (size_t i = 0; i < cspark_records_count(r); i++) {
        cspark_slice key = cspark_records_get(r, i).key;
        printf("%.*s\n", (int)key.len, (const char *)key.ptr);
    }
    cspark_records_free(r);
    int64_t lines = 0;
    if (cspark_count(cspark_text_file(sc, argv[1], 0), &lines) < 0) return 1;
    printf("lines=%" PRId64 "\n", lines);
    return 0;
}
