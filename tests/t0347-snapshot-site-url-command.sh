#!/usr/bin/env bash
# t0347-snapshot-site-url-command: --site-url-command CMD, from a profile
# (a fake one, through CGISNAP_PROFILE_DIR) or from the user: run in --root
# when no --site-url is given, its one line is the site URL (the crawl
# follows the absolute links the application writes with it, the tree
# records it, the output says where it came from); with --site-url it does
# not run; a failing command, no output, two lines or a bad URL are exit 2
# with one line naming the command and what it printed, and the tree is
# left as it was. A profile found by an --origin's generator, without
# --root, does not run its command: the site stays the origin's. serve and
# bench take it too.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-snapshot.sh"
. "$(dirname "$0")/lib-serve.sh"

SITE=$TESTDIR/site PROF=$TESTDIR/prof OUT=$TESTDIR/out
mkdir -p "$SITE" "$PROF"
# The page links itself the way WordPress does: absolute, with its address.
printf '<html><body><a href="http://blog.test:8080/about.html">about</a></body></html>\n' >"$SITE/index.html"
printf '<html><body><p>about</p></body></html>\n' >"$SITE/about.html"
touch "$SITE/app.marker"
# The command runs in --root: it reads the application's own setting there.
printf 'http://BLOG.test:8080\n' >"$SITE/address"
cat >"$PROF/app.conf" <<'CONF'
# description: a test application
# detect: file app.marker
site-url-command = cat address; echo ran >>"$CGISNAP_PROFILE_DIR/runs"
CONF
snap() {
	CGISNAP_PROFILE_DIR=$PROF "$CGISNAP" snapshot --root "$SITE" "$@"
}

try "a profile's --site-url-command gives the site URL when --site-url is not given"
snap "$OUT" >/dev/null 2>"$TESTDIR/err"
check_eq 0 $? "exit status ($(cat "$TESTDIR/err"))"
check_eq "cgisnap: site URL http://blog.test:8080/ (from the profile's --site-url-command); --site-url URL to give another" \
	"$(sed -n 2p "$TESTDIR/err")" "the second line says the site URL and where it came from"
check_contains "$(cat "$OUT/.cgisnap/settings")" "site-url = http://blog.test:8080/" "the tree records it"
check_eq 200 "$(manifest_field "$OUT" /about.html 3)" "the absolute link to the site was followed"
check_eq 1 "$(wc -l <"$PROF/runs")" "the command ran once"

try "with --site-url the command does not run"
rm -f "$PROF/runs"
snap --site-url http://blog.test:8080/ "$OUT" >/dev/null 2>"$TESTDIR/err"
check_eq 0 $? "exit status ($(cat "$TESTDIR/err"))"
check_no_file "$PROF/runs" "no run"
check_not_contains "$(cat "$TESTDIR/err")" "site URL" "nothing said about it"
check_contains "$(cat "$TESTDIR/err")" "0 new, 0 changed, 2 unchanged" "the same tree as from the command"

try "-q says nothing about it; the user's --site-url-command replaces the profile's"
snap -q --site-url-command 'echo http://other.test/' "$TESTDIR/out2" >/dev/null 2>"$TESTDIR/err"
check_eq 0 $? "exit status ($(cat "$TESTDIR/err"))"
check_eq "" "$(cat "$TESTDIR/err")" "quiet"
check_contains "$(cat "$TESTDIR/out2/.cgisnap/settings")" "site-url = http://other.test/" "the user's command"
"$CGISNAP" snapshot --root "$SITE" --profile none --site-url-command 'cat address' \
	"$TESTDIR/out3" >/dev/null 2>"$TESTDIR/err"
check_eq 0 $? "without a profile ($(cat "$TESTDIR/err"))"
check_eq "cgisnap: site URL http://blog.test:8080/ (from --site-url-command); --site-url URL to give another" \
	"$(head -1 "$TESTDIR/err")" "the first line names the option"

# bad_command CMD EXPECTED WHAT: snapshot over the tree with a profile
# whose command is CMD: exit 2, one line holding EXPECTED, the tree intact.
bad_command() {
	printf '# description: a broken one\n# detect: file app.marker\nsite-url-command = %s\n' "$1" >"$PROF/app.conf"
	local before
	before=$(cd "$OUT" && find . -type f -exec sha256sum {} + | sort)
	snap "$OUT" >/dev/null 2>"$TESTDIR/err"
	check_eq 2 $? "$3: exit status"
	check_eq "cgisnap: using profile app (found app.marker); --profile none to turn it off" \
		"$(head -1 "$TESTDIR/err")" "$3: the profile's line"
	check_eq 2 "$(wc -l <"$TESTDIR/err")" "$3: then one line ($(cat "$TESTDIR/err"))"
	check_contains "$(tail -1 "$TESTDIR/err")" "$2" "$3: the message"
	check_eq "$before" "$(cd "$OUT" && find . -type f -exec sha256sum {} + | sort)" "$3: the tree is intact"
}

