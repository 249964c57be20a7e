package postgres

import (
	"maps"
	"testing"

	"github.com/jackc/pglogrepl"
	"github.com/streamdb/streamdb/pgerr"
)

// TestPositionRoundTrip encodes positions as a batch's Progress does and
// decodes them back.
func TestPositionRoundTrip(t *testing.T) {
	p := position{lsn: 0x1_0000_2000, sysid: 7312345678901234567, tables: map[uint64]tableState{
		1:       {snapshot: 0x100},
		1 << 63: {snapshot: 0x200, stalled: `column "x" of upstream table public.a was dropped`},
	}}
	resume := map[string][]byte{partLSN: encodeLSN(p.lsn), partState: p.encodeState()}
	got, err := decodePosition(resume)
	if err != nil {
		t.Fatal(err)
	}
	if got.lsn != p.lsn || got.sysid != p.sysid || !maps.Equal(got.tables, p.tables) {
		t.Fatalf("decoded %+v, want %+v", got, p)
	}
	if empty, err := decodePosition(nil); err != nil || !empty.empty() {
		t.Fatalf("no position: %+v %v", empty, err)
	}
}

// TestPositionCorrupt checks that damaged positions are refused, not read
// as a different position.
func TestPositionCorrupt(t *testing.T) {
	good := (&position{lsn: 5, sysid: 1, tables: map[uint64]tableState{9: {snapshot: pglogrepl.LSN(3), stalled: "why"}}}).encodeState()
	cases := map[string]map[string][]byte{
		"short lsn":       {partLSN: {1, 2}, partState: good},
		"lsn alone":       {partLSN: encodeLSN(5)},
		"version":         {partState: append([]byte{9}, good[1:]...)},
		"truncated":       {partState: good[:len(good)-1]},
		"trailing":        {partState: append(append([]byte(nil), good...), 0)},
		"too many tables": {partState: append(append([]byte(nil), good[:9]...), 0x7f)},
	}
	for name, resume := range cases {
		if _, err := decodePosition(resume); pgerr.CodeOf(err) != pgerr.DataCorrupted {
			t.Errorf("%s: %v", name, err)
		}
	}
}
