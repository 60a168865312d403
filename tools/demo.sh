#!/usr/bin/env bash
# tools/demo.sh - 'make demo': seed a sample site, snapshot it, replay an
# access log against both (verify), measure the dynamic site against its
# snapshot, then serve the snapshot until Ctrl-C.
#
# DEMO_SITE=wiki (default) or blog; DEMO_PORT=8080; DEMO_DIR=/tmp/cgisnap-demo
# (the seeded site and its snapshot are kept there for a look afterwards);
# DEMO_SECONDS=10 per side of the benchmark.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
CGISNAP=$ROOT/cgisnap
SITE_KIND=${DEMO_SITE:-wiki}
PORT=${DEMO_PORT:-8080}
DIR=${DEMO_DIR:-${TMPDIR:-/tmp}/cgisnap-demo}
SECONDS_EACH=${DEMO_SECONDS:-10}
URL=http://127.0.0.1:$PORT

say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
# show ARGS...: the command about to run, quoted so it can be pasted.
show() { printf '$'; printf ' %q' "$@"; printf '\n'; }

if (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; then
	echo "demo: 127.0.0.1:$PORT is already in use; try DEMO_PORT=8081 make demo" >&2
	exit 2
fi

SITE=$DIR/$SITE_KIND
TREE=$DIR/$SITE_KIND-snapshot
rm -rf "$SITE" "$TREE"
mkdir -p "$SITE"
cp -r "$ROOT/sample-sites/$SITE_KIND/." "$SITE/"

case "$SITE_KIND" in
wiki)
	say "seeding the sample wiki (300 pages) in $SITE"
	rm -rf "$SITE/data"
	php "$SITE/bin/seed.php" --pages 300 --dir "$SITE"
	ORIGIN=(--root "$SITE" --cgi php=php-cgi --site-url "$URL/")
	# The wiki marks fresh pages robots noindex, as DokuWiki does.
	SNAP=(--strip '<img src="[^"]*taskrunner\.php[^>]*>' --robots-meta ignore --not-found '/doku.php?id=demo:missing')
	;;
blog)
	say "seeding the sample blog (200 posts) in $SITE"
	# The blog writes absolute links: they must name where the demo serves it.
	php "$SITE/bin/seed.php" --posts 200 --site-url "$URL" --dir "$SITE"
	ORIGIN=(--root "$SITE" --cgi php=php-cgi --front-controller /index.php --site-url "$URL/")
	SNAP=()
	;;
*)
	echo "demo: DEMO_SITE is 'wiki' or 'blog', not '$SITE_KIND'" >&2
	exit 2
	;;
esac

say "cgisnap snapshot: rendering every page through php-cgi into $TREE"
show cgisnap snapshot "${ORIGIN[@]}" "${SNAP[@]}" "$TREE"
"$CGISNAP" snapshot "${ORIGIN[@]}" "${SNAP[@]}" "$TREE" || true

say "cgisnap verify: an access log replayed against the site and its snapshot"
# A log as the site might have it: its pages, the first ones most read, and
# a visitor's link with a tracking parameter.
LOG=$DIR/$SITE_KIND-access.log
"$CGISNAP" ls "$TREE" | awk -F'\t' '!/^#/ && $3 == 200 && $4 ~ /html/ { print $1 }' | head -40 |
	awk '{ for (i = 0; i < 41 - NR; i++)
		printf "192.0.2.%d - - [01/Dec/2026:10:00:00 +0000] \"GET %s HTTP/1.1\" 200 1 \"-\" \"Mozilla/5.0\"\n", i % 250, $1 }
	     END { printf "192.0.2.7 - - [01/Dec/2026:10:00:00 +0000] \"GET /?utm_source=newsletter HTTP/1.1\" 200 1 \"-\" \"Mozilla/5.0\"\n" }' >"$LOG"
show cgisnap verify "${ORIGIN[@]}" "${SNAP[@]}" "$TREE" "$LOG"
"$CGISNAP" verify "${ORIGIN[@]}" "${SNAP[@]}" "$TREE" "$LOG" || true

say "cgisnap bench: the dynamic site against its snapshot, ${SECONDS_EACH} s each"
show cgisnap bench "${ORIGIN[@]}" --tree "$TREE" -k -c 10 -d "$SECONDS_EACH"
"$CGISNAP" bench "${ORIGIN[@]}" --tree "$TREE" -k -c 10 -d "$SECONDS_EACH" || true

say "cgisnap serve: the snapshot at $URL/  (Ctrl-C stops it)"
show cgisnap serve --listen "127.0.0.1:$PORT" --access-log - "$TREE"
echo "Open $URL/ in a browser, or: curl -s $URL/ | head"
echo "The site and its snapshot stay in $DIR."
exec "$CGISNAP" serve --listen "127.0.0.1:$PORT" --access-log - "$TREE"