try "a failing command, no output, two lines or a bad URL: exit 2, one line naming the command and its output"
bad_command 'echo half; exit 3' "--site-url-command 'echo half; exit 3' exited 3 (it printed 'half')" "failing"
bad_command 'kill -9 $$' "--site-url-command 'kill -9 \$\$' was killed by signal 9 (it printed '')" "killed"
bad_command 'true' "--site-url-command 'true' printed '', not one line with the site URL" "no output"
bad_command 'printf "http://a/\\nhttp://b/\\n"' "printed 'http://a/?http://b/', not one line with the site URL" \
	"two lines"
bad_command 'echo not a url' "--site-url-command 'echo not a url' printed 'not a url', not a site URL:" "a bad URL"
bad_command 'echo ftp://blog.test/' "printed 'ftp://blog.test/', not a site URL:" "not http"
bad_command 'head -c 10000 /dev/zero | tr "\\0" x' "printed more than 4096 bytes" "too long"

try "without --root, a profile found by the generator does not run its command: the site is the origin's"
GEN=$TESTDIR/gen P=$(port 0)
mkdir -p "$GEN"
printf '<html><head><meta name="generator" content="TestApp 1"></head><body><a href="/about.html">a</a></body></html>\n' \
	>"$GEN/index.html"
printf '<p>about</p>\n' >"$GEN/about.html"
"$CGISNAP" snapshot -q --root "$GEN" "$TESTDIR/gen-tree" 2>"$TESTDIR/err"
check_eq 0 $? "the origin's tree ($(cat "$TESTDIR/err"))"
serve_start "$TESTDIR/gen-tree" "$P"
printf '# description: by generator\n# detect: generator ^TestApp\nsite-url-command = exit 6\n' >"$PROF/gen.conf"
CGISNAP_PROFILE_DIR=$PROF "$CGISNAP" snapshot --origin "http://127.0.0.1:$P/" "$TESTDIR/out5" \
	>/dev/null 2>"$TESTDIR/err"
check_eq 0 $? "exit status ($(cat "$TESTDIR/err"))"
check_eq "cgisnap: using profile gen (generator 'TestApp 1'); --profile none to turn it off" \
	"$(head -1 "$TESTDIR/err")" "the profile is found"
check_contains "$(cat "$TESTDIR/out5/.cgisnap/settings")" "site-url = http://127.0.0.1:$P/" "the origin's URL"
check_eq 200 "$(manifest_field "$TESTDIR/out5" /about.html 3)" "the site was crawled"
# The user's own command runs without --root too, in the current
# directory, after a generator that matched no profile.
rm -f "$PROF/gen.conf"
(cd "$SITE" && CGISNAP_PROFILE_DIR=$PROF "$CGISNAP" snapshot -q --origin "http://127.0.0.1:$P/" \
	--site-url-command 'cat address' "$TESTDIR/out6" >/dev/null 2>"$TESTDIR/err")
check_contains "$(cat "$TESTDIR/out6/.cgisnap/settings")" "site-url = http://blog.test:8080/" \
	"the user's command ran ($(cat "$TESTDIR/err"))"
bg_stop "$SERVE_PID"

try "watch, serve and bench take it too; serve with a failing one is exit 2"
for c in snapshot watch serve bench; do
	check_match "$("$CGISNAP" "$c" --help)" '^ +--site-url-command CMD ' "$c --help has it"
done
err=$("$CGISNAP" serve --site-url-command 'exit 4' "$OUT" 2>&1 >/dev/null)
check_eq 2 $? "serve exit status"
check_eq "cgisnap: error: --site-url-command 'exit 4' exited 4 (it printed '')" "$err" "serve's message"
printf '# description: a test application\n# detect: file app.marker\nsite-url-command = exit 5\n' >"$PROF/app.conf"
err=$(CGISNAP_PROFILE_DIR=$PROF "$CGISNAP" watch --root "$SITE" --source "$SITE" "$TESTDIR/out4" 2>&1 >/dev/null)
check_eq 2 $? "watch exit status"
check_contains "$err" "--site-url-command 'exit 5' exited 5" "watch's message"
check_no_file "$TESTDIR/out4" "watch made nothing"

finish
