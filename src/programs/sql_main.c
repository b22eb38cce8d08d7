/*
 * sql_main.c — cspark_sql_main, the `cspark-sql` program (its main() is in
 * src/programs/cspark_sql.c), as Spark's `spark-sql` (SparkSQLCLIDriver):
 *
 *   cspark-sql [cspark-submit options] [-e SQL | -f FILE] [-i FILE] [-S] [--database DB]
 *              [-d|--define|--hivevar K=V] [--hiveconf K=V] [--output-format tsv|table|golden]
 *
 * The command line is split in two: the options above are the CLI's, everything else is
 * cspark-submit's (--master, --conf, --deploy-mode, --driver-memory, ..., parsed by
 * submit_args.c into the application's conf). The application is libcspark itself: cs_app_run
 * loads it and calls cspark_sql_app, the entry below, with the CLI's options, so that the driver
 * runs as any cspark application does (context, executors of local[N], local-cluster or
 * Kubernetes pods, UI, event log, Ctrl-C). The application resource is Spark's spark-internal:
 * executors load the libcspark they already run (executor pods: the image's), nothing is shipped.
 * `--deploy-mode cluster` is refused, as spark-sql refuses it; a SQL file runs as a cluster-mode
 * application through cspark-submit (submit_main.c), which calls cs_sql_app_run (sql_main.h)
 * with `-f FILE` and the options that follow the file.
 *
 * Statements: -e's text, -f's file, or stdin read at a prompt ("spark-sql (default)> ") when no
 * -e/-f is given; each cut at ';' outside quotes and comments (with `--output-format golden`,
 * at a ';' ending a line, the corpus format of tests/sql/README.md). ${name} (or ${hivevar:name})
 * is replaced by a -d/--hivevar definition, as Spark's variable substitution. -i FILE runs first.
 *
 * Output (stdout): a statement's rows, printed only once the whole statement succeeded (no
 * partial output): by default tab-separated as spark-sql prints them (header line with
 * spark.sql.cli.print.header=true), `--output-format table` in a box, `--output-format golden`
 * (alias `--result-format golden`) the canonical result format of tests/sql/README.md, one
 * `-- query N (line L)` block per statement. "Time taken: ..." goes to stderr unless -S, in
 * every output form (bench/sql reads it as the job-only time).
 * Errors: one line "[ERROR_CLASS] message" on stderr; with -e / -f the first failing
 * statement ends the run with exit status 1 (golden output records the error and goes on);
 * at the prompt the next statement is read.
 *
 * Ctrl-C (on_interrupt, offered each signal by api/app.c's interrupt watcher): the first one while
 * a statement runs cancels its jobs, as spark-sql's handler; at the prompt the next statement is
 * read, with -e / -f the application then stops (exit status 130). Threads: the statements run on
 * the application's thread; on_interrupt runs on the watcher's and shares only the two atomic
 * flags of `cli` with it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "programs/program_mains.h"
#include "programs/sql_main.h"
#include "api/app.h"
#include "cluster/k8s/k8s_pod_spec.h"
#include "common/app_file.h"
#include "common/conf.h"
#include "common/log.h"
#include "common/sigpipe.h"
#include "common/strutil.h"
#include "fs/shipped_files.h"
#include "session/sql_result_text.h"
#include "session/sql_session.h"
#include "submit/submit_args.h"

#define PROGRAM "cspark-sql"

/* ---- the CLI's options ---------------------------------------------------------------------- */

typedef struct cli_opts {
    const char *execute, *file, *init_file, *database;
    bool silent, help;
    cs_sql_text_form form;
    const char **vars; /* "k=v" of -d / --define / --hivevar */
    int n_vars;
    const char **hiveconfs; /* "k=v" of --hiveconf */
    int n_hiveconfs;
} cli_opts;

