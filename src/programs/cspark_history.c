/*
 * cspark_history.c — the `cspark-history` executable (the history server): a thin shell over
 * libcspark's cspark_history_main (src/history/history_main.c).
 */
#include "program_mains.h"

int main(int argc, char **argv)
{
    return cspark_history_main(argc, argv);
}
