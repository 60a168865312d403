#!/usr/bin/env bash
# t0566-watch-batch-order: the edited page first. An edit re-renders the
# page that reads the file and the pages that list it (an index, a feed);
# the batch renders the quickest first (as last rendered: the index that
# reads every page is the slow one), and a --render-alone page (a feed,
# quick or not) after all the others, since it holds up every render
# while it runs. With -j 1 the renders run in the batch's order.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-watch.sh"

watch_test_dirs site
mkdir -p "$SITE/data"
for n in 1 2 3; do echo "text of page $n" >"$SITE/data/$n.txt"; done
cat >"$SITE/page.cgi" <<'SH'
#!/bin/sh
printf 'Content-Type: text/html\n\n<p>'
cat "data/${QUERY_STRING#p=}.txt"
SH
# The index reads every page, slowly, and links them and the feed.
cat >"$SITE/index.cgi" <<'SH'
#!/bin/sh
printf 'Content-Type: text/html\n\n'
sleep 0.3
for f in data/*.txt; do n=${f#data/}; n=${n%.txt}; printf '<a href="/page.cgi?p=%s">' "$n"; cat "$f"; printf '</a>\n'; done
printf '<a href="/feed.cgi">feed</a>\n'
SH
cat >"$SITE/feed.cgi" <<'SH'
#!/bin/sh
printf 'Content-Type: application/rss+xml\n\n<rss version="2.0"><channel><title>'
cat data/*.txt
printf '</title></channel></rss>\n'
SH
chmod +x "$SITE"/*.cgi
re() { printf '%s' "$1" | sed 's/[][?.*+()|{}^$\\]/\\&/g'; }

try "watch -v -j 1 comes up"
watch_start "$LOG" --root "$SITE" --seed /index.cgi --render-alone '^/feed\.cgi$' -j 1 -v \
	--source "$SITE/data" "$OUT"
check_eq 0 $? "watch came up ($(tail -3 "$LOG"))"

try "an edit: the page first, the slow index next, the feed that renders alone last"
n=$(batches "$LOG")
lines=$(grep -c '' "$LOG")
echo "text of page 2, edited" >"$SITE/data/2.txt"
wait_batches "$LOG" $((n + 1))
check_eq 0 $? "a batch ran"
since=$(tail -n "+$((lines + 1))" "$LOG")
check_eq "$(printf '%s\n' /feed.cgi /index.cgi /page.cgi?p=2)" \
	"$(printf '%s\n' "$since" | sed -n 's/^cgisnap: re-render \([^:]*\): .*/\1/p' | LC_ALL=C sort)" \
	"the pages re-rendered"
check_eq "$(printf '%s\n' /page.cgi?p=2 /index.cgi /feed.cgi)" \
	"$(printf '%s\n' "$since" | sed -nE 's/^cgisnap: 200 [a-z]+ [0-9]+ ms [0-9]+ bytes (.*)$/\1/p')" \
	"the renders' order"
check_match "$(cat "$OUT/page.cgi@p=2.html" 2>&1)" "edited" "the page published"

watch_stop_ok
finish
