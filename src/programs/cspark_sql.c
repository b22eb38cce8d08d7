/*
 * cspark_sql.c — the `cspark-sql` executable: a thin shell over libcspark's cspark_sql_main
 * (src/programs/sql_main.c), Spark's spark-sql command line on cspark.
 */
#include "program_mains.h"

int main(int argc, char **argv)
{
    return cspark_sql_main(argc, argv);
}