static const struct cli_opt {
    const char *name, *alias;
} cli_options[] = {
    {"-e", NULL},
    {"-f", NULL},
    {"-i", NULL},
    {"--database", NULL},
    {"--silent", "-S"},
    {"--define", "-d"},
    {"--hivevar", NULL},
    {"--hiveconf", NULL},
    {"--output-format", NULL},
    {"--result-format", NULL},
};

static void cli_opts_free(cli_opts *o)
{
    free(o->vars);
    free(o->hiveconfs);
}

static int parse_form(const char *v, cs_sql_text_form *out)
{
    if (strcmp(v, "tsv") == 0 || strcmp(v, "hive") == 0)
        *out = CS_SQL_TEXT_HIVE;
    else if (strcmp(v, "table") == 0)
        *out = CS_SQL_TEXT_TABLE;
    else if (strcmp(v, "golden") == 0)
        *out = CS_SQL_TEXT_GOLDEN;
    else
        return -1;
    return 0;
}

/* The index of argv[i] in cli_options when it is one of the CLI's options (--opt=value too). */
static int cli_option(const char *arg, const char **inline_value)
{
    *inline_value = NULL;
    for (int k = 0; k < (int)(sizeof cli_options / sizeof cli_options[0]); k++) {
        const struct cli_opt *o = &cli_options[k];
        size_t n = strlen(o->name);
        if (strcmp(arg, o->name) == 0 || (o->alias && strcmp(arg, o->alias) == 0)) return k;
        if (strncmp(arg, "--", 2) == 0 && strncmp(arg, o->name, n) == 0 && arg[n] == '=') {
            *inline_value = arg + n + 1;
            return k;
        }
    }
    return -1;
}

static void push(const char ***list, int *n, const char *v)
{
    *list = cs_xrealloc(*list, (size_t)(*n + 1) * sizeof **list);
    (*list)[(*n)++] = v;
}

/* Splits argv: the CLI's options into *o, the rest (cspark-submit's) into rest[0..*n_rest)
 * (rest[0] = argv[0]). 0, or CS_EINVAL with the usage error in err. */
static int parse_cli(int argc, char **argv, cli_opts *o, char **rest, int *n_rest, cs_error *err)
{
    memset(o, 0, sizeof *o);
    *n_rest = 0;
    rest[(*n_rest)++] = argv[0];
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i], *v;
        int k = cli_option(arg, &v);
        if (k < 0) {
            if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) o->help = true;
            rest[(*n_rest)++] = argv[i];
            /* a cspark-submit option's separate value is never read as a CLI option */
            if (arg[0] == '-' && !strchr(arg, '=') && cs_submit_option_takes_value(arg) &&
                i + 1 < argc)
                rest[(*n_rest)++] = argv[++i];
            continue;
        }
        const char *name = cli_options[k].name;
        if (strcmp(name, "--silent") == 0) {
            o->silent = true;
            continue;
        }
        if (!v) {
            if (i + 1 >= argc)
                return cs_error_set(err, CS_EINVAL, "option %s requires a value", name);
            v = argv[++i];
        }
        if (strcmp(name, "-e") == 0) {
            o->execute = v;
        } else if (strcmp(name, "-f") == 0) {
            o->file = v;
        } else if (strcmp(name, "-i") == 0) {
            o->init_file = v;
        } else if (strcmp(name, "--database") == 0) {
            o->database = v;
        } else if (strcmp(name, "--define") == 0 || strcmp(name, "--hivevar") == 0 ||
                   strcmp(name, "--hiveconf") == 0) {
            if (!strchr(v, '=') || *v == '=')
                return cs_error_set(err, CS_EINVAL, "%s '%s': expected NAME=VALUE", name, v);
            if (strcmp(name, "--hiveconf") == 0)
                push(&o->hiveconfs, &o->n_hiveconfs, v);
            else
                push(&o->vars, &o->n_vars, v);
        } else if (parse_form(v, &o->form) < 0) {
            return cs_error_set(err, CS_EINVAL, "%s '%s': expected tsv, table or golden", name, v);
        }
    }
    if (o->execute && o->file)
        return cs_error_set(err, CS_EINVAL, "-e and -f cannot be used together");
    return 0;
}

