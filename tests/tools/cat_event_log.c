/* cat_event_log.c — `cat_event_log PATH...`: writes each event log's lines to stdout as Spark's
 * JSON, one event per line, whatever its layout and codec: a single file (`<app>`,
 * `<app>.zstd`, either `.inprogress`) or a rolled directory (`eventlog_v2_<app>/`, its events_*
 * files in index order), read through cs_event_log_open_read (src/sched/event_log_reader.c, the
 * history server's reader). The script tests and benches read event logs through it, as event
 * logs are rolled and zstd-compressed by default (Spark 4's defaults).
 *
 * Exits 0; 1 with one line naming the path when a log cannot be read; 2 on a usage error.
 */
#include <stdio.h>
#include <string.h>

#include "common/err.h"
#include "sched/event_log_reader.h"

static int cat_one(const char *path)
{
    cs_error err = {0};
    FILE *in = cs_event_log_open_read(path, &err);
    if (!in) {
        fprintf(stderr, "cat_event_log: %s\n", err.msg[0] ? err.msg : path);
        return 1;
    }
    char buf[65536];
    size_t n;
    int rc = 0;
    while ((n = fread(buf, 1, sizeof buf, in)) > 0)
        if (fwrite(buf, 1, n, stdout) != n) {
            fprintf(stderr, "cat_event_log: cannot write stdout\n");
            rc = 1;
            break;
        }
    if (rc == 0 && ferror(in)) {
        fprintf(stderr, "cat_event_log: %s: read error (a damaged or truncated log)\n", path);
        rc = 1;
    }
    fclose(in);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
        fprintf(
            argc < 2 ? stderr : stdout,
            "usage: cat_event_log PATH...  (an event log file or an eventlog_v2_* directory)\n");
        return argc < 2 ? 2 : 0;
    }
    int rc = 0;
    for (int i = 1; i < argc && rc == 0; i++)
        rc = cat_one(argv[i]);
    if (fflush(stdout) != 0) {
        fprintf(stderr, "cat_event_log: cannot write stdout\n");
        rc = 1;
    }
    return rc;
}
