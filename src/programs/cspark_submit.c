/*
 * cspark_submit.c — the `cspark-submit` executable: a thin shell over libcspark's
 * cspark_submit_main (src/submit/submit_main.c), so that the driver a job's .so links against
 * and the driver that loads it are one copy of the engine.
 */
#include "program_mains.h"

int main(int argc, char **argv)
{
    return cspark_submit_main(argc, argv);
}
