/* elfinfo.h - what an executable's ELF header says about how it starts:
 * whether a dynamic loader runs it (and so honours LD_PRELOAD, which the
 * dependency tracer needs). */
#ifndef CGISNAP_ELFINFO_H
#define CGISNAP_ELFINFO_H

#include <stdbool.h>

/* Whether path is an ELF executable without a program interpreter
 * (PT_INTERP): statically linked, static-pie included; no loader starts
 * it, so no preloaded library ever runs in it. false for anything else
 * (a dynamically linked program, a script, a file that cannot be read). */
bool elf_is_static(const char *path);

#endif
