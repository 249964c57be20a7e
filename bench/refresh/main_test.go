package main

import (
	"strings"
	"testing"
	"time"
)

// TestChangesKeepTotals checks that a round's three changes return the
// view's totals to where they started, and that each change moves them by
// what its statement does.
func TestChangesKeepTotals(t *testing.T) {
	cfg := config{Rows: 100, Groups: 10, Change: 5}
	cs := changes(cfg, 1)
	if len(cs) != 3 {
		t.Fatalf("%d changes, want 3", len(cs))
	}
	ins, upd, del := cs[0], cs[1], cs[2]
	// Round 1 inserts ids 106..110.
	if !strings.HasPrefix(ins.sql, "INSERT INTO r VALUES (106,6,106),(107,7,107)") || ins.dRows != 5 || ins.dSum != 106+107+108+109+110 {
		t.Fatalf("insert = %+v", ins)
	}
	if upd.sql != "UPDATE r SET v = v + 1 WHERE id BETWEEN 106 AND 110" || upd.dRows != 0 || upd.dSum != 5 {
		t.Fatalf("update = %+v", upd)
	}
	if ins.dRows+upd.dRows+del.dRows != 0 || ins.dSum+upd.dSum+del.dSum != 0 {
		t.Fatalf("a round does not restore the totals: %+v", cs)
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
