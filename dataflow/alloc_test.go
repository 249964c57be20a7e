package dataflow

import (
	"strings"
	"testing"

	"github.com/streamdb/streamdb/types"
)

// TestRowSlabDetach checks that a row of large values leaves the slab,
// which keeps no reference to them, and that a small row stays.
func TestRowSlabDetach(t *testing.T) {
	var s RowSlab
	small := s.Row(2)
	small[0], small[1] = types.NewInt8(1), types.NewText("x")
	if got := s.Detach(small); &got[0] != &small[0] {
		t.Fatal("a small row was moved")
	}
	big := s.Row(2)
	big[0], big[1] = types.NewInt8(2), types.NewText(strings.Repeat("x", detachBytes))
	got := s.Detach(big)
	if &got[0] == &big[0] || got[1].Str() != strings.Repeat("x", detachBytes) || got[0].Int() != 2 {
		t.Fatal("a large row was not moved intact")
	}
	if !big[1].IsNull() || !big[0].IsNull() {
		t.Fatal("the slab still holds the large row's values")
	}
}
