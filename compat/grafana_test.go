package compat

import (
	"context"
	"database/sql"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	_ "github.com/lib/pq" // database/sql driver "postgres"
)

// Grafana's PostgreSQL data source, reproduced: its health check, the
// query builder's discovery queries, and panel queries after macro
// expansion, sent through both drivers Grafana uses (lib/pq through
// database/sql, and pgx v5 behind its newer code path).

// grafanaSearchPath is the query builder's test for "schema on the
// search path", with $user replaced by the user.
const grafanaSearchPath = `quote_ident(table_schema) IN (
	SELECT CASE WHEN trim(s[i]) = '"$user"' THEN user ELSE trim(s[i]) END
	FROM generate_series(
		array_lower(string_to_array(current_setting('search_path'),','),1),
		array_upper(string_to_array(current_setting('search_path'),','),1)
	) as i, string_to_array(current_setting('search_path'),',') s)`

// grafanaMeta are the discovery queries and the rows streamdb answers.
var grafanaMeta = []struct{ query, want string }{
	{"SELECT current_setting('server_version_num')::int/100 as version", "1500"},
	{"SELECT extversion FROM pg_extension WHERE extname = 'timescaledb'", ""},
	{`SELECT schema_name AS "name" FROM information_schema.schemata
		WHERE schema_name NOT IN ('information_schema', 'pg_catalog', 'pg_toast', '_timescaledb_cache',
		'_timescaledb_catalog', '_timescaledb_internal', '_timescaledb_config', 'timescaledb_information',
		'timescaledb_experimental') ORDER BY schema_name`, "public"},
	{`SELECT quote_ident(table_name) AS "table" FROM information_schema.tables
		WHERE quote_ident(table_schema) = 'public' ORDER BY 1`, "metrics\nper_minute"},
	{`SELECT CASE WHEN ` + grafanaSearchPath + ` THEN quote_ident(table_name)
		ELSE quote_ident(table_schema) || '.' || quote_ident(table_name) END AS "table"
		FROM information_schema.tables
		WHERE quote_ident(table_schema) NOT IN ('information_schema', 'pg_catalog', '_timescaledb_cache',
		'_timescaledb_catalog', '_timescaledb_internal', '_timescaledb_config', 'timescaledb_information',
		'timescaledb_experimental')
		ORDER BY CASE WHEN ` + grafanaSearchPath + ` THEN 0 ELSE 1 END, 1`, "metrics\nper_minute"},
	{`SELECT quote_ident(column_name) AS "column", data_type AS "type" FROM information_schema.columns
		WHERE CASE WHEN array_length(parse_ident('per_minute'),1) = 2
		THEN quote_ident(table_schema) = (parse_ident('per_minute'))[1] AND quote_ident(table_name) = (parse_ident('per_minute'))[2]
		ELSE quote_ident(table_name) = 'per_minute' AND ` + grafanaSearchPath + ` END ORDER BY 1`,
		"host|text\nts|timestamp with time zone\nvalue|double precision"},
	{`SELECT quote_ident(column_name) AS "column", data_type AS "type" FROM information_schema.columns
		WHERE CASE WHEN array_length(parse_ident('public.per_minute'),1) = 2
		THEN quote_ident(table_schema) = (parse_ident('public.per_minute'))[1] AND quote_ident(table_name) = (parse_ident('public.per_minute'))[2]
		ELSE quote_ident(table_name) = 'public.per_minute' END ORDER BY 1`,
		"host|text\nts|timestamp with time zone\nvalue|double precision"},
}

// grafanaPanels are panel queries before macro expansion, with the rows
// they return over the test data (times as epoch seconds).
var grafanaPanels = []struct{ query, want string }{
	{`SELECT $__timeGroupAlias(ts, '1m'), avg(value) AS "value" FROM per_minute WHERE $__timeFilter(ts) GROUP BY 1 ORDER BY 1`,
		"1704067200|2\n1704067260|5"},
	{`SELECT $__timeGroup(ts, '5m') AS time, host AS metric, sum(value) AS value FROM metrics WHERE $__timeFilter(ts) GROUP BY 1, 2 ORDER BY 1, 2`,
		"1704067200|a|4\n1704067200|b|5"},
	{`SELECT $__time(ts), host AS metric, value FROM per_minute WHERE $__timeFilter(ts) ORDER BY 1, 2`,
		"1704067200|a|2\n1704067260|b|5"},
	{`SELECT $__timeEpoch(ts), value FROM per_minute WHERE $__timeFilter(ts) AND host = 'b'`, "1704067260|5"},
	{`SELECT $__unixEpochGroupAlias(epoch, '5m'), count(*) AS value FROM metrics WHERE $__unixEpochFilter(epoch) GROUP BY 1`,
		"1704067200|3"},
	{`SELECT host AS "__text", host AS "__value" FROM per_minute WHERE ts >= $__timeFrom() AND ts <= $__timeTo() ORDER BY 1`,
		"a|a\nb|b"},
}

