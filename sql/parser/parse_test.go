package parser

import (
	"strings"
	"testing"

	"github.com/streamdb/streamdb/pgerr"
)

// Deciding that a statement is not ours is on the path of every query, so
// it must not allocate.
func TestNotOursAllocatesNothing(t *testing.T) {
	for _, sql := range []string{
		"SELECT * FROM orders WHERE id = 42",
		"SHOW search_path",
		"CREATE TABLE t (a int)",
		"CREATE DEFAULT CONVERSION c FOR 'LATIN1' TO 'UTF8' FROM f",
		"COPY (SELECT 1) TO STDOUT",
		"EXPLAIN ANALYZE SELECT 1",
		"DROP TABLE t",
	} {
		allocs := testing.AllocsPerRun(100, func() {
			if _, ok, _ := Parse(sql); ok {
				t.Fatalf("%q parsed as ours", sql)
			}
		})
		if allocs != 0 {
			t.Errorf("Parse(%q) allocates %v times", sql, allocs)
		}
	}
}

func TestCharPosition(t *testing.T) {
	text := "aé😀b"
	for _, tc := range []struct {
		pos  Pos
		want int
	}{{0, 1}, {1, 2}, {3, 3}, {7, 4}, {8, 5}, {100, 5}, {-1, 0}} {
		if got := tc.pos.CharPosition(text); got != tc.want {
			t.Errorf("Pos(%d).CharPosition = %d, want %d", tc.pos, got, tc.want)
		}
	}
}

func TestQuoteIdent(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"orders", "orders"},
		{"_x1", "_x1"},
		{"Orders", `"Orders"`},
		{"1abc", `"1abc"`},
		{"a b", `"a b"`},
		{`a"b`, `"a""b"`},
		{"a$b", `"a$b"`},
		{"é", `"é"`},
		{"", `""`},
		{"select", `"select"`},
		{"offset", `"offset"`},
		{"int", `"int"`},
		{"like", `"like"`},
		{"source", "source"},
		{"key", "key"},
	} {
		if got := QuoteIdent(tc.in); got != tc.want {
			t.Errorf("QuoteIdent(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

func TestIdentifiersAreTruncated(t *testing.T) {
	long := strings.Repeat("a", 62) + "éz"
	stmt, ok, err := Parse("DROP SOURCE " + long + `, "` + strings.Repeat("B", 70) + `"`)
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	names := stmt.(*Drop).Names
	if got, want := names[0][0].Value, strings.Repeat("a", 62); got != want {
		t.Errorf("unquoted: got %q (%d bytes), want %q", got, len(got), want)
	}
	if got, want := names[1][0].Value, strings.Repeat("B", 63); got != want {
		t.Errorf("quoted: got %q, want %q", got, want)
	}
}

// A Raw's position plus an offset inside its text is a position in the
// statement, and a piece's offset plus a position in the piece is a
// position in the query string.
func TestPositionsMapBack(t *testing.T) {
	query := "SELECT 'é';\nSUBSCRIBE (SELECT a FROM t WHERE b = 'ü' AND c = 1)"
	pieces := Split(query)
	if len(pieces) != 2 {
		t.Fatalf("got %d pieces", len(pieces))
	}
	p := pieces[1]
	stmt, ok, err := Parse(p.Text)
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	q := stmt.(*Subscribe).Query
	inQuery := strings.Index(q.Text, "c = 1")
	at := Pos(p.Offset) + q.Pos + Pos(inQuery)
	if !strings.HasPrefix(query[at:], "c = 1") {
		t.Fatalf("mapped to %q", query[at:])
	}
	want := strings.Index(query, "c = 1") - 2 + 1 // é and ü take two bytes
	if got := at.CharPosition(query); got != want {
		t.Errorf("character position %d, want %d", got, want)
	}
	// pg_query reports character positions inside the Raw text.
	inRaw := strings.Index(q.Text, "c = 1") - 1 + 1
	if got, want := q.CharPosition(p.Text, inRaw), strings.Index(p.Text, "c = 1")-1+1; got != want {
		t.Errorf("Raw.CharPosition = %d, want %d", got, want)
	}
}

func TestParseReportsPositionsInCharacters(t *testing.T) {
	_, ok, err := Parse("CREATE SOURCE \"ü\" FROM LOAD GENERATOR COUNTER (TICK INTERVAL 'é') oops")
	if !ok || err == nil {
		t.Fatal(ok, err)
	}
	if got := formatError(err); got != `error 42601 at 67: syntax error at or near "oops"` {
		t.Errorf("got %s", got)
	}
}

// TestSecretErrorsQuoteNothing checks that the errors of statements
// carrying a secret's value never quote the statement's text, which may
// be the value.
func TestSecretErrorsQuoteNothing(t *testing.T) {
	for _, q := range []string{
		"CREATE SECRET s AS 'hunter2' 'hunter3'",
		"CREATE SECRET s AS 'hunter2",
		"CREATE SECRET s AS E'hunter2\\u12'",
		"ALTER SECRET s AS 'hunter2' hunter3",
		"ALTER SECRET s AS hunter2",
	} {
		_, ok, err := Parse(q)
		if !ok || err == nil {
			t.Fatalf("%s: ok %v, err %v", q, ok, err)
		}
		if e := pgerr.As(err); strings.Contains(e.Message+e.Detail+e.Hint, "hunter") {
			t.Errorf("%s: the error quotes the value: %s", q, formatError(err))
		}
	}
}
