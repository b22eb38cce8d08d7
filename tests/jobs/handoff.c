/*
 * handoff.c — a job that records what cspark-submit handed it: the entry function called, argc
 * and argv, and the effective configuration as the job reads it (cspark_conf_get), into the file
 * named by $HANDOFF_OUT; returns 7 so the test can check the exit status is the job's. Used by
 * tests/integration/submit_handoff.sh.
 */
#include <stdio.h>
#include <stdlib.h>

#include "cspark.h"

static int record(cspark_context *sc, const char *entry, int argc, char **argv)
{
    FILE *f = fopen(getenv("HANDOFF_OUT"), "w");
    if (!f) return 2;
    fprintf(f, "entry=%s\nargc=%d\n", entry, argc);
    for (int i = 0; i < argc; i++)
        fprintf(f, "argv[%d]=%s\n", i, argv[i]);
    static const char *const keys[] = {"spark.master", "spark.app.name", "spark.executor.memory",
                                       "spark.executor.cores", "cspark.log.level"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        const char *v = cspark_conf_get(sc, keys[i]);
        fprintf(f, "%s=%s\n", keys[i], v ? v : "(unset)");
    }
    fclose(f);
    return 7;
}

int cspark_main(cspark_context *sc, int argc, char **argv)
{
    return record(sc, "cspark_main", argc, argv);
}

int my_entry(cspark_context *sc, int argc, char **argv)
{
    return record(sc, "my_entry", argc, argv);
}
