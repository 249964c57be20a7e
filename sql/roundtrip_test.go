package sql_test

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/streamdb/streamdb/internal/pgtest"
	"github.com/streamdb/streamdb/internal/testserver"
)

var update = flag.Bool("update", false, "regenerate golden files from a real PostgreSQL 15")

type roundtripCase struct{ typ, literal string }

func readRoundtripCases(t *testing.T) []roundtripCase {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "roundtrip.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cases []roundtripCase
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "" {
			continue
		}
		typ, lit, ok := strings.Cut(line, " | ")
		if !ok {
			typ, lit = strings.TrimSuffix(line, " |"), ""
		}
		cases = append(cases, roundtripCase{typ: typ, literal: lit})
	}
	return cases
}

// roundtrip inserts every case and reads it back in text (simple
// protocol) and in binary (extended protocol, decoded by pgx), rendering
// one line per case.
func roundtrip(t *testing.T, url string, cases []roundtripCase) string {
	ctx := context.Background()
	conn := testserver.Connect(t, url)
	var out strings.Builder
	for i, c := range cases {
		table := fmt.Sprintf("rt%d", i)
		if _, err := conn.Exec(ctx, fmt.Sprintf("CREATE TABLE %s (v %s)", table, c.typ)); err != nil {
			t.Fatalf("%s: %v", c.typ, err)
		}
		if _, err := conn.Exec(ctx, fmt.Sprintf("INSERT INTO %s VALUES ($1)", table), c.literal); err != nil {
			fmt.Fprintf(&out, "%s | %s | insert error %v\n", c.typ, c.literal, err)
			continue
		}
		var text string
		err := conn.QueryRow(ctx, "SELECT v FROM "+table, pgx.QueryExecModeSimpleProtocol).Scan(&text)
		if err != nil {
			t.Fatalf("%s text: %v", c.typ, err)
		}
		rows, err := conn.Query(ctx, "SELECT v FROM "+table, pgx.QueryResultFormats{pgx.BinaryFormatCode})
		if err != nil {
			t.Fatalf("%s binary: %v", c.typ, err)
		}
		var bin any
		for rows.Next() {
			vals, err := rows.Values()
			if err != nil {
				t.Fatalf("%s binary decode: %v", c.typ, err)
			}
			bin = vals[0]
		}
		if err := rows.Err(); err != nil {
			t.Fatalf("%s binary: %v", c.typ, err)
		}
		fmt.Fprintf(&out, "%s | %s | text %s | binary %#v\n", c.typ, c.literal, text, bin)
		if _, err := conn.Exec(ctx, "DROP TABLE "+table); err != nil {
			t.Fatal(err)
		}
	}
	return out.String()
}

// TestTypeRoundTrip checks every supported type's text and binary output
// over the wire against what PostgreSQL 15 returns for the same values.
func TestTypeRoundTrip(t *testing.T) {
	cases := readRoundtripCases(t)
	golden := filepath.Join("testdata", "roundtrip.golden")
	if *update {
		pg := pgtest.Start(t)
		if err := os.WriteFile(golden, []byte(roundtrip(t, pg.URL, cases)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -run TestTypeRoundTrip -update with PostgreSQL 15 installed)", err)
	}
	srv := testserver.Start(t, testserver.Options{})
	got := roundtrip(t, srv.URL, cases)
	if got != string(want) {
		gl, wl := strings.Split(got, "\n"), strings.Split(string(want), "\n")
		for i := range max(len(gl), len(wl)) {
			var g, w string
			if i < len(gl) {
				g = gl[i]
			}
			if i < len(wl) {
				w = wl[i]
			}
			if g != w {
				t.Errorf("got:  %s\nwant: %s", g, w)
			}
		}
	}
}
