package planner

import (
	"testing"

	"github.com/streamdb/streamdb/sql/types"
)

// TestPickKey checks a Reduce's key function on adjacent columns (a part
// of the row itself) and on others (a buffer the function refills).
func TestPickKey(t *testing.T) {
	row := types.Row{types.NewInt4(10), types.NewInt4(11), types.NewInt4(12), types.NewInt4(13)}
	for _, cols := range [][]int{{0}, {2}, {1, 2}, {0, 1, 2, 3}, {2, 0}, {1, 3}, {3, 2}} {
		key := pickKey(cols)(row)
		if len(key) != len(cols) || cap(key) != len(cols) {
			t.Fatalf("key of %v: len %d cap %d, want %d", cols, len(key), cap(key), len(cols))
		}
		for i, c := range cols {
			if key[i].Int() != row[c].Int() {
				t.Fatalf("key of %v: column %d is %d, want %d", cols, i, key[i].Int(), row[c].Int())
			}
		}
	}
}
