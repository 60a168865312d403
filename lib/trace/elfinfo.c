/* elfinfo.c - reading an executable's ELF headers and dynamic symbols
 * (see elfinfo.h). */
#include "trace/elfinfo.h"

#include <elf.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Read exactly n bytes at off; 0, or -1. */
static int read_at(int fd, void *p, size_t n, off_t off)
{
	ssize_t r = pread(fd, p, n, off);
	return r == (ssize_t)n ? 0 : -1;
}

/* What an ELF file's header says (ELF32 or ELF64, the host's byte order:
 * a foreign one does not run here anyway). */
struct header {
	int class; /* ELFCLASS64 or ELFCLASS32 */
	unsigned long long phoff, shoff;
	unsigned phnum, phentsize, shnum, shentsize;
};

/* Read fd's ELF header into h: 0, or -1 when fd holds no such ELF. */
static int read_header(int fd, struct header *h)
{
	unsigned char ident[EI_NIDENT];
	if (read_at(fd, ident, sizeof ident, 0) < 0 || memcmp(ident, ELFMAG, SELFMAG))
		return -1;
	if (ident[EI_CLASS] == ELFCLASS64) {
		Elf64_Ehdr e;
		if (read_at(fd, &e, sizeof e, 0) < 0)
			return -1;
		*h = (struct header){ ELFCLASS64, e.e_phoff, e.e_shoff, e.e_phnum, e.e_phentsize,
				      e.e_shnum, e.e_shentsize };
	} else if (ident[EI_CLASS] == ELFCLASS32) {
		Elf32_Ehdr e;
		if (read_at(fd, &e, sizeof e, 0) < 0)
			return -1;
		*h = (struct header){ ELFCLASS32, e.e_phoff, e.e_shoff, e.e_phnum, e.e_phentsize,
				      e.e_shnum, e.e_shentsize };
	} else {
		return -1;
	}
	return 0;
}

/* Look through the program headers for PT_INTERP. 1 when one is there,
 * 0 when none, -1 when the file is no such ELF. */
static int has_interp(int fd)
{
	struct header h;
	if (read_header(fd, &h) < 0 ||
	    h.phentsize < (h.class == ELFCLASS64 ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr)))
		return -1;
	if (!h.phnum)
		return -1; /* an object file, not a program */
	for (unsigned i = 0; i < h.phnum && i < 4096; i++) {
		unsigned type;
		off_t at = (off_t)(h.phoff + (unsigned long long)i * h.phentsize);
		if (h.class == ELFCLASS64) {
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

/* The largest dynamic symbol or string table looked through: php-cgi's
 * are 72 and 62 KiB. */
#define DYN_TABLE_MAX (16u << 20)

/* A section's file offset, size and link, as the two classes give them. */
struct section {
	unsigned type, link;
	unsigned long long offset, size, entsize;
};

static int read_section(int fd, int class, unsigned long long at, struct section *s)
{
	if (class == ELFCLASS64) {
		Elf64_Shdr sh;
		if (read_at(fd, &sh, sizeof sh, (off_t)at) < 0)
			return -1;
		*s = (struct section){ sh.sh_type, sh.sh_link, sh.sh_offset, sh.sh_size, sh.sh_entsize };
	} else {
		Elf32_Shdr sh;
		if (read_at(fd, &sh, sizeof sh, (off_t)at) < 0)
			return -1;
		*s = (struct section){ sh.sh_type, sh.sh_link, sh.sh_offset, sh.sh_size, sh.sh_entsize };
	}
	return 0;
}

/* A section's bytes, or NULL (too big, unreadable). */
static char *section_bytes(int fd, const struct section *s)
{
	if (!s->size || s->size > DYN_TABLE_MAX)
		return NULL;
	char *p = malloc((size_t)s->size);
	if (p && read_at(fd, p, (size_t)s->size, (off_t)s->offset) < 0) {
		free(p);
		p = NULL;
	}
	return p;
}

/* Whether the symbols of the SHT_DYNSYM section dyn (strings in str)
 * define the function name. */
static bool defines(int class, const char *syms, const struct section *dyn, const char *strs,
		    const struct section *str, const char *name)
{
	size_t want = class == ELFCLASS64 ? sizeof(Elf64_Sym) : sizeof(Elf32_Sym);
	if (dyn->entsize < want)
		return false;
	size_t len = strlen(name);
	for (unsigned long long at = 0; at + dyn->entsize <= dyn->size; at += dyn->entsize) {
		unsigned long long off;
		unsigned shndx, info;
		if (class == ELFCLASS64) {
			Elf64_Sym sym;
			memcpy(&sym, syms + at, sizeof sym);
			off = sym.st_name, shndx = sym.st_shndx, info = sym.st_info;
		} else {
			Elf32_Sym sym;
			memcpy(&sym, syms + at, sizeof sym);
			off = sym.st_name, shndx = sym.st_shndx, info = sym.st_info;
		}
		if (shndx == SHN_UNDEF || ELF64_ST_TYPE(info) != STT_FUNC || off + len >= str->size)
			continue;
		if (!memcmp(strs + off, name, len + 1))
			return true;
	}
	return false;
}

static bool exports(int fd, const char *name)
{
	struct header h;
	if (read_header(fd, &h) < 0 ||
	    h.shentsize < (h.class == ELFCLASS64 ? sizeof(Elf64_Shdr) : sizeof(Elf32_Shdr)))
		return false;
	struct section dyn, str;
	unsigned i;
	for (i = 0; i < h.shnum && i < 65536; i++) {
		if (read_section(fd, h.class, h.shoff + (unsigned long long)i * h.shentsize, &dyn) < 0)
			return false;
		if (dyn.type == SHT_DYNSYM)
			break;
	}
	if (i == h.shnum || i == 65536 || dyn.link >= h.shnum ||
	    read_section(fd, h.class, h.shoff + (unsigned long long)dyn.link * h.shentsize, &str) < 0 ||
	    str.type != SHT_STRTAB)
		return false;
	char *syms = section_bytes(fd, &dyn), *strs = section_bytes(fd, &str);
	bool found = syms && strs && defines(h.class, syms, &dyn, strs, &str, name);
	free(syms);
	free(strs);
	return found;
}

bool elf_exports(const char *path, const char *name)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	bool found = exports(fd, name);
	close(fd);
	return found;
}
