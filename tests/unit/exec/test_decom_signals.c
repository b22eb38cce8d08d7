/*
 * test_decom_signals.c — the executor's signal watcher (src/exec/decom_signals.c), each case in a
 * forked child so that signals reach a process of its own: signal names parse (with or without
 * SIG, any case) and bad ones are refused naming the key; before arming, SIGTERM ends the
 * process by SIGTERM as it would without the watcher; once armed, SIGTERM and the configured
 * signal call the trigger instead; a signal that was blocked when the watcher started stays
 * without effect; after stop the mask is the one from before.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "exec/decom_signals.h"

static void test_parse_names(void **state)
{
    (void)state;
    cs_error err = {0};
    int sig = 0;
    assert_int_equal(cs_decom_signals_parse("PWR", &sig, &err), 0);
    assert_int_equal(sig, SIGPWR);
    assert_int_equal(cs_decom_signals_parse("sigterm", &sig, &err), 0);
    assert_int_equal(sig, SIGTERM);
    assert_int_equal(cs_decom_signals_parse("SIGUSR1", &sig, &err), 0);
    assert_int_equal(sig, SIGUSR1);
    assert_int_equal(cs_decom_signals_parse("usr2", &sig, &err), 0);
    assert_int_equal(sig, SIGUSR2);
    assert_int_equal(cs_decom_signals_parse("INT", &sig, &err), 0);
    assert_int_equal(sig, SIGINT);
    assert_int_equal(cs_decom_signals_parse("HUP", &sig, &err), CS_EINVAL);
    assert_non_null(strstr(err.msg, "spark.executor.decommission.signal: 'HUP'"));
    assert_int_equal(cs_decom_signals_parse("", &sig, &err), CS_EINVAL);
    assert_string_equal(cs_decom_signals_name(SIGPWR), "PWR");
    assert_string_equal(cs_decom_signals_name(SIGHUP), "?");
}

/* ---- in a child ---- */

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_cond = PTHREAD_COND_INITIALIZER;
static int g_got;

static void on_trigger(void *arg, int sig)
{
    (void)arg;
    pthread_mutex_lock(&g_lock);
    g_got = sig;
    pthread_cond_broadcast(&g_cond);
    pthread_mutex_unlock(&g_lock);
}

static int wait_trigger(void)
{
    pthread_mutex_lock(&g_lock);
    while (!g_got)
        pthread_cond_wait(&g_cond, &g_lock);
    int s = g_got;
    g_got = 0;
    pthread_mutex_unlock(&g_lock);
    return s;
}

/* Runs fn in a child with the watched signals at their defaults and unblocked (whatever the test
 * runner left them as); returns its wait status. */
static int in_child(void (*fn)(void))
{
    pid_t pid = fork();
    if (pid == 0) {
        static const int sigs[] = {SIGTERM, SIGPWR, SIGUSR1, SIGUSR2, SIGINT};
        sigset_t m;
        sigemptyset(&m);
        for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
            signal(sigs[i], SIG_DFL);
            sigaddset(&m, sigs[i]);
        }
        pthread_sigmask(SIG_UNBLOCK, &m, NULL);
        fn();
        _exit(0);
    }
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    return status;
}

static void child_unarmed_term(void)
{
    decom_signals *s = cs_decom_signals_start(on_trigger, NULL);
    if (!s) _exit(3);
    kill(getpid(), SIGTERM);
    for (;;)
        pause(); /* the watcher ends the process by SIGTERM */
}

static void test_unarmed_sigterm_ends_the_process(void **state)
{
    (void)state;
    int st = in_child(child_unarmed_term);
    assert_true(WIFSIGNALED(st));
    assert_int_equal(WTERMSIG(st), SIGTERM);
}

static void child_armed(void)
{
    decom_signals *s = cs_decom_signals_start(on_trigger, NULL);
    if (!s) _exit(3);
    cs_decom_signals_arm(s, SIGUSR1);
    kill(getpid(), SIGTERM);
    if (wait_trigger() != SIGTERM) _exit(4);
    kill(getpid(), SIGUSR1);
    if (wait_trigger() != SIGUSR1) _exit(5);
    cs_decom_signals_stop(s);
    sigset_t now;
    pthread_sigmask(SIG_SETMASK, NULL, &now);
    if (sigismember(&now, SIGTERM)) _exit(6); /* the mask from before start */
}

static void test_armed_signals_trigger(void **state)
{
    (void)state;
    int st = in_child(child_armed);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
}

static void child_blocked_before(void)
{
    sigset_t b;
    sigemptyset(&b);
    sigaddset(&b, SIGINT);
    pthread_sigmask(SIG_BLOCK, &b, NULL);
    decom_signals *s = cs_decom_signals_start(on_trigger, NULL);
    if (!s) _exit(3);
    cs_decom_signals_arm(s, SIGPWR);
    /* SIGINT (2) is taken before SIGPWR (30) when both are pending, and otherwise it was sent
     * first: by the time SIGPWR triggers, SIGINT has been taken without effect */
    kill(getpid(), SIGINT);
    kill(getpid(), SIGPWR);
    if (wait_trigger() != SIGPWR) _exit(4);
    cs_decom_signals_stop(s);
}

static void test_signal_blocked_before_stays_inert(void **state)
{
    (void)state;
    int st = in_child(child_blocked_before);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_names),
        cmocka_unit_test(test_unarmed_sigterm_ends_the_process),
        cmocka_unit_test(test_armed_signals_trigger),
        cmocka_unit_test(test_signal_blocked_before_stays_inert),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
