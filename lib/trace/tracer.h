/* tracer.h - finding the dependency tracer (build/cgisnap-trace.so, the
 * LD_PRELOAD library of lib/trace/) at run time. */
#ifndef CGISNAP_TRACER_H
#define CGISNAP_TRACER_H

#define TRACER_NAME "cgisnap-trace.so"
#define TRACER_ENV "CGISNAP_TRACE_LIB"

/* The tracer's path (fresh string), looked for in this order:
 *   1. env_value ($CGISNAP_TRACE_LIB) when set and not empty: it must
 *      exist, nothing else is tried;
 *   2. build/cgisnap-trace.so beside the program exe (a build tree:
 *      exe is the path of the running binary, e.g. from /proc/self/exe);
 *   3. libdir/cgisnap-trace.so (the installed one).
 * A candidate counts when it is a readable regular file. NULL with err
 * naming what was tried when none is. */
char *tracer_find(const char *env_value, const char *exe, const char *libdir, char *err);

/* tracer_find() with the real environment, /proc/self/exe and
 * CGISNAP_LIBDIR. */
char *tracer_locate(char *err);

#endif
