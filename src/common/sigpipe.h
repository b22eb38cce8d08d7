/*
 * sigpipe.h — broken pipes are errors, not deaths. A write to a socket whose peer has gone (an
 * executor killed while the driver sends to it, a driver gone while an executor reports, a
 * shuffle fetcher that disconnects mid-block) or to a pipe with no reader raises SIGPIPE, whose
 * default action ends the process without a word; libuv leaves that to the program, as Redis,
 * Node and the JVM handle it. Each of cspark's programs (cspark-submit, cspark-executor,
 * cspark-history) calls cs_sigpipe_make_harmless first, so such a write fails with EPIPE and
 * the code that made it handles the lost peer as it handles any other.
 *
 * A no-op handler is installed rather than SIG_IGN: an ignored disposition would be inherited by
 * the programs cspark starts (executor processes, user commands), a handler is reset at exec.
 * A disposition someone already chose (not the default) is kept. Call once, from the main
 * thread, before other threads start.
 */
#ifndef CSPARK_COMMON_SIGPIPE_H
#define CSPARK_COMMON_SIGPIPE_H

void cs_sigpipe_make_harmless(void);

#endif
