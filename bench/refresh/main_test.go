package main

import (
	"strings"
	"testing"
	"time"
)

// TestChangesKeepTotals checks that a round's insert, update and delete
// return the view's totals to where they started, and that each change
// moves them by what its statement does.
func TestChangesKeepTotals(t *testing.T) {
	cfg := config{Rows: 100, Groups: 10, Change: 5}
	cs := changes(cfg, 1)
	if len(cs) != len(changeKinds) {
		t.Fatalf("%d changes, want %d", len(cs), len(changeKinds))
	}
	ins, upd, del, sel, one := cs[0], cs[1], cs[2], cs[3], cs[4]
	// Round 1 inserts ids 111..115, then 116..120 by INSERT … SELECT.
	if !strings.HasPrefix(ins.sql, "INSERT INTO r VALUES (111,1,111),(112,2,112)") || ins.dRows != 5 || ins.dSum != 111+112+113+114+115 {
		t.Fatalf("insert = %+v", ins)
	}
	if upd.sql != "UPDATE r SET v = v + 1 WHERE id BETWEEN 111 AND 115" || upd.dRows != 0 || upd.dSum != 5 {
		t.Fatalf("update = %+v", upd)
	}
	if ins.dRows+upd.dRows+del.dRows != 0 || ins.dSum+upd.dSum+del.dSum != 0 {
		t.Fatalf("insert, update and delete do not restore the totals: %+v", cs)
	}
	if sel.sql != "INSERT INTO r SELECT g, g % 10, g FROM generate_series(116, 120) AS g" || sel.dRows != 5 || sel.dSum != 116+117+118+119+120 {
		t.Fatalf("insert-select = %+v", sel)
	}
	if one.sql != "INSERT INTO r VALUES (-2, 0, 1)" || one.dRows != 1 || one.dSum != 1 {
		t.Fatalf("insert-1row = %+v", one)
	}
}

func TestMedian(t *testing.T) {
	if got := median([]time.Duration{3, 1, 2}); got != 2 {
		t.Fatalf("median = %v, want 2", got)
	}
	if got := median(nil); got != 0 {
		t.Fatalf("median(nil) = %v", got)
	}
}