var grafanaFrom = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
var grafanaTo = grafanaFrom.Add(time.Hour)

var macroRE = regexp.MustCompile(`\$(__[a-zA-Z]+)\(([^)]*)\)`)

// expandMacros expands Grafana's PostgreSQL macros for a time range the
// way the data source does before it sends a query.
func expandMacros(t *testing.T, query string, from, to time.Time) string {
	ts := func(x time.Time) string { return x.UTC().Format(time.RFC3339Nano) }
	return macroRE.ReplaceAllStringFunc(query, func(m string) string {
		g := macroRE.FindStringSubmatch(m)
		var args []string
		for _, a := range strings.Split(g[2], ",") {
			args = append(args, strings.TrimSpace(a))
		}
		interval := func() float64 {
			d, err := time.ParseDuration(strings.Trim(args[1], "'"))
			if err != nil {
				t.Fatalf("macro %s: %v", m, err)
			}
			return d.Seconds()
		}
		switch g[1] {
		case "__time":
			return args[0] + ` AS "time"`
		case "__timeEpoch":
			return "extract(epoch from " + args[0] + `) as "time"`
		case "__timeFilter":
			return fmt.Sprintf("%s BETWEEN '%s' AND '%s'", args[0], ts(from), ts(to))
		case "__timeFrom":
			return "'" + ts(from) + "'"
		case "__timeTo":
			return "'" + ts(to) + "'"
		case "__timeGroup", "__timeGroupAlias":
			s := fmt.Sprintf("floor(extract(epoch from %s)/%v)*%v", args[0], interval(), interval())
			if g[1] == "__timeGroupAlias" {
				s += ` AS "time"`
			}
			return s
		case "__unixEpochFilter":
			return fmt.Sprintf("%s >= %d AND %s <= %d", args[0], from.Unix(), args[0], to.Unix())
		case "__unixEpochGroup", "__unixEpochGroupAlias":
			s := fmt.Sprintf("floor((%s)/%v)*%v", args[0], interval(), interval())
			if g[1] == "__unixEpochGroupAlias" {
				s += ` AS "time"`
			}
			return s
		}
		t.Fatalf("unknown macro %s", m)
		return ""
	})
}

// grafanaSetup creates the data the panels read: raw metrics and a
// materialized view of per-minute averages.
var grafanaSetup = []string{
	`CREATE TABLE metrics (ts timestamptz NOT NULL, host text NOT NULL, value double precision, epoch bigint)`,
	`CREATE MATERIALIZED VIEW per_minute AS
		SELECT date_bin('1 minute', ts, '2000-01-01') AS ts, host, avg(value) AS value FROM metrics GROUP BY 1, 2`,
	`INSERT INTO metrics VALUES ('2024-01-01 00:00:10+00', 'a', 1, 1704067210), ('2024-01-01 00:00:50+00', 'a', 3, 1704067250),
		('2024-01-01 00:01:10+00', 'b', 5, 1704067270), ('2023-12-31 00:00:00+00', 'a', 100, 1703980800)`,
}

// timeColumnTypes are the result types Grafana turns into a time field:
// timestamps, and numbers it reads as epoch seconds.
var timeColumnTypes = map[string]bool{"TIMESTAMPTZ": true, "TIMESTAMP": true, "NUMERIC": true, "FLOAT8": true, "INT8": true, "INT4": true}

// valueColumnTypes are those it turns into a numeric value field.
var valueColumnTypes = map[string]bool{"NUMERIC": true, "FLOAT8": true, "FLOAT4": true, "INT8": true, "INT4": true, "INT2": true}

// result is a query's rows as "a|b" lines (times as epoch seconds,
// numbers as Go prints them) and its column names and type names.
type result struct {
	lines string
	names []string
	types []string
}

