/* cgisnap.c - the cgisnap binary: dispatches to a subcommand. */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "base/opts.h"

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
};

static const struct command commands[] = {
	{ "snapshot", cmd_snapshot, "render every page of a dynamic site into a static tree" },
	{ "watch", cmd_watch, "keep a snapshot fresh: re-render what a source change affects" },
	{ "notify", cmd_notify, "tell a running watch which pages or files changed (a CMS or database hook)" },
	{ "serve", cmd_serve, "serve a snapshot tree over HTTP (libmicrohttpd)" },
	{ "bench", cmd_bench, "measure the dynamic site against its snapshot" },
	{ "verify", cmd_verify, "replay access logs against the site and its snapshot: which answers would change" },
	{ "config", cmd_config, "print an nginx or Apache configuration serving a tree" },
	{ "status", cmd_status, "print a tree's state: URLs by status, dependencies, settings, the last run" },
	{ "why", cmd_why, "say what a page depends on, or which pages depend on a path (--path)" },
	{ "ls", cmd_ls, "print a tree's manifest (or its dependencies) as tab-separated text" },
	{ "profiles", cmd_profiles, "list the site profiles (DokuWiki, ...) and what each sets" },
};

static void print_help(void)
{
	printf("usage: cgisnap COMMAND [OPTIONS]\n"
	       "       cgisnap COMMAND --help\n\n"
	       "Turns a slow dynamic website into a fast static one.\n\n"
	       "Commands:\n");
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
		printf("  %-10s %s\n", commands[i].name, commands[i].summary);
	printf("\nOptions:\n"
	       "  -h, --help     show this help\n"
	       "  -V, --version  print the version (every command takes -V too)\n");
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return usage_error(NULL, "no command given");
	const char *name = argv[1];
	if (!strcmp(name, "-h") || !strcmp(name, "--help") || !strcmp(name, "help")) {
		print_help();
		return 0;
	}
	if (!strcmp(name, "--version") || !strcmp(name, "-V") || !strcmp(name, "version")) {
		opts_print_version(stdout);
		return 0;
	}
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
		if (!strcmp(name, commands[i].name))
			return commands[i].fn(argc - 1, argv + 1);

	char msg[256];
	if (name[0] == '-')
		snprintf(msg, sizeof msg, "unknown option '%s'", name);
	else
		snprintf(msg, sizeof msg, "unknown command '%s'", name);
	return usage_error(NULL, msg);
}
