package engine

import (
	"bytes"
	"strings"
	"testing"

	"github.com/streamdb/streamdb/dataflow"
	"github.com/streamdb/streamdb/sinks"
	"github.com/streamdb/streamdb/types"
)

// TestSinkHistoryChunks checks that a tick's changes survive the
// history's encoding: split into chunks of about sinkChunkBytes, each
// decoded on its own, they give back every row and weight in order.
func TestSinkHistoryChunks(t *testing.T) {
	long := strings.Repeat("x", 1000)
	for _, tc := range []struct {
		name   string
		rows   int
		chunks int
	}{
		{"empty", 0, 0},
		{"one row", 1, 1},
		{"several chunks", 3 * sinkChunkBytes / len(long), 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var in dataflow.Batch
			for i := range tc.rows {
				diff := int64(1)
				if i%3 == 0 {
					diff = -2
				}
				row := types.Row{types.NewInt8(int64(i)), types.NewText(long), types.Null}
				in = append(in, dataflow.Update{Row: row, Diff: diff})
			}
			chunks := encodeChanges(in)
			if len(chunks) < tc.chunks || len(chunks) > tc.chunks+1 {
				t.Fatalf("%d rows in %d chunks, want about %d", tc.rows, len(chunks), tc.chunks)
			}
			var out []sinks.Change
			for _, c := range chunks {
				if len(c) > sinkChunkBytes+len(long)+16 {
					t.Errorf("a chunk of %d bytes, past %d and a row", len(c), sinkChunkBytes)
				}
				var err error
				if out, err = decodeChanges(out, c); err != nil {
					t.Fatal(err)
				}
			}
			if len(out) != len(in) {
				t.Fatalf("decoded %d changes, want %d", len(out), len(in))
			}
			for i, c := range out {
				if c.Diff != in[i].Diff || types.CompareRows(c.Row, in[i].Row) != 0 {
					t.Fatalf("change %d: %v %+d, want %v %+d", i, c.Row, c.Diff, in[i].Row, in[i].Diff)
				}
			}
		})
	}
}

// TestSinkHistoryCorrupt checks that a damaged chunk is an error, never
// a shorter or different tick.
func TestSinkHistoryCorrupt(t *testing.T) {
	chunk := encodeChanges(dataflow.Batch{{Row: types.Row{types.NewText("abc")}, Diff: 1}})[0]
	for name, v := range map[string][]byte{
		"truncated row":    chunk[:len(chunk)-1],
		"length past end":  append(chunk[:1:1], 0x7f),
		"unended weight":   {0x80},
		"row of bad bytes": append(bytes.Clone(chunk[:1]), 2, 0xff, 0xff),
	} {
		if _, err := decodeChanges(nil, v); err == nil {
			t.Errorf("%s: decoded without an error", name)
		}
	}
}
