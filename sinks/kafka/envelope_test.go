package kafka

import (
	"slices"
	"testing"

	"github.com/streamdb/streamdb/sinks"
	"github.com/streamdb/streamdb/types"
)

// TestEnvelopePairs pins how a tick's changes become records, per key:
// deletions and insertions, fanned out by multiplicity and ordered by
// row, zipped into pairs, one record per pair (Materialize's rule),
// including what a KEY that is not unique (NOT ENFORCED) produces.
func TestEnvelopePairs(t *testing.T) {
	cols := []sinks.Column{{Name: "k", Type: types.TypeText}, {Name: "v", Type: types.TypeInt4}}
	r := func(k string, v int32) types.Row { return types.Row{types.NewText(k), types.NewInt4(v)} }
	ch := func(row types.Row, diff int64) sinks.Change { return sinks.Change{Row: row, Diff: diff} }
	for _, tc := range []struct {
		name       string
		env        Envelope
		key        []int
		changes    []sinks.Change
		want       []string
		violations int
	}{
		{"update is one record", EnvelopeUpsert, []int{0},
			[]sinks.Change{ch(r("a", 1), -1), ch(r("a", 2), 1)},
			[]string{`{"k":"a"} -> {"k":"a","v":2}`}, 0},
		{"keys in the order of their first change", EnvelopeUpsert, []int{0},
			[]sinks.Change{ch(r("b", 1), 1), ch(r("a", 1), -1), ch(r("b", 0), -1)},
			[]string{`{"k":"b"} -> {"k":"b","v":1}`, `{"k":"a"} -> null`}, 0},
		{"duplicate inserts under a key not enforced", EnvelopeUpsert, []int{0},
			[]sinks.Change{ch(r("a", 2), 1), ch(r("a", 1), 1)},
			[]string{`{"k":"a"} -> {"k":"a","v":1}`, `{"k":"a"} -> {"k":"a","v":2}`}, 1},
		{"two deletions, one insertion: the last record deletes", EnvelopeUpsert, []int{0},
			[]sinks.Change{ch(r("a", 1), -1), ch(r("a", 2), -1), ch(r("a", 3), 1)},
			[]string{`{"k":"a"} -> {"k":"a","v":3}`, `{"k":"a"} -> null`}, 1},
		{"multiplicity fans out", EnvelopeUpsert, []int{0},
			[]sinks.Change{ch(r("a", 1), 2)},
			[]string{`{"k":"a"} -> {"k":"a","v":1}`, `{"k":"a"} -> {"k":"a","v":1}`}, 1},
		{"debezium pairs with before and after", EnvelopeDebezium, []int{0},
			[]sinks.Change{ch(r("a", 1), -1), ch(r("a", 2), -1), ch(r("a", 3), 1)},
			[]string{`{"k":"a"} -> {"before":{"k":"a","v":1},"after":{"k":"a","v":3}}`, `{"k":"a"} -> {"before":{"k":"a","v":2},"after":null}`}, 1},
		{"debezium without key: one record per change", EnvelopeDebezium, nil,
			[]sinks.Change{ch(r("a", 1), -1), ch(r("a", 2), 2)},
			[]string{`null -> {"before":{"k":"a","v":1},"after":null}`, `null -> {"before":null,"after":{"k":"a","v":2}}`, `null -> {"before":null,"after":{"k":"a","v":2}}`}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := Config{Columns: cols, Key: tc.key, Envelope: tc.env, ValueFormat: FormatJSON, KeyFormat: FormatJSON}
			e := newEnvelope(&cfg)
			b := &recordBatch{topic: "t"}
			b.startTick(1)
			e.appendChanges(b, tc.changes)
			var got []string
			for _, rec := range b.records() {
				got = append(got, nullStr(rec.Key)+" -> "+nullStr(rec.Value))
			}
			if !slices.Equal(got, tc.want) || e.violations != tc.violations {
				t.Fatalf("got %q with %d violations,\nwant %q with %d", got, e.violations, tc.want, tc.violations)
			}
		})
	}
}

// TestTextFormat checks FORMAT TEXT: the key and value are the single
// column's text, and a NULL is a null key or value.
func TestTextFormat(t *testing.T) {
	cfg := Config{Columns: []sinks.Column{{Name: "name", Type: types.TypeText}}, Key: []int{0},
		Envelope: EnvelopeUpsert, ValueFormat: FormatText}
	if err := (&cfg).validateFormats(); err != nil {
		t.Fatal(err)
	}
	e := newEnvelope(&cfg)
	b := &recordBatch{topic: "t"}
	b.startTick(1)
	e.appendChanges(b, []sinks.Change{{Row: types.Row{types.NewText("")}, Diff: 1}, {Row: types.Row{types.NewText("x y")}, Diff: 1},
		{Row: types.Row{types.Null}, Diff: 1}})
	var got []string
	for _, rec := range b.records() {
		got = append(got, nullStr(rec.Key)+"|"+nullStr(rec.Value)+"|"+map[bool]string{true: "nil", false: "set"}[rec.Value == nil])
	}
	want := []string{"||set", "x y|x y|set", "null|null|nil"}
	if !slices.Equal(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
}