static void usage(FILE *f)
{
    fputs("Usage: cspark-sql [options] [cli options]\n"
          "\n"
          "CLI options:\n"
          "  -e <quoted-query-string>     SQL from command line\n"
          "  -f <filename>                SQL from files\n"
          "  -i <filename>                Initialization SQL file\n"
          "  -S, --silent                 Silent mode in interactive shell\n"
          "  --database <databasename>    Specify the database to use\n"
          "  -d, --define <key=value>     Variable substitution to apply to SQL commands\n"
          "  --hivevar <key=value>        Variable substitution to apply to SQL commands\n"
          "  --hiveconf <property=value>  Use value for given property (a SET before the first\n"
          "                               statement)\n"
          "  --output-format <form>       tsv (spark-sql's, the default), table, or golden\n"
          "                               (tests/sql/README.md's canonical result format)\n"
          "\n"
          "Options (cspark-submit's):\n",
          f);
    cs_submit_usage(f);
}

/* ---- statements ----------------------------------------------------------------------------- */

/* ${name} and ${hivevar:name} replaced by the definitions (others stay as written). */
static char *substitute(const cli_opts *o, const char *sql)
{
    cs_sbuf b = CS_SBUF_INIT;
    for (const char *p = sql; *p;) {
        const char *close = p[0] == '$' && p[1] == '{' ? strchr(p + 2, '}') : NULL;
        if (close) {
            const char *name = p + 2;
            if (strncmp(name, "hivevar:", 8) == 0) name += 8;
            size_t n = (size_t)(close - name);
            const char *value = NULL;
            for (int i = 0; i < o->n_vars && !value; i++)
                if (strncmp(o->vars[i], name, n) == 0 && o->vars[i][n] == '=')
                    value = o->vars[i] + n + 1;
            if (value) {
                cs_sbuf_puts(&b, value);
                p = close + 1;
                continue;
            }
        }
        cs_sbuf_putc(&b, *p++);
    }
    char *r = cs_sbuf_detach(&b, NULL);
    return r ? r : cs_xstrdup("");
}

/* One statement of a script: its text (without the ';') and its first line. */
typedef struct script_stmt {
    char *text;
    int line;
} script_stmt;

/* Cuts text at ';' outside quotes ('', "", ``, with backslash escapes) and comments (--, / * * /),
 * as Spark's CLI splitSemiColon; statements of blanks and comments only are dropped. */
static script_stmt *split_script(const char *text, int first_line, int *n)
{
    script_stmt *out = NULL;
    int cap = 0, line = first_line, start_line = -1;
    char quote = 0;
    bool line_comment = false, block_comment = false;
    const char *start = text;
    *n = 0;
    for (const char *p = text;; p++) {
        char ch = *p;
        bool end = ch == '\0';
        bool cut = end || (ch == ';' && !quote && !line_comment && !block_comment);
        if (cut) {
            size_t len = (size_t)(p - start);
            char *s = cs_str_trim_dup(start, len);
            /* a statement of comments only is empty */
            bool empty = true;
            for (const char *q = s; *q && empty;) {
                if (q[0] == '-' && q[1] == '-') {
                    q = strchr(q, '\n');
                    if (!q) break;
                } else if (q[0] == ' ' || q[0] == '\t' || q[0] == '\n' || q[0] == '\r') {
                    q++;
                } else {
                    empty = false;
                }
            }
            if (!empty) {
                if (*n == cap)
                    out = cs_xrealloc(out, (size_t)(cap = cap ? 2 * cap : 16) * sizeof *out);
                out[(*n)++] = (script_stmt){s, start_line < 0 ? line : start_line};
            } else {
                free(s);
            }
            if (end) break;
            start = p + 1;
            start_line = -1;
            continue;
        }
        if (ch == '\n') {
            line++;
            line_comment = false;
            continue;
        }
        if (line_comment) continue;
        if (block_comment) {
            if (ch == '*' && p[1] == '/') {
                block_comment = false;
                p++;
            }
            continue;
        }
        if (quote) {
            if (ch == '\\' && p[1])
                p++;
            else if (ch == quote)
                quote = 0;
            continue;
        }
        if (ch == '-' && p[1] == '-') {
            line_comment = true;
            continue;
        }
        if (ch == '/' && p[1] == '*') {
            block_comment = true;
            p++;
            continue;
        }
        if (ch != ' ' && ch != '\t' && ch != '\r' && start_line < 0) start_line = line;
        if (ch == '\'' || ch == '"' || ch == '`') quote = ch;
    }
    return out;
}

