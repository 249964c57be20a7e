package kafka

import (
	"testing"

	"github.com/streamdb/streamdb/types"
)

var timestampSeeds = []string{
	"2024-01-02T03:04:05Z", "2024-01-02 03:04:05", "2024-02-29T23:59:59.999999+05:30", "2023-02-29T00:00:00",
	"0001-01-01T00:00:00Z", "9999-12-31 23:59:59.5-15", "1969-12-31T23:59:59.000001-00:30", "2024-01-02T24:00:00",
	"2024-01-02T03:04:60", "2024-01-02T03:04:05.1234567Z", "2024-01-02T03:04:05+16", "2024-01-02T03:04:05+0530",
	"2024-1-02T03:04:05", "2024-01-02t03:04:05", "2000-01-01T00:00:00z", "1900-03-01 12:00:00.",
}

func TestISOTimestampMatchesParseText(t *testing.T) {
	for _, s := range timestampSeeds {
		checkISOTimestamp(t, s)
	}
}

// FuzzTimestampFastPath checks the RFC 3339 fast path against
// types.ParseText wherever it accepts the input.
func FuzzTimestampFastPath(f *testing.F) {
	for _, s := range timestampSeeds {
		f.Add(s)
	}
	f.Fuzz(checkISOTimestamp)
}

func checkISOTimestamp(t *testing.T, s string) {
	for _, typ := range []types.Type{types.TypeTimestamp, types.TypeTimestampTZ} {
		fast, ok := parseISOTimestamp(s, typ.Family == types.TimestampTZ)
		if !ok {
			continue
		}
		slow, err := types.ParseText(s, typ, nil)
		if err != nil || types.Compare(fast, slow) != 0 || fast.Kind() != slow.Kind() {
			t.Fatalf("%s %q: fast %s, ParseText %s (%v)", typ, s, types.FormatText(fast, typ, nil), types.FormatText(slow, typ, nil), err)
		}
	}
}
