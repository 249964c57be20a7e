#!/bin/sh
# Regenerates golden/*.txt from a real PostgreSQL 15 server. Each file in
# cases/ lists "type<TAB>input" lines (COPY text format: write a backslash
# as \\) and "#settings Name=value|Name=value" lines; every case runs once
# under each settings line. The output lines are
#
#	settings<TAB>type<TAB>input<TAB>text output<TAB>send() bytes in hex
#	settings<TAB>type<TAB>input<TAB>ERROR<TAB>sqlstate: message
#
# in COPY text format. Point the usual libpq variables at the server:
#
#	PGHOST=127.0.0.1 PGPORT=5432 PGUSER=postgres sh gen_golden.sh
set -eu
cd "$(dirname "$0")"
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
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