/* Cuts text as tests/sql/README.md's corpus format does (golden output numbers its statements
 * the same way): a statement ends at a line whose last non-blank character is ';', quotes or
 * not; between statements, blank lines and lines starting with "--" are skipped. A quote left
 * open by a bad statement (`SELECT 'unterminated;`) ends with its line, as in the goldens. */
static script_stmt *split_corpus(const char *text, int *n)
{
    script_stmt *out = NULL;
    int cap = 0, line = 0, start_line = 0;
    cs_sbuf cur = CS_SBUF_INIT;
    *n = 0;
    for (const char *p = text; *p;) {
        const char *eol = strchr(p, '\n');
        size_t len = eol ? (size_t)(eol - p) : strlen(p);
        line++;
        size_t b = 0, e = len;
        while (b < e && (p[b] == ' ' || p[b] == '\t' || p[b] == '\r'))
            b++;
        while (e > b && (p[e - 1] == ' ' || p[e - 1] == '\t' || p[e - 1] == '\r'))
            e--;
        bool skip = cur.len == 0 && (b == e || (e - b >= 2 && p[b] == '-' && p[b + 1] == '-'));
        if (!skip) {
            if (cur.len == 0) start_line = line;
            bool ends = e > b && p[e - 1] == ';';
            cs_sbuf_append(&cur, p, ends ? e - 1 : len);
            if (ends) {
                if (*n == cap)
                    out = cs_xrealloc(out, (size_t)(cap = cap ? 2 * cap : 16) * sizeof *out);
                out[(*n)++] = (script_stmt){cs_str_trim_dup(cur.data, cur.len), start_line};
                cur.len = 0;
            } else {
                cs_sbuf_putc(&cur, '\n');
            }
        }
        p = eol ? eol + 1 : p + len;
    }
    if (cur.len) { /* a last statement without ';' */
        char *s = cs_str_trim_dup(cur.data, cur.len);
        if (*s) {
            if (*n == cap) out = cs_xrealloc(out, (size_t)(cap + 1) * sizeof *out);
            out[(*n)++] = (script_stmt){s, start_line};
        } else {
            free(s);
        }
    }
    cs_sbuf_free(&cur);
    return out;
}

typedef struct cli {
    const cli_opts *o;
    cspark_context *sc;
    cs_sql_session *session;
    int statement_no;
    bool header;
    bool prompt;            /* statements read at the prompt */
    atomic_bool running;    /* a statement runs (set by the main thread) */
    atomic_bool cancelling; /* the running statement's jobs were cancelled by a Ctrl-C */
} cli;

/* SIGINT (on the interrupt watcher's thread of api/app.c) while a statement runs, as spark-sql's
 * handler: the first cancels the statement's jobs (Spark's cancelAllJobs, "Job N cancelled as
 * part of cancellation of all jobs"), the statement fails with SPARK_JOB_CANCELLED; at the prompt
 * the next statement is read, with -e / -f the application then stops (exit status 130). A
 * second one, one with no statement running, and SIGTERM stop the application. */
