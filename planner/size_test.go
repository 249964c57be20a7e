package planner

import (
	"testing"

	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/types"
)

// TestCheckSize builds the plans of a chain of views that each read the
// one before twice: sixteen levels read 65,536 relations, one past
// PostgreSQL's limit, and are refused at once; fifteen pass.
func TestCheckSize(t *testing.T) {
	var n Node = &Get{ID: 1, Name: "t", Cols: []Column{{Name: "a", Type: types.TypeInt8}}}
	for level := 1; level <= 16; level++ {
		n = &Join{Kind: InnerJoin, Left: n, Right: n}
		err := checkSize(n)
		switch {
		case level < 16 && err != nil:
			t.Fatalf("level %d: %v", level, err)
		case level == 16 && pgerr.CodeOf(err) != pgerr.ProgramLimitExceeded:
			t.Fatalf("level 16: %v, want 54000", err)
		}
	}
	if _, err := Optimize(n); pgerr.CodeOf(err) != pgerr.ProgramLimitExceeded {
		t.Fatalf("Optimize: %v", err)
	}
}
