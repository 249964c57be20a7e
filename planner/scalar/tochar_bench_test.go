package scalar

import (
	"testing"

	"github.com/streamdb/streamdb/types"
)

// BenchmarkToChar formats a timestamp with Nexmark q17's constant format,
// one call per iteration.
func BenchmarkToChar(b *testing.B) {
	b.ReportAllocs()
	f := toChar(false)
	args := []types.Datum{types.NewTimestamp(1_700_000_000_000_000), types.NewText("YYYY-MM-DD")}
	for b.Loop() {
		if _, err := f(nil, args); err != nil {
			b.Fatal(err)
		}
	}
}