static bool on_interrupt(void *arg, int sig)
{
    cli *c = arg;
    if (sig != SIGINT || !atomic_load(&c->running) || atomic_exchange(&c->cancelling, true))
        return false;
    if (c->prompt)
        fputs("Interrupting... Be patient, this might take some time.\n"
              "Press Ctrl+C again to stop cspark-sql\n",
              stderr);
    cs_app_cancel_all_jobs(c->sc);
    return c->prompt;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Prints spark-sql's line after a statement on stderr: "Time taken: 1.234 seconds, Fetched 4
 * row(s)", the seconds as Spark prints its millisecond count divided by 1000.0 (a Java double:
 * "0.05", "2.0"), the "Fetched" part only when there were rows. */
static void print_time_taken(double seconds, int64_t rows)
{
    long long ms = seconds <= 0 ? 0 : (long long)(seconds * 1000.0);
    char frac[8];
    snprintf(frac, sizeof frac, "%03lld", ms % 1000);
    for (int i = 2; i > 0 && frac[i] == '0'; i--)
        frac[i] = '\0';
    if (rows > 0)
        fprintf(stderr, "Time taken: %lld.%s seconds, Fetched %lld row(s)\n", ms / 1000, frac,
                (long long)rows);
    else
        fprintf(stderr, "Time taken: %lld.%s seconds\n", ms / 1000, frac);
}

/* Runs one statement and prints its answer (quiet: setup statements, -i's, whose rows are not
 * printed nor numbered): 0, or -1 when it failed (reported). */
static int run_one(cli *c, const char *text, int line, bool quiet)
{
    char *sql = substitute(c->o, text);
    cs_sql_result r;
    cs_error err;
    cs_error_clear(&err);
    double t0 = now_s();
    atomic_store(&c->cancelling, false);
    atomic_store(&c->running, true);
    int rc = cs_sql_session_execute(c->session, sql, &r, &err);
    atomic_store(&c->running, false);
    cs_sbuf out = CS_SBUF_INIT;
    bool golden = c->o->form == CS_SQL_TEXT_GOLDEN && !quiet;
    if (golden) cs_sbuf_printf(&out, "-- query %d (line %d)\n%s\n", ++c->statement_no, line, text);
    if (rc == 0 && !quiet) {
        const char *tz = cs_sql_session_conf(c->session, "spark.sql.session.timeZone");
        bool header =
            c->header ||
            (cs_sql_session_conf(c->session, "spark.sql.cli.print.header") &&
             strcmp(cs_sql_session_conf(c->session, "spark.sql.cli.print.header"), "true") == 0);
        rc = cs_sql_result_text(&r, c->o->form, header, tz, &out, &err);
    }
    /* As spark-sql: the time of running the statement and rendering its rows, not of printing. */
    double taken = now_s() - t0;
    if (rc < 0 && golden) cs_sql_error_golden(&err, &out);
    if (golden) cs_sbuf_putc(&out, '\n');
    if (out.len && (rc == 0 || golden)) fwrite(out.data, 1, out.len, stdout);
    fflush(stdout);
    if (rc < 0 && !golden) {
        cs_sbuf line_text = CS_SBUF_INIT;
        cs_sql_error_line(&err, &line_text);
        fprintf(stderr, "%s\n", cs_sbuf_str(&line_text));
        cs_sbuf_free(&line_text);
    } else if (rc == 0 && !c->o->silent && !quiet) {
        print_time_taken(taken, r.num_rows);
    }
    cs_sbuf_free(&out);
    cs_sql_result_free(&r);
    free(sql);
    return rc < 0 ? -1 : 0;
}

/* Runs a script's statements: 0, or -1 at the first failure (golden output goes on). */
static int run_script(cli *c, const char *text, bool quiet)
{
    int n, failed = 0;
    bool golden = c->o->form == CS_SQL_TEXT_GOLDEN && !quiet;
    script_stmt *st = golden ? split_corpus(text, &n) : split_script(text, 1, &n);
    for (int i = 0; i < n; i++) {
        bool stop = failed && (quiet || c->o->form != CS_SQL_TEXT_GOLDEN);
        if (!stop && run_one(c, st[i].text, st[i].line, quiet) < 0) failed = 1;
        free(st[i].text);
    }
    free(st);
    return failed && (quiet || c->o->form != CS_SQL_TEXT_GOLDEN) ? -1 : 0;
}

