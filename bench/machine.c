/* bench/machine.c - what the machine is (machine.h). */
#include "machine.h"

#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#ifndef CGISNAP_VERSION
#define CGISNAP_VERSION "unknown"
#endif

/* The value after "key<spaces>:" of the first line of file that starts
 * with key, trimmed, into out; "" when there is none. */
static void proc_field(const char *file, const char *key, char *out, size_t len)
{
	out[0] = '\0';
	FILE *f = fopen(file, "r");
	if (!f)
		return;
	char line[512];
	size_t klen = strlen(key);
	while (fgets(line, sizeof line, f)) {
		if (strncmp(line, key, klen) || !strchr(" \t:", line[klen]))
			continue;
		char *v = strchr(line + klen, ':');
		if (!v)
			continue;
		v++;
		while (*v == ' ' || *v == '\t')
			v++;
		size_t n = strcspn(v, "\n");
		while (n && (v[n - 1] == ' ' || v[n - 1] == '\t'))
			n--;
		snprintf(out, len, "%.*s", (int)n, v);
		break;
	}
	fclose(f);
}

void machine_describe(struct machine *m)
{
	memset(m, 0, sizeof *m);
	m->version = CGISNAP_VERSION;
	proc_field("/proc/cpuinfo", "model name", m->cpu, sizeof m->cpu);
	m->cores = sysconf(_SC_NPROCESSORS_ONLN);
	struct utsname u;
	if (uname(&u) == 0)
		snprintf(m->kernel, sizeof m->kernel, "%s %s %s", u.sysname, u.release, u.machine);
	char mem[64];
	m->mem_kb = -1;
	proc_field("/proc/meminfo", "MemTotal", mem, sizeof mem);
	if (sscanf(mem, "%lld", &m->mem_kb) != 1)
		m->mem_kb = -1;
}
