/* inspect/ls.c - 'cgisnap ls DIR': the tree's manifest as text, one line
 * per URL (or its dependencies), for grep and awk. */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "base/log.h"
#include "tree/manifest.h"
#include "base/opts.h"
#include "tree/tree.h"

static bool deps;

static const struct opt ls_opts[] = {
	{ "deps", 0, OPT_BOOL, &deps, NULL,
	  "print what each page's render read instead: TARGET, KIND, PATH lines", 0, 0 },
	OPT_END
};

static void print_help(const struct opt *const *tables)
{
	printf("usage: cgisnap ls [OPTIONS] DIR\n\n"
	       "Print the manifest of the snapshot tree DIR (.cgisnap/tree.db) as text:\n"
	       "a '#' line naming the columns, then one tab-separated line per URL,\n"
	       "sorted by target, \"-\" for an empty field:\n\n"
	       "  target  key  status  type  bytes  sha256  render_ms  changed  location\n\n"
	       "target is the canonical request target, key the file under DIR (\"-\" for\n"
	       "redirects and errors), status the origin's HTTP status, type its\n"
	       "Content-Type, bytes and sha256 the stored file, render_ms the render's\n"
	       "time, changed the Unix time the stored bytes last changed, location the\n"
	       "redirect target. For example the redirects:\n\n"
	       "  cgisnap ls DIR | awk -F'\\t' '$3 >= 300 && $3 < 400 { print $1, $9 }'\n\n"
	       "With --deps the lines are TARGET, KIND and PATH: KIND R (read or\n"
	       "stat'ed), E (checked for existence), L (directory listed), C (every\n"
	       "file of the directory read) or U (untraced: PATH is the program).\n"
	       "A tree of an older cgisnap (.cgisnap/manifest and deps files) is migrated\n"
	       "to tree.db first, with a log line.\n\n"
	       "Options:\n");
	opts_print_help(stdout, tables);
}

int cmd_ls(int argc, char **argv)
{
	const struct opt *const tables[] = { ls_opts, NULL };
	struct strlist args = STRLIST_INIT;
	struct manifest m = MANIFEST_INIT;
	struct tree t;
	bool have_tree = false;
	char err[ERR_LEN];
	int rc = opts_parse(tables, argc, argv, 0, &args, err);

	rc = cli_parsed("ls", rc, err, print_help, tables);
	if (rc != CLI_GO_ON)
		goto out;
	if (args.n != 1) {
		rc = usage_error("ls", args.n ? "expected one tree directory" : "no tree directory given");
		goto out;
	}
	rc = EXIT_USAGE;
	if (tree_open(&t, args.items[0], false, err) < 0) {
		log_error("%s", err);
		goto out;
	}
	have_tree = true;
	if (t.meta_fd < 0) {
		log_error("'%s' is not a cgisnap tree (no %s directory)", t.path, TREE_META_DIR);
		goto out;
	}
	if (manifest_load(&m, &t, err) < 0) {
		log_error("%s", err);
		goto out;
	}
	if (manifest_write_text(&m, deps, stdout) < 0) {
		log_error("cannot write the manifest to standard output");
		rc = EXIT_PARTIAL;
		goto out;
	}
	rc = 0;
out:
	manifest_release(&m);
	if (have_tree)
		tree_close(&t);
	strlist_clear(&args);
	opts_release(tables);
	return rc;
}
