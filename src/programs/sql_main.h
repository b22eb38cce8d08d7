/*
 * sql_main.h — what cspark-submit takes from cspark-sql (sql_main.c): running cspark-sql's
 * application on a configuration already built, so that a SQL file given to cspark-submit as the
 * primary resource runs as `cspark-sql -f FILE` would (in the driver pod of a cluster-mode
 * application, printing its results to the pod's log). Internal to src/programs: called by
 * cspark_sql_main and by submit_main.c.
 *
 * Ownership: every argument is borrowed for the call.
 */
#ifndef CSPARK_PROGRAMS_SQL_MAIN_H
#define CSPARK_PROGRAMS_SQL_MAIN_H

#include "common/conf.h"
#include "common/err.h"
#include "common/master.h"

/* Checks the arguments that follow a SQL file given to cspark-submit: cspark-sql's options only
 * (-i, -S, --database, -d / --define / --hivevar, --hiveconf, --output-format), never -e or -f.
 * 0, or CS_EINVAL with the reason (naming the argument and the file) in err. */
int cs_sql_file_args_check(const char *file, int argc, char **argv, cs_error *err);

/* Runs cspark-sql's application over conf (built and validated; *master is its master) with
 * the CLI's options argv[0..argc) (e.g. "-f", "q.sql", "--output-format", "golden"): the log
 * level (ERROR unless cspark.log.level or CSPARK_LOG_LEVEL say otherwise, the executors' too),
 * the application resource spark-internal (executors load the libcspark they run), the checks of
 * spark.files / spark.archives and of the executor pods' settings, then cs_app_run. conf is
 * updated. User errors are one line starting with "<prefix>: ". Returns the process's exit
 * status. */
int cs_sql_app_run(cs_conf *conf, const cs_master *master, const char *prefix, int argc,
                   char **argv);

#endif