static char *read_file(const char *path)
{
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "re");
    if (!f) {
        fprintf(stderr, PROGRAM ": cannot read %s: %s\n", path, strerror(errno));
        return NULL;
    }
    cs_sbuf b = CS_SBUF_INIT;
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        cs_sbuf_append(&b, buf, n);
    bool bad = ferror(f);
    if (f != stdin) fclose(f);
    if (bad) {
        fprintf(stderr, PROGRAM ": cannot read %s\n", path);
        cs_sbuf_free(&b);
        return NULL;
    }
    char *r = cs_sbuf_detach(&b, NULL);
    return r ? r : cs_xstrdup("");
}

static bool is_quit(const char *s)
{
    return cs_str_ieq(s, "quit") || cs_str_ieq(s, "exit");
}

/* The prompt: lines are gathered until they end a statement with ';'. */
static int interactive(cli *c)
{
    bool tty = isatty(STDIN_FILENO);
    cs_sbuf pending = CS_SBUF_INIT;
    char *line = NULL;
    size_t cap = 0;
    for (;;) {
        if (tty) {
            fputs(pending.len ? "         > " : "spark-sql (default)> ", stdout);
            fflush(stdout);
        }
        ssize_t len = getline(&line, &cap, stdin);
        if (len < 0) break;
        cs_sbuf_append(&pending, line, (size_t)len);
        int n;
        script_stmt *st = split_script(cs_sbuf_str(&pending), 1, &n);
        /* the text ends inside a statement unless its last non-blank character is a cut ';' */
        size_t end = pending.len;
        while (end && (pending.data[end - 1] == '\n' || pending.data[end - 1] == ' ' ||
                       pending.data[end - 1] == '\t' || pending.data[end - 1] == '\r'))
            end--;
        bool ready = end && pending.data[end - 1] == ';';
        bool quit = false;
        for (int i = 0; i < n; i++) {
            if (ready && !quit) {
                if (is_quit(st[i].text))
                    quit = true;
                else
                    run_one(c, st[i].text, st[i].line, false);
            }
            free(st[i].text);
        }
        free(st);
        if (ready || n == 0) pending.len = 0;
        if (quit) break;
    }
    if (pending.len) { /* a last statement without ';' at the end of input */
        int n;
        script_stmt *st = split_script(cs_sbuf_str(&pending), 1, &n);
        for (int i = 0; i < n; i++) {
            if (!is_quit(st[i].text)) run_one(c, st[i].text, st[i].line, false);
            free(st[i].text);
        }
        free(st);
    }
    free(line);
    cs_sbuf_free(&pending);
    return 0;
}

/* The application's entry (loaded by cs_app_run from libcspark): argv holds the CLI's options. */
CS_PROGRAM_MAIN int cspark_sql_app(cspark_context *sc, int argc, char **argv)
{
    cli_opts o;
    char **rest = cs_xcalloc((size_t)argc + 1, sizeof *rest);
    int n_rest, status = 1;
    cs_error err;
    cs_error_clear(&err);
    int prc = parse_cli(argc, argv, &o, rest, &n_rest, &err);
    free(rest);
    if (prc < 0) { /* checked before the application started: not reached */
        fprintf(stderr, PROGRAM ": %s\n", err.msg);
        cli_opts_free(&o);
        return 1;
    }
    cli c = {.o = &o, .sc = sc, .prompt = !o.execute && !o.file};
    c.session = cs_sql_session_new(sc, &err);
    if (!c.session) {
        fprintf(stderr, PROGRAM ": %s\n", err.msg);
        cli_opts_free(&o);
        return 1;
    }
    cs_app_set_interrupt_hook(sc, on_interrupt, &c);
    for (int i = 0; i < o.n_hiveconfs; i++) {
        char *set = NULL;
        if (asprintf(&set, "SET %s", o.hiveconfs[i]) < 0) goto out;
        int rc = run_one(&c, set, 0, true);
        free(set);
        if (rc < 0) goto out;
    }
    if (o.database) {
        char *use = NULL;
        if (asprintf(&use, "USE `%s`", o.database) < 0 || run_one(&c, use, 0, true) < 0) {
            free(use);
            goto out;
        }
        free(use);
    }
    if (o.init_file) {
        char *text = read_file(o.init_file);
        if (!text || run_script(&c, text, true) < 0) {
            free(text);
            goto out;
        }
        free(text);
    }
    if (o.execute) {
        status = run_script(&c, o.execute, false) < 0 ? 1 : 0;
    } else if (o.file) {
        char *text = read_file(o.file);
        status = text && run_script(&c, text, false) == 0 ? 0 : 1;
        free(text);
    } else {
        status = interactive(&c);
    }
out:
    cs_app_set_interrupt_hook(sc, NULL, NULL);
    cs_sql_session_free(c.session);
    cli_opts_free(&o);
    return status;
}

