package dataflow

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/cockroachdb/apd/v3"
	"github.com/streamdb/streamdb/types"
)

// TestKeyDetermines checks keyDetermines against the key encoding: a
// value it accepts decodes from its key with its type and text intact,
// and each value it refuses loses something in the key.
func TestKeyDetermines(t *testing.T) {
	big, _, _ := apd.NewFromString("123456789012345678901234567890.5")
	for _, tc := range []struct {
		d    types.Datum
		want bool
		// lossy marks the refused values whose key loses something;
		// the others are refused only to keep keyDetermines simple.
		lossy bool
	}{
		{types.Null, true, false},
		{types.NewBool(true), true, false},
		{types.NewInt2(-7), true, false},
		{types.NewInt4(math.MinInt32), true, false},
		{types.NewInt8(math.MaxInt64), true, false},
		{types.NewOid(42), true, false},
		{types.NewDate(-3), true, false},
		{types.NewTime(86_399_999_999), true, false},
		{types.NewTimestamp(1_700_000_000_000_000), true, false},
		{types.NewTimestampTZ(-1), true, false},
		{types.NewText("with\x00nul"), true, false},
		{types.NewString(types.Varchar, "v"), true, false},
		{types.NewString(types.Name, "n"), true, false},
		{types.NewBytea([]byte{0, 1, 0xff}), true, false},
		{types.NewString(types.JSON, `{"b": 1.50, "a": 2}`), true, false},
		{types.NewUUID([16]byte{1, 2, 3}), true, false},
		{types.NewNumericCoef(111684, -3), true, false}, // 111.684
		{types.NewNumericCoef(-5, -1), true, false},     // -0.5
		{types.NewNumericCoef(15, 9), true, false},      // 15000000000
		{types.NewNumericCoef(0, 0), true, false},
		{types.NewNumericCoef(908000, -3), false, true}, // 908.000
		{types.NewNumericCoef(0, -2), false, true},      // 0.00
		{types.NewNumeric(big), false, false},
		{types.NewFloat8(1.5), false, false},
		{types.NewString(types.Char, "a  "), false, true},
		{types.NewString(types.JSONB, `{"a": 1.50}`), false, true},
		{types.NewInterval(types.IntervalValue{Days: 40}), false, true},
	} {
		row := types.Row{types.NewInt8(1), tc.d}
		if got := keyDetermines(row); got != tc.want {
			t.Errorf("keyDetermines(%s %v) = %v, want %v", tc.d.Kind(), tc.d, got, tc.want)
		}
		dec, err := decodeKeyRow(types.AppendKeyRow(nil, row), nil)
		if err != nil {
			t.Fatalf("%v: %v", tc.d, err)
		}
		same := len(dec) == len(row) && dec[1].Kind() == tc.d.Kind() && dec[1].String() == tc.d.String()
		if tc.want && !same {
			t.Errorf("%s %v decodes from its key as %s %v", tc.d.Kind(), tc.d, dec[1].Kind(), dec[1])
		}
		if tc.lossy && same {
			t.Errorf("%s %v decodes from its key intact", tc.d.Kind(), tc.d)
		}
	}
}

// TestRestoreOutputRows restores an Output whose rows are persisted with
// and without their stored form, through changes of a row present in
// another form than the change's: 1.0 needs its stored form, 1 does not.
func TestRestoreOutputRows(t *testing.T) {
	kv := newMemState()
	build := func() (*Graph, *Input, *Output) {
		g := NewGraph()
		in := g.Input()
		out := g.Output(in.Node())
		g.Persist(kv)
		return g, in, out
	}
	g, in, out := build()
	one := func(coef int64, exp int32) types.Row {
		return types.Row{types.NewText("a"), types.NewNumericCoef(coef, exp)}
	}
	for _, b := range []Batch{
		{{Row: one(10, -1), Diff: 1}, {Row: one(15, -1), Diff: 2}, {Row: types.Row{types.NewText("b"), types.Null}, Diff: 1}},
		{{Row: one(1, 0), Diff: 1}, {Row: one(15, -1), Diff: -1}},
		{{Row: one(1, 0), Diff: -1}},
		{{Row: one(1, 0), Diff: -1}, {Row: one(1, 0), Diff: 1}},
	} {
		in.Push(b)
		if err := g.Step(context.Background()); err != nil {
			t.Fatal(err)
		}
		restored, _, rout := build()
		if err := restored.Restore(context.Background(), kv); err != nil {
			t.Fatal(err)
		}
		if got, want := rowsText(snapshotBatch(t, rout.Snapshot())), rowsText(snapshotBatch(t, out.Snapshot())); got != want {
			t.Fatalf("restored output\n%s\nwant\n%s", got, want)
		}
	}
}

// rowsText renders rows as they are held, each column's text and type:
// numeric 1.0 and 1 differ.
func rowsText(b Batch) string {
	var s strings.Builder
	for _, u := range b {
		fmt.Fprintf(&s, "%+d", u.Diff)
		for _, d := range u.Row {
			fmt.Fprintf(&s, " %s:%s", d.Kind(), d.String())
		}
		s.WriteByte('\n')
	}
	return s.String()
}
