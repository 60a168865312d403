<?php
// repo.php - the made-up repository: files and commits. Each commit
// changes the files it names; a file's text at a revision is made from
// the commits that touched it up to there.
$REPO_FILES = ['README.md', 'LICENSE', 'Makefile', 'docs/a.md', 'docs/b.md', 'src/main.c', 'src/util.c', 'src/util.h'];
$REPO_COMMITS = [
	'r1' => ['2026-01-03', 'Start the project', ['README.md', 'LICENSE', 'Makefile']],
	'r2' => ['2026-01-03', 'Add the main program', ['src/main.c', 'Makefile']],
	'r3' => ['2026-01-05', 'Write the first guide', ['docs/a.md']],
	'r4' => ['2026-01-08', 'Split out the helpers', ['src/util.c', 'src/util.h', 'src/main.c']],
	'r5' => ['2026-01-08', 'Second guide', ['docs/b.md', 'README.md']],
	'r6' => ['2026-01-12', 'Fix the build on BSD', ['Makefile']],
	'r7' => ['2026-01-15', 'Explain the options', ['docs/a.md', 'docs/b.md']],
	'r8' => ['2026-01-15', 'Handle long lines', ['src/util.c']],
	'r9' => ['2026-01-20', 'Tidy the headers', ['src/util.h', 'src/main.c']],
	'r10' => ['2026-01-22', 'Mention the guides', ['README.md']],
	'r11' => ['2026-01-27', 'A test target', ['Makefile', 'src/main.c']],
	'r12' => ['2026-02-01', 'Release 1.0', ['README.md', 'docs/a.md']],
];
$REPO_COMMANDS = ['log', 'diff', 'blame', 'timeline', 'tarball', 'login', 'edit', 'skin', 'file', 'commit'];

// The revisions up to and including rev, oldest first.
function repo_revs_until($rev)
{
	global $REPO_COMMITS;
	$out = [];
	foreach ($REPO_COMMITS as $id => $c) {
		$out[] = $id;
		if ($id === $rev)
			break;
	}
	return $out;
}

// The text of file as of rev (null when it did not exist yet).
function repo_text($file, $rev)
{
	global $REPO_COMMITS;
	$lines = [];
	foreach (repo_revs_until($rev) as $id)
		if (in_array($file, $REPO_COMMITS[$id][2], true))
			$lines[] = "$file: $id: " . $REPO_COMMITS[$id][1] . '.';
	return $lines ? implode("\n", $lines) . "\n" : null;
}

// The revisions that touched file, oldest first.
function repo_file_revs($file)
{
	global $REPO_COMMITS;
	$out = [];
	foreach ($REPO_COMMITS as $id => $c)
		if (in_array($file, $c[2], true))
			$out[] = $id;
	return $out;
}
