/* bench/machine.h - the machine a benchmark ran on, for its report: CPU
 * model, online cores, kernel, memory and this program's version, read
 * from /proc and uname(2). Unknown parts are "" or -1, never an error:
 * a report without a CPU model is still a report. */
#ifndef CGISNAP_BENCH_MACHINE_H
#define CGISNAP_BENCH_MACHINE_H

struct machine {
	char cpu[160];     /* /proc/cpuinfo's first "model name", "" when unknown */
	long cores;        /* online, -1 when unknown */
	char kernel[200];  /* "Linux 6.1.0-18-amd64 x86_64", "" when unknown */
	long long mem_kb;  /* /proc/meminfo's MemTotal, -1 when unknown */
	const char *version; /* cgisnap's */
};

/* Fill m in for this machine. */
void machine_describe(struct machine *m);

#endif
