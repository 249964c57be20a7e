#!/usr/bin/env bash
# Issue 2's point-query comparison: pgbench -M extended -c 2 -T 8 running
# acct.sql (SELECT abalance FROM acct WHERE aid = :aid over 100,000 rows)
# against streamdb and PostgreSQL 15 on this machine in the same run.
# Target: streamdb at >= 0.5x PostgreSQL's TPS.
#
# Usage, from the repository root:   bash bench/pgbench/run.sh
#   STREAMDB=path   the binary to test (default bin/streamdb, built if missing)
#   ROUNDS=n        alternate the two servers n times (default 3) and compare
#                   the medians, so a burst of load from elsewhere on a shared
#                   machine does not decide the ratio
#   CLIENTS, DURATION, ROWS  override -c 2, -T 8 (seconds) and 100,000 rows
# Writes bench/results/pgbench.json and bench/results/pgbench.md.
#
# Both servers get the same table, loaded the same way; PostgreSQL also gets
# VACUUM ANALYZE, as pgbench -i would do. Each round runs pgbench once per
# server, streamdb first.
set -euo pipefail

cd "$(dirname "$0")/../.."
STREAMDB=${STREAMDB:-bin/streamdb}
ROUNDS=${ROUNDS:-3}
CLIENTS=${CLIENTS:-2}
SECONDS_PER_RUN=${DURATION:-8}
ROWS=${ROWS:-100000}
PGBIN=${PGBIN:-/usr/lib/postgresql/15/bin}
OUT=bench/results

for tool in "$PGBIN/initdb" "$PGBIN/postgres" "$PGBIN/pgbench" "$PGBIN/psql"; do
	[ -x "$tool" ] || { echo "missing $tool (install postgresql-15)" >&2; exit 1; }
done
[ -x "$STREAMDB" ] || make build

work=$(mktemp -d /tmp/streamdb-pgbench-XXXXXX)
sdb_pid= pg_pid=
cleanup() {
	[ -n "$sdb_pid" ] && kill "$sdb_pid" 2>/dev/null && wait "$sdb_pid" 2>/dev/null
	[ -n "$pg_pid" ] && kill -INT "$pg_pid" 2>/dev/null && while kill -0 "$pg_pid" 2>/dev/null; do sleep 0.1; done
	rm -rf "$work"
}
trap cleanup EXIT