// cell renders one value the way both drivers' values compare: numbers
// in their shortest decimal form.
func cell(v any) string {
	switch x := v.(type) {
	case time.Time:
		return fmt.Sprint(x.Unix())
	case []byte:
		return cell(string(x))
	case string:
		if f, err := strconv.ParseFloat(x, 64); err == nil {
			return strconv.FormatFloat(f, 'f', -1, 64)
		}
		return x
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case pgtype.Numeric:
		f, _ := x.Float64Value()
		return strconv.FormatFloat(f.Float64, 'f', -1, 64)
	}
	return fmt.Sprint(v)
}

// grafanaDB is a connection through one of Grafana's drivers.
type grafanaDB interface {
	ping(ctx context.Context) error
	query(ctx context.Context, sql string) (result, error)
}

// libpqDB is lib/pq through database/sql, Grafana's classic path.
type libpqDB struct{ db *sql.DB }

func (d libpqDB) ping(ctx context.Context) error { return d.db.PingContext(ctx) }

func (d libpqDB) query(ctx context.Context, q string) (result, error) {
	var r result
	rows, err := d.db.QueryContext(ctx, q)
	if err != nil {
		return r, err
	}
	defer rows.Close()
	cols, err := rows.ColumnTypes()
	if err != nil {
		return r, err
	}
	for _, c := range cols {
		r.names = append(r.names, c.Name())
		r.types = append(r.types, c.DatabaseTypeName())
	}
	var lines []string
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return r, err
		}
		parts := make([]string, len(vals))
		for i, v := range vals {
			parts[i] = cell(v)
		}
		lines = append(lines, strings.Join(parts, "|"))
	}
	r.lines = strings.Join(lines, "\n")
	return r, rows.Err()
}

// pgxDB is pgx v5, Grafana's newer path.
type pgxDB struct{ conn *pgx.Conn }

func (d pgxDB) ping(ctx context.Context) error { return d.conn.Ping(ctx) }

func (d pgxDB) query(ctx context.Context, q string) (result, error) {
	var r result
	rows, err := d.conn.Query(ctx, q)
	if err != nil {
		return r, err
	}
	defer rows.Close()
	tm := d.conn.TypeMap()
	for _, f := range rows.FieldDescriptions() {
		r.names = append(r.names, f.Name)
		name := fmt.Sprint(f.DataTypeOID)
		if t, ok := tm.TypeForOID(f.DataTypeOID); ok {
			name = strings.ToUpper(t.Name)
		}
		r.types = append(r.types, name)
	}
	var lines []string
	for rows.Next() {
		vals, err := rows.Values()
		if err != nil {
			return r, err
		}
		parts := make([]string, len(vals))
		for i, v := range vals {
			parts[i] = cell(v)
		}
		lines = append(lines, strings.Join(parts, "|"))
	}
	r.lines = strings.Join(lines, "\n")
	return r, rows.Err()
}

func TestGrafana(t *testing.T) {
	srv := startServer(t, false)
	ctx := context.Background()
	setup := connect(t, srv.url("sslmode=disable"))
	mustExec(t, setup, grafanaSetup...)
	db, err := sql.Open("postgres", srv.url("sslmode=disable"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for name, gdb := range map[string]grafanaDB{"lib/pq": libpqDB{db}, "pgx": pgxDB{connect(t, srv.url("sslmode=disable"))}} {
		t.Run(name, func(t *testing.T) {
			// The data source's health check is a ping.
			if err := gdb.ping(ctx); err != nil {
				t.Fatalf("health check: %v", err)
			}
			for _, q := range grafanaMeta {
				r, err := gdb.query(ctx, q.query)
				if err != nil || r.lines != q.want {
					t.Errorf("%s:\n got %q\nwant %q (%v)", q.query, r.lines, q.want, err)
				}
			}
			for _, p := range grafanaPanels {
				query := expandMacros(t, p.query, grafanaFrom, grafanaTo)
				r, err := gdb.query(ctx, query)
				if err != nil || r.lines != p.want {
					t.Errorf("%s:\n got %q\nwant %q (%v)", query, r.lines, p.want, err)
				}
				for i, n := range r.names {
					switch {
					case n == "time" && !timeColumnTypes[r.types[i]]:
						t.Errorf("%s: time column of type %s", query, r.types[i])
					case n == "value" && !valueColumnTypes[r.types[i]]:
						t.Errorf("%s: value column of type %s", query, r.types[i])
					}
				}
			}
		})
	}
}
