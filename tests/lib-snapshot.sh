# tests/lib-snapshot.sh - helpers for the tests that snapshot the sample
# sites (source after lib.sh).

# The wiki's per-render web bug (DokuWiki's taskrunner.php?id=X&TIME).
# Like DokuWiki, the wiki marks pages edited in the last days noindex:
# its crawls say --robots-meta ignore, as DokuWiki's profile does.
WIKI_STRIP='<img src="[^"]*taskrunner\.php[^>]*>'

# sample_site_test wiki|blog N: the sample wiki of N pages (blog of N
# posts) seeded in $TESTDIR/wiki (blog) as SITE, and OUT=$TESTDIR/out for
# its tree: what most tests of the sample sites start from.
sample_site_test() {
	SITE=$TESTDIR/$1
	OUT=$TESTDIR/out
	"seed_$1" "$SITE" "$2"
}

# snap_wiki SITE OUT [OPTIONS...]: snapshot the sample wiki through php-cgi.
snap_wiki() {
	local site=$1 out=$2
	shift 2
	"$CGISNAP" snapshot --root "$site" --cgi php=php-cgi --site-url http://localhost:8080/ \
		--strip "$WIKI_STRIP" --robots-meta ignore --not-found '/doku.php?id=cgisnap:no-such-page' "$@" "$out"
}

# snap_blog SITE OUT [OPTIONS...]: snapshot the sample blog through php-cgi.
snap_blog() {
	local site=$1 out=$2
	shift 2
	"$CGISNAP" snapshot --root "$site" --cgi php=php-cgi --front-controller /index.php \
		--site-url http://localhost:8080/ "$@" "$out"
}

# manifest_targets OUT: every target of the manifest, sorted.
manifest_targets() {
	grep -v '^#' <("$CGISNAP" ls "$1") | cut -f1 | LC_ALL=C sort
}

# stored_files OUT: how many of the tree's URLs are stored as files.
stored_files() {
	awk -F'\t' '!/^#/ && $2 != "-"' <("$CGISNAP" ls "$1") | wc -l
}

# render_counts ERR: "RENDERED CUT" of the -v run that wrote ERR: the
# URLs it rendered, and those it cut with their view families unrendered.
render_counts() {
	echo "$(grep -cE '^cgisnap: [0-9]{3} [a-z-]+ [0-9]+ ms ' "$1") $(grep -cE '^cgisnap: - skipped 0 ms ' "$1")"
}

# skipped_patterns ERR...: each URL the -v runs that wrote ERR said they
# skipped (noindex, or cut with its family), as an anchored regex a line
# (one sed escapes them all: hundreds of URLs).
skipped_patterns() {
	sed -nE 's/^cgisnap: ([0-9]{3}|-) skipped [0-9]+ ms [0-9]+ bytes //p' "$@" |
		sort -u | sed 's/[].[^$*+?(){}|\\]/\\&/g; s/^/^/; s/$/$/'
}

# check_links NAME SKIPPED PAGES LINKCHECK-ARGS...: tests/lib-linkcheck.py
# run with the arguments (its output in $TESTDIR/links.out) finds nothing
# broken, SKIPPED (a regex) URLs skipped, and at least PAGES pages; its
# summary is said in a comment line, NAME first.
check_links() {
	local name=$1 skipped=$2 pages=$3 last
	shift 3
	python3 "$ROOT/tests/lib-linkcheck.py" "$@" >"$TESTDIR/links.out" 2>&1
	check_eq 0 $? "link check ($(head -5 "$TESTDIR/links.out"))"
	last=$(tail -1 "$TESTDIR/links.out")
	check_match "$last" "^checked [0-9]+ pages, [0-9]+ links, [0-9]+ URLs, 0 broken, $skipped skipped\$" "summary"
	check_le "$pages" "$(grep -oE '^checked [0-9]+' <<<"$last" | grep -oE '[0-9]+')" "pages checked, at least"
	echo "# $name $last"
}

# manifest_field OUT TARGET COLUMN: one field of a manifest line (1-based).
manifest_field() {
	awk -F'\t' -v t="$2" -v c="$3" '$1 == t { print $c }' <("$CGISNAP" ls "$1")
}

# tree_mtimes OUT: "file mtime" for every file of the tree outside .cgisnap.
tree_mtimes() {
	(cd "$1" && find . -path ./.cgisnap -prune -o -type f -printf '%P %T@\n' | LC_ALL=C sort)
}