# free_port prints a loopback port nothing listens on.
free_port() {
	local p
	while :; do
		p=$((20000 + RANDOM % 20000))
		(exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || { echo "$p"; return; }
	done
}

# PostgreSQL refuses to run as root: run it as postgres in a directory it owns.
as_owner=()
if [ "$(id -u)" = 0 ]; then
	chown postgres "$work"
	as_owner=(runuser -u postgres --)
fi

pg_port=$(free_port)
"${as_owner[@]}" "$PGBIN/initdb" -D "$work/pg" -U postgres -A trust -E UTF8 --locale=C >"$work/initdb.log" 2>&1
"${as_owner[@]}" "$PGBIN/postgres" -D "$work/pg" -p "$pg_port" -k "$work" -c listen_addresses=127.0.0.1 >"$work/pg.log" 2>&1 &
sdb_port=$(free_port)
"$STREAMDB" --listen "127.0.0.1:$sdb_port" --data-dir "$work/streamdb" --log-level warn >"$work/streamdb.log" 2>&1 &
sdb_pid=$!

sdb=(-h 127.0.0.1 -p "$sdb_port" -U streamdb streamdb)
pg=(-h 127.0.0.1 -p "$pg_port" -U postgres postgres)
for _ in $(seq 100); do
	"$PGBIN/psql" -X "${pg[@]}" -c 'SELECT 1' >/dev/null 2>&1 && "$PGBIN/psql" -X "${sdb[@]}" -c 'SELECT 1' >/dev/null 2>&1 && break
	sleep 0.1
done
pg_pid=$(head -1 "$work/pg/postmaster.pid")

load="CREATE TABLE acct (aid int PRIMARY KEY, abalance int NOT NULL);
INSERT INTO acct SELECT g, g % 1000 FROM generate_series(1, $ROWS) AS g;"
"$PGBIN/psql" -X -q -v ON_ERROR_STOP=1 "${sdb[@]}" -c "$load" >/dev/null
"$PGBIN/psql" -X -q -v ON_ERROR_STOP=1 "${pg[@]}" -c "$load" -c "VACUUM ANALYZE acct" >/dev/null
for target in sdb pg; do
	declare -n conn=$target
	n=$("$PGBIN/psql" -X -At "${conn[@]}" -c "SELECT count(*) FROM acct")
	[ "$n" = "$ROWS" ] || { echo "$target: acct has $n rows, want $ROWS" >&2; exit 1; }
done
# plan prints a server's plan for the query on one line.
plan() { "$PGBIN/psql" -X -At "$@" -c "EXPLAIN SELECT abalance FROM acct WHERE aid = 1" | paste -sd';' - | sed 's/;  */; /g'; }
sdb_plan=$(plan "${sdb[@]}")
pg_plan=$(plan "${pg[@]}")

# tps runs pgbench against one server and prints its TPS.
tps() {
	"$PGBIN/pgbench" "$@" -n -M extended -c "$CLIENTS" -j "$CLIENTS" -T "$SECONDS_PER_RUN" -f bench/pgbench/acct.sql 2>&1 |
		tee -a "$work/pgbench.log" | awk '/^tps = / { print $3 }'
}

sdb_tps=() pg_tps=()
for r in $(seq "$ROUNDS"); do
	s=$(tps "${sdb[@]}") p=$(tps "${pg[@]}")
	[ -n "$s" ] && [ -n "$p" ] || { echo "pgbench failed:" >&2; tail -20 "$work/pgbench.log" >&2; exit 1; }
	echo "round $r/$ROUNDS: streamdb $s TPS, PostgreSQL $p TPS" >&2
	sdb_tps+=("$s") pg_tps+=("$p")
done

median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
sm=$(median "${sdb_tps[@]}")
pm=$(median "${pg_tps[@]}")
ratio=$(awk -v s="$sm" -v p="$pm" 'BEGIN { printf "%.3f", s / p }')
met=$(awk -v r="$ratio" 'BEGIN { print (r >= 0.5) ? "met" : "NOT met" }')
pgver=$("$PGBIN/psql" -X -At "${pg[@]}" -c "SHOW server_version")
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
when=$(date -u '+%Y-%m-%d %H:%M UTC')
load_avg=$(cut -d' ' -f1-3 /proc/loadavg)
cpu=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)

mkdir -p "$OUT"
cat >"$OUT/pgbench.json" <<JSON
{"rows": $ROWS, "clients": $CLIENTS, "seconds": $SECONDS_PER_RUN, "rounds": $ROUNDS,
 "streamdb_tps": [$(IFS=,; echo "${sdb_tps[*]}")], "postgres_tps": [$(IFS=,; echo "${pg_tps[*]}")],
 "streamdb_tps_median": $sm, "postgres_tps_median": $pm, "ratio": $ratio, "target": 0.5, "met": $([ "$met" = met ] && echo true || echo false)}
JSON
cat >"$OUT/pgbench.md" <<MD
# Point SELECT by primary key: streamdb vs PostgreSQL $pgver

\`pgbench -n -M extended -c $CLIENTS -j $CLIENTS -T $SECONDS_PER_RUN -f bench/pgbench/acct.sql\` over $ROWS rows
(\`SELECT abalance FROM acct WHERE aid = :aid\`), $ROUNDS alternating rounds, run $when on
$(nproc) cores ($cpu), load average $load_avg at the end, streamdb commit $commit.

| | TPS per round | median |
|---|---|--:|
| streamdb | ${sdb_tps[*]} | $sm |
| PostgreSQL | ${pg_tps[*]} | $pm |

streamdb / PostgreSQL = **$ratio** (target ≥ 0.5: **$met**).

Plans: streamdb \`$sdb_plan\`; PostgreSQL \`$pg_plan\`.
MD
cat "$OUT/pgbench.md"
