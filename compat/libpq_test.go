package compat

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/lib/pq"
)

// TestLibPQ drives lib/pq through database/sql with its default
// sslmode (require) against a server with a self-signed certificate, as
// make run starts it.
func TestLibPQ(t *testing.T) {
	srv := startServer(t, true)
	db, err := sql.Open("postgres", srv.url(""))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	for _, s := range append(append([]string{}, schema...), allTypes, allTypesInsert) {
		if _, err := db.ExecContext(ctx, s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	if _, err := db.ExecContext(ctx, "INSERT INTO orders (id, customer, amount, placed) VALUES ($1, $2, $3, $4), ($5, $6, $7, $8)",
		1, "ada", "12.50", time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC), 2, "ada", 7.25, nil); err != nil {
		t.Fatal(err)
	}
	var total string
	var n int64
	if err := db.QueryRowContext(ctx, "SELECT total, n FROM spend WHERE customer = $1", "ada").Scan(&total, &n); err != nil || total != "19.75" || n != 2 {
		t.Errorf("spend: %s %d %v", total, n, err)
	}

	// lib/pq reads every value as text (it asks for no binary results).
	rows, err := db.QueryContext(ctx, "SELECT * FROM all_types")
	if err != nil {
		t.Fatal(err)
	}
	cols, _ := rows.Columns()
	vals := make([]sql.RawBytes, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		parts := make([]string, len(vals))
		for i, v := range vals {
			parts[i] = string(v)
		}
		// lib/pq decodes booleans, bytea and date/time values itself;
		// everything else arrives as PostgreSQL prints it.
		got := strings.Join(parts, "|")
		want := "true|2|4|8|1.5|2.25|1234.567|text|varchar|ch |\xde\xad\xbe\xef|2024-02-29T00:00:00Z|0000-01-01T12:34:56.789Z|" +
			"2024-02-29T12:34:56.789Z|2024-02-29T12:34:56.789Z|1 year 2 mons 3 days 04:05:06|a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11|" +
			`{"a": 1}|{"b": [1, 2]}|42|{1,2,3}|{x,"y z"}`
		if got != want {
			t.Errorf("all types:\n got %s\nwant %s", got, want)
		}
	}
	rows.Close()

	var pqErr *pq.Error
	_, err = db.ExecContext(ctx, "INSERT INTO orders (id, customer) VALUES (1, 'dup')")
	if !errors.As(err, &pqErr) || pqErr.Code != "23505" {
		t.Errorf("duplicate key: %v", err)
	}
	_, err = db.ExecContext(ctx, "SELECT * FROM nope")
	if !errors.As(err, &pqErr) || pqErr.Code != "42P01" {
		t.Errorf("missing table: %v", err)
	}

	// Cancel: lib/pq sends a CancelRequest when the context ends.
	cctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err = db.ExecContext(cctx, slowQuery)
	if err == nil {
		t.Fatal("slow query was not cancelled")
	}
	if !errors.As(err, &pqErr) || pqErr.Code != "57014" {
		t.Logf("cancelled query returned %v", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("cancel took %v", d)
	}
	if err := db.PingContext(ctx); err != nil {
		t.Errorf("ping after cancel: %v", err)
	}
}
