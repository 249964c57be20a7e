package oracle

import (
	"reflect"
	"strings"
	"testing"
)

func TestScriptRoundTrip(t *testing.T) {
	for _, seed := range []int64{1, 2, 3} {
		for _, mode := range []Mode{Small, Big} {
			sc := Generate(seed, Options{Mode: mode})
			sc.Known = "bug 7: something"
			back, err := ParseScript(sc.Script())
			if err != nil {
				t.Fatalf("seed %d %s: %v", seed, mode, err)
			}
			if !reflect.DeepEqual(back, sc) {
				t.Errorf("seed %d %s: the script does not read back as the scenario:\n%s", seed, mode, sc.Script())
			}
		}
	}
}

func TestParseScript(t *testing.T) {
	text := `-- a note
-- known failure: bug 3
CREATE TABLE t (k int,
  s text);
CREATE MATERIALIZED VIEW v AS SELECT k
  FROM t WHERE s = 'a;b';
-- tick 1
BEGIN;
INSERT INTO t VALUES (1, 'x');
UPDATE t SET s = 'y';
COMMIT;
-- restart
-- tick 2
DELETE FROM t;
-- a comment inside the ticks
-- tick 3
`
	sc, err := ParseScript(text)
	if err != nil {
		t.Fatal(err)
	}
	want := &Scenario{
		Notes:  []string{"a note"},
		Known:  "bug 3",
		Tables: []string{"CREATE TABLE t (k int,\n  s text)"},
		Views:  []View{{Name: "v", Query: "SELECT k\n  FROM t WHERE s = 'a;b'"}},
		Steps: []Step{
			{Stmts: []string{"INSERT INTO t VALUES (1, 'x')", "UPDATE t SET s = 'y'"}},
			{Restart: true},
			{Stmts: []string{"DELETE FROM t"}},
			{},
		},
	}
	if !reflect.DeepEqual(sc, want) {
		t.Errorf("got %#v\nwant %#v", sc, want)
	}
}

func TestParseScriptErrors(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"INSERT INTO t VALUES (1);\n", "outside a tick"},
		{"-- tick 1\nCREATE TABLE t (k int);\n", "after the first tick"},
		{"CREATE TABLE t (k int)\n", "unterminated"},
		{"CREATE MATERIALIZED VIEW v;\n", "cannot read view"},
	} {
		if _, err := ParseScript(tc.text); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseScript(%q) = %v, want an error containing %q", tc.text, err, tc.want)
		}
	}
}

func TestSplitInsert(t *testing.T) {
	for _, tc := range []struct {
		stmt   string
		prefix string
		tuples []string
		ok     bool
	}{
		{"INSERT INTO t VALUES (1, 'a'), (2, NULL::text)", "INSERT INTO t VALUES ", []string{"(1, 'a')", "(2, NULL::text)"}, true},
		{"INSERT INTO t VALUES ((-1), 'it''s (x), y')", "INSERT INTO t VALUES ", []string{"((-1), 'it''s (x), y')"}, true},
		{"INSERT INTO t VALUES ('unterminated", "", nil, false},
		{"DELETE FROM t", "", nil, false},
	} {
		prefix, tuples, ok := splitInsert(tc.stmt)
		if ok != tc.ok || ok && (prefix != tc.prefix || !reflect.DeepEqual(tuples, tc.tuples)) {
			t.Errorf("splitInsert(%q) = %q, %q, %v", tc.stmt, prefix, tuples, ok)
		}
	}
}
