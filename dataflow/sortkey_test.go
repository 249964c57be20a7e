package dataflow

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/streamdb/streamdb/types"
)

// TestColumnSortKey checks that the byte order of ColumnSortKey agrees
// with a comparator written out by hand, for every placement of NULLs and
// direction.
func TestColumnSortKey(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	val := func() types.Datum {
		switch rng.IntN(4) {
		case 0:
			return types.Null
		case 1:
			return types.NewText(string(rune('a' + rng.IntN(4))))
		}
		return types.NewInt8(rng.Int64N(7) - 3)
	}
	for _, desc := range []bool{false, true} {
		for _, nullsFirst := range []bool{false, true} {
			cols := []SortColumn{{Col: 1, Desc: desc, NullsFirst: nullsFirst}, {Col: 0}}
			key := ColumnSortKey(cols)
			compare := func(a, b types.Row) int {
				x, y := a[1], b[1]
				if x.IsNull() || y.IsNull() {
					if c := boolInt(x.IsNull()) - boolInt(y.IsNull()); c != 0 {
						if nullsFirst {
							return -c
						}
						return c
					}
				} else if c := types.Compare(x, y); c != 0 {
					if desc {
						return -c
					}
					return c
				}
				return types.Compare(a[0], b[0])
			}
			sign := func(c int) int { return min(max(c, -1), 1) }
			for i := 0; i < 2000; i++ {
				// Same family per column, as in a typed relation.
				a := types.Row{types.NewInt8(rng.Int64N(3)), val()}
				b := types.Row{types.NewInt8(rng.Int64N(3)), val()}
				if a[1].Kind() != b[1].Kind() && !a[1].IsNull() && !b[1].IsNull() {
					continue
				}
				got := bytes.Compare(key(nil, a), key(nil, b))
				if want := sign(compare(a, b)); got != want {
					t.Fatalf("desc=%v nullsFirst=%v: %s vs %s: key order %d, want %d", desc, nullsFirst, fmtRow(a), fmtRow(b), got, want)
				}
			}
		}
	}
}
