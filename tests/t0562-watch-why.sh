#!/usr/bin/env bash
# t0562-watch-why: 'watch -v' logs why each URL is re-rendered: the changed
# path and the recorded dependency (R read, L listed, ...) that makes it
# the page's, or the --depends rule, --always, or a notify; then the
# URL's own line (status, ms, bytes, what became of it). Without -v,
# none of it.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-watch.sh"

watch_wiki_test 40
pages_in() { wiki_pages "$SITE" "$1"; }
P=$(pages_in howto | head -1)
ALWAYS=$(pages_in team | head -1)
mapfile -t ARGS < <(watch_wiki_args "$SITE")
ARGS+=(--exclude 'do=backlink' --depends 'trigger\.txt$ => /doku.php?id=start'
	--always "/doku.php?id=$ALWAYS")
re() { printf '%s' "$1" | sed 's/[][?.*+()|{}^$\\]/\\&/g'; }

try "watch -v comes up"
watch_start "$LOG" "${ARGS[@]}" -v "$OUT"
check_eq 0 $? "watch came up ($(tail -3 "$LOG"))"
D=$TESTDIR/deps.tsv

try "an edit: the page that read the file, by R"
src=$(wiki_file "$SITE" "$P")
n=$(batches "$LOG")
printf '\nWhy marker W1.\n' >>"$src"
wait_batches "$LOG" $((n + 1))
check_eq 0 $? "a batch ran"
check_match "$(cat "$LOG")" "^cgisnap: re-render $(re "/doku.php?id=$P"): $(re "$src") changed \(R $(re "$src")\)$" \
	"the reason line"
check_match "$(cat "$LOG")" "^cgisnap: 200 changed [0-9]+ ms [0-9]+ bytes $(re "/doku.php?id=$P")$" "and its outcome"
check_match "$(cat "$LOG")" "^cgisnap: re-render $(re "/doku.php?id=$ALWAYS"): --always$" "the --always page"
# The edit's batch line, and the reasons logged since the batch line before
# it (the renders' own cache writes may make batches of their own).
end=$(grep -nF "$src" "$LOG" | grep '^[0-9]*:cgisnap: batch: ' | tail -1 | cut -d: -f1)
start=$(head -n "$((end - 1))" "$LOG" | grep -n '^cgisnap: batch: ' | tail -1 | cut -d: -f1)
reasons=$(sed -n "$((${start:-0} + 1)),$((end - 1))p" "$LOG" | grep -c '^cgisnap: re-render ')
batch=$(sed -n "${end}p" "$LOG")
check_match "$batch" ": $reasons URLs? re-rendered," "one reason per URL re-rendered ($batch)"

try "a new page: the pages that listed its directory, by L"
dir=$SITE/data/pages/howto
# A page that listed the directory, and neither read every file in it
# (C, taken first) nor anything of the new page.
"$CGISNAP" ls --deps "$OUT" >"$D"
L=$(awk -F'\t' -v d="$dir" '$2 == "L" && $3 == d { print $1 }' "$D" | LC_ALL=C sort -u)
C=$(awk -F'\t' -v d="$dir" '$2 == "C" && $3 == d { print $1 }' "$D" | LC_ALL=C sort -u)
T=$(comm -23 <(printf '%s\n' "$L") <(printf '%s\n' "$C") | head -1)
check_ne "" "$T" "a page listed $dir"
new=$dir/why_new_page.txt
# The edit's renders write DokuWiki's caches and may re-render T in
# batches of their own: those end before the new page is made.
watch_idle "$OUT"
n=$(grep -c '' "$LOG")
printf '====== Why New ======\n\nText.\n' >"$new"
wait_log_since "$LOG" "$n" "^cgisnap: re-render $(re "$T"): "
check_eq 0 $? "a re-render of $T"
check_match "$(tail -n "+$((n + 1))" "$LOG")" "^cgisnap: re-render $(re "$T"): $(re "$new") created \(L $(re "$dir")\)$" \
	"the reason line"

try "a --depends rule"
watch_idle "$OUT"
n=$(grep -c '' "$LOG")
echo x >"$SITE/data/trigger.txt"
wait_log_since "$LOG" "$n" "^cgisnap: re-render /doku\.php\?id=start: $(re "$SITE/data/trigger.txt")"
check_eq 0 $? "a re-render of the start page"
check_match "$(tail -n "+$((n + 1))" "$LOG")" \
	"^cgisnap: re-render /doku\.php\?id=start: $(re "$SITE/data/trigger.txt") created \(--depends 'trigger\\\\\.txt\\$ => /doku\.php\?id=start'\)$" \
	"the rule named"

try "a notify: notified, then the --always page"
n=$(grep -c '' "$LOG")
"$CGISNAP" notify --wait -q "$OUT" "/doku.php?id=$P" >/dev/null
check_eq 0 $? "notify"
after=$(tail -n "+$((n + 1))" "$LOG")
check_match "$after" "^cgisnap: re-render $(re "/doku.php?id=$P"): notified$" "the notified page"
check_match "$after" "^cgisnap: re-render $(re "/doku.php?id=$ALWAYS"): --always$" "the --always page"
check_match "$after" "^cgisnap: 200 unchanged [0-9]+ ms [0-9]+ bytes $(re "/doku.php?id=$P")$" "its outcome"
watch_stop_ok

try "without -v: no reasons"
watch_start "$LOG" "${ARGS[@]}" "$OUT"
check_eq 0 $? "watch came up"
n=$(batches "$LOG")
printf '\nWhy marker W2.\n' >>"$src"
wait_batches "$LOG" $((n + 1))
check_not_contains "$(cat "$LOG")" "re-render " "no reason lines"
check_no_match "$(cat "$LOG")" "^cgisnap: [0-9]{3} (new|changed|unchanged) [0-9]+ ms " "no URL lines"
watch_stop

finish
