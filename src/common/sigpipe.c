/* sigpipe.c — SIGPIPE turned into EPIPE for the whole process (see sigpipe.h). */
#include "common/sigpipe.h"

#include <signal.h>
#include <stddef.h>

static void on_sigpipe(int sig)
{
    (void)sig; /* the write that raised it returns EPIPE */
}

void cs_sigpipe_make_harmless(void)
{
    struct sigaction cur;
    if (sigaction(SIGPIPE, NULL, &cur) < 0) return;
    if ((cur.sa_flags & SA_SIGINFO) || cur.sa_handler != SIG_DFL) return; /* chosen already */
    struct sigaction sa = {0};
    sa.sa_handler = on_sigpipe;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    sigaction(SIGPIPE, &sa, NULL);
}
