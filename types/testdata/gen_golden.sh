#!/bin/sh
# Regenerates golden/*.txt from a real PostgreSQL 15 server. Each file in
# cases/ lists "type<TAB>input" lines (COPY text format: write a backslash
# as \\) and "#settings Name=value|Name=value" lines; every case runs once
# under each settings line. The output lines are
#
#	settings<TAB>type<TAB>input<TAB>text output<TAB>send() bytes in hex
#	settings<TAB>type<TAB>input<TAB>ERROR<TAB>sqlstate: message
#
# in COPY text format. Point the usual libpq variables at a server:
#
#	PGHOST=127.0.0.1 PGPORT=5432 PGUSER=postgres sh gen_golden.sh
#
# or set none of them to have the script run a throw-away PostgreSQL 15
# cluster from /usr/lib/postgresql/15/bin (as user postgres when run by
# root) on 127.0.0.1 for the duration of the run.
set -eu
cd "$(dirname "$0")"
tmp=$(mktemp)
cluster=
cleanup() {
	rm -f "$tmp"
	if [ -n "$cluster" ]; then
		$asuser /usr/lib/postgresql/15/bin/pg_ctl -D "$cluster/data" -m fast stop >/dev/null 2>&1 || true
		rm -rf "$cluster"
	fi
}
trap cleanup EXIT
if [ -z "${PGHOST:-}" ]; then
	cluster=$(mktemp -d)
	asuser=
	if [ "$(id -u)" = 0 ]; then
		chown postgres "$cluster"
		asuser="runuser -u postgres --"
	fi
	PGPORT=$((20000 + $$ % 20000))
	$asuser /usr/lib/postgresql/15/bin/initdb -D "$cluster/data" -A trust -U postgres --encoding=UTF8 --locale=C >/dev/null
	$asuser /usr/lib/postgresql/15/bin/pg_ctl -D "$cluster/data" -w -l "$cluster/log" \
		-o "-p $PGPORT -k $cluster -c listen_addresses=127.0.0.1" start >/dev/null
	export PGHOST=127.0.0.1 PGPORT PGUSER=postgres
fi
for cases in cases/*.txt; do
	group=$(basename "$cases" .txt)
	out=golden/$group.txt
	: >"$out"
	grep -v '^#' "$cases" | grep -v '^$' >"$tmp" || true
	chmod a+r "$tmp"
	grep '^#settings ' "$cases" | sed 's/^#settings //' | while IFS= read -r settings; do
		sets=$(echo "$settings" | tr '|' '\n' | sed "s/^\([^=]*\)=\(.*\)$/SET \1 = '\2';/")
		psql -X -q -v ON_ERROR_STOP=1 -At >>"$out" <<SQL
\\i probe.sql
$sets
CREATE TEMP TABLE cases (n serial, typ text, val text);
\\copy cases (typ, val) from '$tmp'
\\copy (SELECT '$settings', typ, val, split_part(r, E'\t', 1), split_part(r, E'\t', 2) FROM (SELECT n, typ, val, pg_temp.probe(typ, val) AS r FROM cases) s ORDER BY n) TO STDOUT
SQL
	done
done
psql -X -q -v ON_ERROR_STOP=1 -At -f jsonb_pairs.sql >jsonb_pairs.golden
psql -X -q -v ON_ERROR_STOP=1 -At -f order.sql >order.golden
# Casts: "from<TAB>to<TAB>input" cases, run with TimeZone America/New_York.
grep -v '^#' cases_cast.txt >"$tmp"
psql -X -q -v ON_ERROR_STOP=1 -At >casts.golden <<SQL
\\i probe.sql
SET TimeZone = 'America/New_York';
CREATE TEMP TABLE cases (n serial, src text, dst text, val text);
\\copy cases (src, dst, val) from '$tmp'
\\copy (SELECT src, dst, val, split_part(r, E'\t', 1), split_part(r, E'\t', 2) FROM (SELECT n, src, dst, val, pg_temp.cast_probe(src, dst, val) AS r FROM cases) s ORDER BY n) TO STDOUT
SQL