# linkcheck OUT SITE_URL: print "PAGE -> TARGET" for every followable link
# (a/link/img/script without rel=nofollow) in the tree's HTML pages whose
# target the manifest does not know; prints nothing when all resolve.
linkcheck() {
	local out=$1 site=${2%/}
	# One awk reads the manifest, then each HTML page's lines for their
	# tags (as grep -o would, a line at a time): no process per page.
	awk -F'\t' -v site="$site" -v dir="$out" '
		!/^#/ { known[$1] = 1; if ($4 ~ /^text\/html/ && $2 != "-") { n++; target[n] = $1; key[n] = $2 } }
		END {
			for (i = 1; i <= n; i++) {
				file = dir "/" key[i]
				while ((getline line < file) > 0)
					while (match(line, /<(a|link|img|script)[[:space:]][^>]*>/)) {
						check(target[i], substr(line, RSTART, RLENGTH))
						line = substr(line, RSTART + RLENGTH)
					}
				close(file)
			}
		}
		function check(page, tag,    url) {
			if (tag ~ /rel="[^"]*nofollow/) return
			if (!match(tag, /(href|src)="[^"]*"/)) return
			url = substr(tag, RSTART, RLENGTH); sub(/^[a-z]+="/, "", url); sub(/"$/, "", url)
			gsub(/&amp;/, "\\&", url); sub(/#.*/, "", url)
			if (url == "") return
			if (index(url, site "/") == 1) url = substr(url, length(site) + 1)
			else if (url ~ /^[a-z]+:/) return
			if (url !~ /^\//) return
			if (!(url in known)) print page " -> " url
		}' <("$CGISNAP" ls "$out") | LC_ALL=C sort -u
}

# direct_render ROOT SCRIPT TARGET: the body php-cgi gives for TARGET.
direct_render() {
	local env_args
	mapfile -t env_args < <(cgi_env "$1" "$2" "$3")
	mkdir -p "$TESTDIR/direct-sessions"
	env -i "${env_args[@]}" php-cgi -d opcache.enable=0 -d session.save_path="$TESTDIR/direct-sessions" |
		sed '1,/^\r\{0,1\}$/d'
}

# tree_consistent TREE: tree.db reads, and every file its manifest lists
# is there with the bytes and sha256 of its row, or of a pending row (a
# file renamed into place before the save that would record it was
# killed or failed: the next writer settles it); no temporary file is
# left (TEMPS_OK=1: but for temp files, which a crash may leave for the
# next writer). Prints what is wrong, a line each (the fault tests, t058x).
tree_consistent() {
	local ls=$TESTDIR/consistent.ls pending=$TESTDIR/consistent.pending
	"$CGISNAP" ls "$1" >"$ls" 2>&1 || echo "ls: $(tail -1 "$ls")"
	tree_sql "$1" "SELECT line FROM pending" >"$pending" 2>&1 || echo "pending: $(tail -1 "$pending")"
	(cd "$1" && awk -F'\t' '!/^#/ && $2 != "-" { print $2 "\t" $5 "\t" $6 }' "$ls" |
		while IFS=$'\t' read -r key bytes sha; do
			if [ ! -f "$key" ]; then
				echo "listed, missing: $key"
				continue
			fi
			now="$(stat -c %s "$key")	$(sha256sum <"$key" | cut -d' ' -f1)"
			[ "$now" = "$bytes	$sha" ] ||
				awk -F'\t' -v k="$key" -v now="$now" '$2 == k && $5 "\t" $6 == now { found = 1 }
					END { exit !found }' "$pending" ||
				echo "listed, $(stat -c %s "$key") bytes, not as recorded: $key"
		done
	[ -n "${TEMPS_OK:-}" ] || find . -name '.cgisnap-tmp-*' -printf 'temporary file left: %P\n')
}

# same_files A B: the files of the trees A and B (outside .cgisnap) have
# the same names and bytes; prints the differences.
same_files() {
	diff <(cd "$1" && find . -path ./.cgisnap -prune -o -type f -printf '%P\n' | LC_ALL=C sort) \
		<(cd "$2" && find . -path ./.cgisnap -prune -o -type f -printf '%P\n' | LC_ALL=C sort) | grep '^[<>]'
	(cd "$1" && find . -path ./.cgisnap -prune -o -type f -printf '%P\n') | while IFS= read -r f; do
		[ ! -f "$2/$f" ] || cmp -s "$1/$f" "$2/$f" || echo "other bytes: $f"
	done
}

# stray_lines FILE: a failed run's output FILE must be one error or
# warning a line; prints the first line that is not.
stray_lines() {
	local stray
	stray=$(grep -v '^cgisnap: \(error\|warning\): ' "$1" | head -1)
	[ -z "$stray" ] || printf 'a line that is not one error or warning: %s; ' "$stray"
}

# tally_fault WHAT BAD: a fault the tree came through (SURVIVED counts
# them) when BAD (what after_fault and the checks found) is empty; else
# says WHAT went wrong.
SURVIVED=0
tally_fault() {
	if [ -z "$2" ]; then
		SURVIVED=$((SURVIVED + 1))
	else
		echo "# $1: $2"
	fi
}

# after_fault SITE OUT REF SNAP_ARGS...: what the sample wiki's tree OUT
# must be after a fault (a kill, a power cut, a full or failing disk):
# consistent as it was left (CRASHED=1: but for temp files), completed by
# the next snapshot (exit 0), then equal to a clean snapshot made in REF,
# no temp file left. Prints what is not, on one line (nothing when all is
# well).
after_fault() {
	local site=$1 out=$2 ref=$3 rc
	shift 3
	{
		TEMPS_OK=${CRASHED:-} tree_consistent "$out"
		snap_wiki "$site" "$out" "$@" -q 2>"$TESTDIR/after.err"
		rc=$?
		[ "$rc" = 0 ] || echo "the next run exited $rc: $(tail -1 "$TESTDIR/after.err")"
		rm -rf "$ref"
		snap_wiki "$site" "$ref" "$@" -q 2>"$TESTDIR/ref.err" || echo "the clean snapshot failed"
		same_files "$ref" "$out"
		tree_consistent "$out"
	} | head -3 | tr '\n' ' '
}