/* ---- the program ---------------------------------------------------------------------------- */

static int fail(const char *prefix, const cs_error *err)
{
    cs_log_user_error(prefix, "%s", err->msg);
    return 1;
}

/* "SparkSQL::<host>", the name Spark's SparkSQLCLIDriver gives an application, in buf. */
static const char *host_app_name(char *buf, size_t cap)
{
    char host[256] = "localhost";
    gethostname(host, sizeof host - 1);
    snprintf(buf, cap, "SparkSQL::%s", host);
    return buf;
}

int cs_sql_file_args_check(const char *file, int argc, char **argv, cs_error *err)
{
    char **all = cs_xcalloc((size_t)argc + 2, sizeof *all);
    char **rest = cs_xcalloc((size_t)argc + 2, sizeof *rest);
    all[0] = (char *)file;
    for (int i = 0; i < argc; i++)
        all[i + 1] = argv[i];
    cli_opts o;
    int n_rest = 0, rc = parse_cli(argc + 1, all, &o, rest, &n_rest, err);
    if (rc == 0 && (o.execute || o.file))
        rc = cs_error_set(err, CS_EINVAL,
                          "%s cannot follow the SQL file %s: the statements are the file's",
                          o.execute ? "-e" : "-f", file);
    else if (rc == 0 && n_rest > 1)
        rc = cs_error_set(err, CS_EINVAL,
                          "unexpected argument '%s' after the SQL file %s (expected cspark-sql's "
                          "options: -i, -S, --database, -d/--define/--hivevar, --hiveconf, "
                          "--output-format)",
                          rest[1], file);
    cli_opts_free(&o);
    free(rest);
    free(all);
    return rc;
}

int cs_sql_app_run(cs_conf *conf, const cs_master *master, const char *prefix, int argc,
                   char **argv)
{
    cs_error err;
    cs_error_clear(&err);
    if (cs_files_check_list("spark.files", cs_conf_get(conf, "spark.files"), false, &err) < 0 ||
        cs_files_check_list("spark.archives", cs_conf_get(conf, "spark.archives"), true, &err) < 0)
        return fail(prefix, &err);
    /* the engine's errors only (a failing statement's own line is printed by the CLI), unless
     * asked: cspark.log.level or CSPARK_LOG_LEVEL (WARN shows retried tasks, lost executors) */
    const char *lvl = cs_conf_get(conf, "cspark.log.level");
    if (!lvl) lvl = getenv("CSPARK_LOG_LEVEL");
    cs_log_level l;
    cs_log_set_level(lvl && cs_log_parse_level(lvl, &l) == CS_OK ? l : CS_LOG_ERROR);
    if (!lvl) cs_conf_set(conf, "cspark.log.level", "ERROR"); /* the executors' too */
    /* the application is libcspark itself, which executors (and executor pods, from the image)
     * already run: nothing of the driver's is shipped to them */
    cs_conf_set(conf, "cspark.app.resource", CS_APP_SPARK_INTERNAL);
    if (master->kind == MASTER_K8S && cs_k8s_executor_check_conf(conf, &err) != CS_OK)
        return fail(prefix, &err);
    char lib[4096];
    if (cs_app_engine_library(lib, sizeof lib) < 0) {
        fprintf(stderr, "%s: cannot locate libcspark (dladdr failed)\n", prefix);
        return 1;
    }
    char **app_argv = cs_xcalloc((size_t)argc + 2, sizeof *app_argv);
    app_argv[0] = lib;
    for (int i = 0; i < argc; i++)
        app_argv[i + 1] = argv[i];
    fflush(stdout);
    int status = cs_app_run(conf, lib, "cspark_sql_app", argc + 1, app_argv);
    free(app_argv);
    return status;
}

