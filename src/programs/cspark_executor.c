/*
 * cspark_executor.c — the `cspark-executor` executable: a thin shell over libcspark's
 * cspark_executor_main (src/executor/executor_main.c), so that the engine and the job's .so,
 * which links libcspark, share one copy of the engine in the executor process.
 */
#include "program_mains.h"

int main(int argc, char **argv)
{
    return cspark_executor_main(argc, argv);
}
