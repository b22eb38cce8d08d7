/*
 * cspark_operator.c — the `cspark-operator` executable (the SparkApplication controller): a thin
 * shell over libcspark's cspark_operator_main (src/programs/operator_main.c).
 */
#include "program_mains.h"

int main(int argc, char **argv)
{
    return cspark_operator_main(argc, argv);
}
