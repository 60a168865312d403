/* elfinfo.h - what an executable's ELF file says about it: whether a
 * dynamic loader runs it (and so honours LD_PRELOAD, which the dependency
 * tracer needs), and whether it exports a function the tracer may call
 * (PHP's realpath_cache_clean). */
#ifndef CGISNAP_ELFINFO_H
#define CGISNAP_ELFINFO_H

#include <stdbool.h>

/* Whether path is an ELF executable without a program interpreter
 * (PT_INTERP): statically linked, static-pie included; no loader starts
 * it, so no preloaded library ever runs in it. false for anything else
 * (a dynamically linked program, a script, a file that cannot be read). */
bool elf_is_static(const char *path);

/* Whether path is an ELF file whose dynamic symbol table defines the
 * function name (what dlsym finds in the running program). false for
 * anything else: an undefined or non-function symbol, a script, a file
 * without section headers, one that cannot be read. */
bool elf_exports(const char *path, const char *name);

#endif