int cspark_sql_main(int argc, char **argv)
{
    cs_sigpipe_make_harmless();
    cli_opts o;
    char **rest = cs_xcalloc((size_t)argc + 1, sizeof *rest);
    char **cli_argv = NULL;
    int n_rest, status = 1;
    submit_args a;
    memset(&a, 0, sizeof a);
    cs_conf *conf = NULL;
    cs_error err;
    cs_error_clear(&err);
    if (parse_cli(argc, argv, &o, rest, &n_rest, &err) < 0) {
        fprintf(stderr, PROGRAM ": %s\n", err.msg);
        goto out;
    }
    if (o.help) {
        usage(stdout);
        status = 0;
        goto out;
    }
    if (cs_submit_args_parse(n_rest, rest, &a, &err) != CS_OK) {
        status = fail(PROGRAM, &err);
        goto out;
    }
    if (a.version) {
        printf("cspark-sql: Spark SQL's command line on cspark\n");
        status = 0;
        goto out;
    }
    if (a.app || a.kill || a.status) {
        fprintf(stderr,
                PROGRAM ": unexpected argument '%s' (statements come with -e, -f or at the "
                        "prompt; see --help)\n",
                a.app ? a.app : (a.kill ? "--kill" : "--status"));
        goto out;
    }
    const char *used_props = NULL;
    cs_master master;
    if (cs_submit_build_conf(&a, NULL, &conf, &used_props, &err) != CS_OK) {
        status = fail(PROGRAM, &err);
        goto out;
    }
    char app_name[300];
    if (!a.name) /* Spark's spark-sql names itself SparkSQL::<host> */
        cs_conf_set_if_missing(conf, "spark.app.name", host_app_name(app_name, sizeof app_name));
    int vrc = cs_submit_validate(conf, &master, &err);
    if (a.verbose) cs_submit_print_verbose(stderr, &a, conf, used_props);
    if (vrc != CS_OK) {
        status = fail(PROGRAM, &err);
        goto out;
    }
    const char *deploy = cs_conf_get(conf, "spark.submit.deployMode");
    if (deploy && strcmp(deploy, "cluster") == 0) {
        fprintf(stderr, PROGRAM ": cluster deploy mode is not applicable to the Spark SQL shell "
                                "(as spark-sql); run a SQL file as a cluster-mode application "
                                "with cspark-submit --deploy-mode cluster FILE.sql\n");
        goto out;
    }
    /* the application's argv: the CLI's own options as given */
    cli_argv = cs_xcalloc((size_t)argc + 1, sizeof *cli_argv);
    int n_cli = 0;
    for (int i = 1; i < argc; i++) {
        bool submit_opt = false;
        for (int k = 1; k < n_rest && !submit_opt; k++)
            submit_opt = rest[k] == argv[i];
        if (!submit_opt) cli_argv[n_cli++] = argv[i];
    }
    status = cs_sql_app_run(conf, &master, PROGRAM, n_cli, cli_argv);
out:
    free(cli_argv);
    cs_conf_free(conf);
    cs_submit_args_free(&a);
    cli_opts_free(&o);
    free(rest);
    return status;
}
