//go:build cgo

package oracle

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestGeneratedSQLIsValid runs generated scenarios on PostgreSQL alone:
// every table, change and view query must run there without error, and
// every query twice in a row must return the same rows. An error is a
// generator bug (a query PostgreSQL rejects, or one whose evaluation can
// fail, such as a scalar subquery returning two rows), and so is a
// result that varies (an order the generator failed to make total shows
// up as LIMIT choosing differently after a plan change, which this test
// cannot provoke, but a volatile expression would).
func TestGeneratedSQLIsValid(t *testing.T) {
	if testing.Short() {
		t.Skip("needs PostgreSQL; skipped with -short")
	}
	url := postgresURL(t)
	if url == "" {
		t.Skip("PostgreSQL is not available")
	}
	ctx := context.Background()
	for seed := int64(1); seed <= 8; seed++ {
		sc := Generate(seed, Options{Mode: Big, Statements: 30})
		c, err := dial(ctx, url, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		schema := fmt.Sprintf("valid_%d", seed)
		mustRun(t, c, "DROP SCHEMA IF EXISTS "+schema+" CASCADE")
		for _, s := range []string{"CREATE SCHEMA " + schema, "SET search_path TO " + schema, "SET statement_timeout = '" + postgresTimeout + "'"} {
			mustRun(t, c, s)
		}
		for _, tab := range sc.Tables {
			mustRun(t, c, tab)
		}
		for _, st := range sc.Steps {
			if msg, _, err := runTx(ctx, c, st.Stmts); err != nil || msg != "" {
				t.Fatalf("seed %d: %v %s", seed, err, msg)
			}
		}
		for _, v := range sc.Views {
			a, err := c.run(ctx, v.Query)
			if err != nil {
				t.Fatal(err)
			}
			if a.code == "57014" || a.code == "0A000" && strings.HasPrefix(a.msg, "FULL JOIN is only supported with merge-joinable") {
				continue // too slow for PostgreSQL, or a join it cannot run: not the generator's fault
			}
			if a.failed() {
				t.Errorf("seed %d view %s: %s %s\n%s", seed, v.Name, a.code, a.msg, v.Query)
				continue
			}
			b, err := c.run(ctx, v.Query)
			if err != nil {
				t.Fatal(err)
			}
			if d := diff(a, b, "first run", "second run", false); d != "" && b.code != "57014" {
				t.Errorf("seed %d view %s: %s\n%s", seed, v.Name, d, v.Query)
			}
		}
		mustRun(t, c, "DROP SCHEMA "+schema+" CASCADE")
		c.close()
	}
}

func mustRun(t *testing.T, c *conn, sql string) {
	t.Helper()
	res, err := c.run(context.Background(), sql)
	if err != nil {
		t.Fatal(err)
	}
	if res.failed() {
		t.Fatalf("%s: %s %s", sql, res.code, res.msg)
	}
}
