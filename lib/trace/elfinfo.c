/* elfinfo.c - reading an executable's ELF program headers (see elfinfo.h). */
#include "trace/elfinfo.h"

#include <elf.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

/* Read exactly n bytes at off; 0, or -1. */
static int read_at(int fd, void *p, size_t n, off_t off)
{
	ssize_t r = pread(fd, p, n, off);
	return r == (ssize_t)n ? 0 : -1;
}

/* Look through the program headers (ELF32 or ELF64, the host's byte
 * order: a foreign one does not run here anyway) for PT_INTERP. 1 when
 * one is there, 0 when none, -1 when the file is no such ELF. */
static int has_interp(int fd)
{
	unsigned char ident[EI_NIDENT];
	if (read_at(fd, ident, sizeof ident, 0) < 0 || memcmp(ident, ELFMAG, SELFMAG))
		return -1;
	unsigned long long phoff;
	unsigned phnum, phentsize;
	if (ident[EI_CLASS] == ELFCLASS64) {
		Elf64_Ehdr h;
		if (read_at(fd, &h, sizeof h, 0) < 0 || h.e_phentsize < sizeof(Elf64_Phdr))
			return -1;
		phoff = h.e_phoff, phnum = h.e_phnum, phentsize = h.e_phentsize;
	} else if (ident[EI_CLASS] == ELFCLASS32) {
		Elf32_Ehdr h;
		if (read_at(fd, &h, sizeof h, 0) < 0 || h.e_phentsize < sizeof(Elf32_Phdr))
			return -1;
		phoff = h.e_phoff, phnum = h.e_phnum, phentsize = h.e_phentsize;
	} else {
		return -1;
	}
	if (!phnum)
		return -1; /* an object file, not a program */
	for (unsigned i = 0; i < phnum && i < 4096; i++) {
		unsigned type;
		off_t at = (off_t)(phoff + (unsigned long long)i * phentsize);
		if (ident[EI_CLASS] == ELFCLASS64) {
			Elf64_Phdr ph;
			if (read_at(fd, &ph, sizeof ph, at) < 0)
				return -1;
			type = ph.p_type;
		} else {
			Elf32_Phdr ph;
			if (read_at(fd, &ph, sizeof ph, at) < 0)
				return -1;
			type = ph.p_type;
		}
		if (type == PT_INTERP)
			return 1;
	}
	return 0;
}

bool elf_is_static(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	int r = has_interp(fd);
	close(fd);
	return r == 0;
}
