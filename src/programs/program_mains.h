/*
 * program_mains.h — the main functions of cspark's own programs, `cspark-submit`,
 * `cspark-executor` and `cspark-history`. Their command lines are parsed here, in libcspark
 * (submit_main.c, executor_main.c, history_main.c), and the executables (cspark_submit.c, ...)
 * are one-line shells over them, so that the engine a job's .so links against and the one that
 * loads it are one copy of the library. Exported from libcspark for those shells only; not part
 * of the public API (include/cspark.h), and a job never calls them.
 */
#ifndef CS_PROGRAM_MAINS_H
#define CS_PROGRAM_MAINS_H

#define CS_PROGRAM_MAIN __attribute__((visibility("default")))

CS_PROGRAM_MAIN int cspark_submit_main(int argc, char **argv);
CS_PROGRAM_MAIN int cspark_executor_main(int argc, char **argv);
CS_PROGRAM_MAIN int cspark_history_main(int argc, char **argv);

#endif
