/*
 * cspark_connect_server.c — the `cspark-connect-server` executable: a thin shell over libcspark's
 * cspark_connect_main (src/programs/connect_main.c), Spark's Spark Connect server on cspark.
 */
#include "program_mains.h"

int main(int argc, char **argv)
{
    return cspark_connect_main(argc, argv);
}
