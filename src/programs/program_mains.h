/*
 * program_mains.h — the main functions of cspark's own programs, `cspark-submit`,
 * `cspark-executor`, `cspark-history`, `cspark-sql` and `cspark-operator`. Their command lines are
 * parsed here, in libcspark (submit_main.c, executor_main.c, history_main.c), and the executables
 * (cspark_submit.c,
 * ...) are one-line shells over them, so that the engine a job's .so links against and the one that
 * loads it are one copy of the library. Exported from libcspark for those shells only; not part
 * of the public API (include/cspark.h), and a job never calls them.
 */
#ifndef CS_PROGRAM_MAINS_H
#define CS_PROGRAM_MAINS_H

#define CS_PROGRAM_MAIN __attribute__((visibility("default")))

CS_PROGRAM_MAIN int cspark_submit_main(int argc, char **argv);
CS_PROGRAM_MAIN int cspark_executor_main(int argc, char **argv);
CS_PROGRAM_MAIN int cspark_history_main(int argc, char **argv);
CS_PROGRAM_MAIN int cspark_sql_main(int argc, char **argv);
CS_PROGRAM_MAIN int cspark_connect_main(int argc, char **argv);
CS_PROGRAM_MAIN int cspark_operator_main(int argc, char **argv);

/* cspark-sql's application entry: cspark_sql_main hands libcspark itself to cs_app_run as the
 * application, which calls this (found by name) with the CLI's options (sql_main.c). */
struct cspark_context;
CS_PROGRAM_MAIN int cspark_sql_app(struct cspark_context *sc, int argc, char **argv);
/* cspark-connect-server's application entry, as cspark_sql_app (connect_main.c). */
CS_PROGRAM_MAIN int cspark_connect_app(struct cspark_context *sc, int argc, char **argv);
/* `cspark-submit app.py`'s application entry (python_app.c; found by name by python_submit.c,
 * so that a build without the Spark Connect server reports its absence). */
CS_PROGRAM_MAIN int cspark_python_app(struct cspark_context *sc, int argc, char **argv);

#endif
