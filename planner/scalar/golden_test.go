package scalar

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/types"
)

// The golden tests evaluate the expressions in testdata/exprs/*.sql and
// compare with what PostgreSQL 15 printed for SELECT (expr)::text, stored
// in the matching .golden file. Regenerate them against a real server with
//
//	go test ./planner/scalar -run TestGolden -pg 'postgres://postgres@127.0.0.1:5432/postgres'
//
// A line "SET TimeZone = 'zone'" in a .sql file changes the session time
// zone for the lines after it, on both sides.
var pgURL = flag.String("pg", "", "regenerate golden files from this PostgreSQL 15 server")

type goldenCase struct {
	expr   string
	result string // "=> text", "=q quoted text", "=0" for NULL, "=! CODE message"
}

func readCases(t *testing.T, path string) []string {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "--") {
			continue
		}
		out = append(out, line)
	}
	return out
}

func formatResult(s string, null bool) string {
	if null {
		return "=0"
	}
	if strconv.Quote(s) != `"`+s+`"` || strings.TrimSpace(s) != s {
		return "=q " + strconv.Quote(s)
	}
	return "=> " + s
}

func formatError(code, msg string) string { return "=! " + code + " " + msg }

func setDirective(line string) (zone string, ok bool) {
	const prefix = "SET TimeZone = '"
	if !strings.HasPrefix(line, prefix) {
		return "", false
	}
	return strings.TrimSuffix(strings.TrimPrefix(line, prefix), "'"), true
}

func generateGolden(t *testing.T, sqlPath string, cases []string) {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, *pgURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "SET TimeZone = 'UTC'; SET extra_float_digits = 1"); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, c := range cases {
		b.WriteString(c + "\n")
		if _, ok := setDirective(c); ok {
			if _, err := conn.Exec(ctx, c); err != nil {
				t.Fatal(err)
			}
			continue
		}
		var s *string
		err := conn.QueryRow(ctx, "SELECT ("+c+")::text").Scan(&s)
		var pe *pgconn.PgError
		switch {
		case errors.As(err, &pe):
			b.WriteString(formatError(pe.Code, pe.Message))
		case err != nil:
			t.Fatalf("%s: %v", c, err)
		case s == nil:
			b.WriteString(formatResult("", true))
		default:
			b.WriteString(formatResult(*s, false))
		}
		b.WriteString("\n\n")
	}
	golden := strings.TrimSuffix(sqlPath, ".sql") + ".golden"
	if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readGolden(t *testing.T, path string) []goldenCase {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []goldenCase
	lines := strings.Split(string(data), "\n")
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if l == "" {
			continue
		}
		if _, ok := setDirective(l); ok {
			out = append(out, goldenCase{expr: l})
			continue
		}
		out = append(out, goldenCase{expr: l, result: lines[i+1]})
		i++
	}
	return out
}

// goldenEval binds and evaluates one expression and prints the outcome in
// the golden format.
func goldenEval(ctx *EvalContext, expr string) (res string) {
	defer func() {
		if r := recover(); r != nil {
			res = fmt.Sprintf("PANIC %v", r)
		}
	}()
	var d types.Datum
	e, err := parseExpr(expr)
	if err == nil {
		d, err = Eval(ctx, Fold(e, ctx), nil)
		if err == nil && !d.IsNull() {
			d, err = castDatum(d, e.Type(), types.TypeText, ctx.textConfig())
		}
	}
	if err != nil {
		if pe := pgerr.As(err); pe != nil {
			return formatError(string(pe.Code), pe.Message)
		}
		return "=! ????? " + err.Error()
	}
	return formatResult(d.Str(), d.IsNull())
}

func TestGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/exprs/*.sql")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".sql")
		t.Run(name, func(t *testing.T) {
			if *pgURL != "" {
				generateGolden(t, f, readCases(t, f))
			}
			cfg := types.DefaultTextConfig()
			bindConfig = cfg
			ctx := &EvalContext{Text: cfg, TxnTime: time.Date(2024, 3, 10, 12, 0, 0, 0, time.UTC)}
			fails := 0
			for _, c := range readGolden(t, strings.TrimSuffix(f, ".sql")+".golden") {
				if zone, ok := setDirective(c.expr); ok {
					loc, err := time.LoadLocation(zone)
					if err != nil {
						t.Fatal(err)
					}
					cfg = types.DefaultTextConfig()
					cfg.Location = loc
					ctx = &EvalContext{Text: cfg, TxnTime: ctx.TxnTime}
					bindConfig = cfg
					continue
				}
				got := goldenEval(ctx, c.expr)
				if got != c.result {
					fails++
					t.Errorf("%s\n  got:  %s\n  want: %s", c.expr, got, c.result)
				}
			}
			if fails > 0 {
				t.Logf("%d failures", fails)
			}
		})
	}
}
