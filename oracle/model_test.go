package oracle

import (
	"strings"
	"testing"
)

func TestCondHolds(t *testing.T) {
	v := func(i int64) value { return value{i: i} }
	for _, tc := range []struct {
		c    cond
		row  []value
		want bool
	}{
		{cond{op: "=", vals: []value{v(1)}}, []value{v(1)}, true},
		{cond{op: "=", vals: []value{v(1)}}, []value{null}, false},
		{cond{op: "<>", vals: []value{v(1)}}, []value{null}, false},
		{cond{op: "<", vals: []value{v(2)}}, []value{v(1)}, true},
		{cond{op: ">=", vals: []value{v(2)}}, []value{v(1)}, false},
		{cond{op: "IS NULL"}, []value{null}, true},
		{cond{op: "IS NOT NULL"}, []value{null}, false},
		{cond{op: "IN", vals: []value{v(1), null}}, []value{v(1)}, true},
		// x IN (2, NULL) is NULL for x = 1: the row is not matched.
		{cond{op: "IN", vals: []value{v(2), null}}, []value{v(1)}, false},
		{cond{op: "=", vals: []value{{s: "b"}}}, []value{{s: "b"}}, true},
		{cond{op: "<", vals: []value{{s: "b"}}}, []value{{s: "B"}}, true},
	} {
		if got := tc.c.holds(tInt, tc.row); got != tc.want {
			t.Errorf("%+v on %+v = %v, want %v", tc.c, tc.row, got, tc.want)
		}
	}
}

func TestLiteral(t *testing.T) {
	for _, tc := range []struct {
		v    value
		t    typ
		want string
	}{
		{value{i: -3}, tInt, "(-3)"},
		{value{i: 7}, tBigint, "7::bigint"},
		{value{i: 150, scale: 2}, tNumeric, "1.50"},
		{value{i: 150, scale: 1}, tNumeric, "1.5"},
		{value{i: -200}, tNumeric, "(-2)::numeric"},
		{value{i: -5, scale: 2}, tNumeric, "(-0.05)"},
		{value{s: "it's"}, tText, "'it''s'"},
		{value{i: 1}, tBool, "true"},
		{value{i: 9}, tDate, "DATE '2024-01-10'"},
		{value{i: 86400 + 1800}, tTimestamp, "TIMESTAMP '2024-01-02 00:30:00'"},
		{null, tDate, "NULL::date"},
	} {
		if got := tc.v.literal(tc.t); got != tc.want {
			t.Errorf("literal(%+v, %s) = %s, want %s", tc.v, tc.t.name(), got, tc.want)
		}
	}
}

// TestKeyUpdates checks that the model refuses updates that would clash
// with the primary key at any point of the statement.
func TestKeyUpdates(t *testing.T) {
	tab := &Table{Name: "t", Cols: []Column{{"k", tInt}, {"a", tInt}}, PK: []int{0}}
	ts := &tableState{t: tab, rows: [][]value{{{i: 1}, {i: 10}}, {{i: 2}, {i: 20}}}}
	shift := []assign{{col: 0, op: "+", v: value{i: 1}}}
	if ts.update(shift, nil) {
		t.Error("k = k + 1 over keys 1 and 2 passes through a duplicate, yet was accepted")
	}
	if !ts.update([]assign{{col: 0, op: "+", v: value{i: 10}}}, nil) {
		t.Error("k = k + 10 over keys 1 and 2 was refused")
	}
	if got := ts.rows[0][0].i + ts.rows[1][0].i; got != 23 {
		t.Errorf("keys sum to %d after k = k + 10, want 23", got)
	}
	if ts.update([]assign{{col: 0, op: "=", v: null}}, []cond{{col: 0, op: "=", vals: []value{{i: 11}}}}) {
		t.Error("a NULL key was accepted")
	}
}

// TestChangesKeepKeys runs the change generator long enough to delete,
// refill and re-key tables, checking that the model never holds a
// duplicate key and that the statements it writes are well formed.
func TestChangesKeepKeys(t *testing.T) {
	r := newRng(42, 0)
	tables := genSchema(r)
	ch := newChanger(r, tables, 4)
	kinds := map[string]int{}
	for range 2000 {
		s := ch.next()
		kinds[strings.Fields(s)[0]]++
		for _, ts := range ch.tables {
			if len(ts.t.PK) == 0 {
				continue
			}
			seen := map[string]bool{}
			for _, row := range ts.rows {
				k := ts.keyOf(row)
				if seen[k] {
					t.Fatalf("%s holds key %q twice after %s", ts.t.Name, k, s)
				}
				seen[k] = true
			}
		}
	}
	for _, k := range []string{"INSERT", "UPDATE", "DELETE"} {
		if kinds[k] < 100 {
			t.Errorf("only %d %s statements in 2000", kinds[k], k)
		}
	}
}
