package loadgen

import (
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/streamdb/streamdb/pgerr"
)

func TestNewKinds(t *testing.T) {
	for _, name := range []string{"counter", "COUNTER", "Auction", "tpch", "NexMark"} {
		src, err := New(name, Options{})
		if err != nil {
			t.Fatalf("New(%q): %v", name, err)
		}
		want, err := Tables(name)
		if err != nil {
			t.Fatalf("Tables(%q): %v", name, err)
		}
		if !reflect.DeepEqual(src.Outputs(), want) {
			t.Errorf("%s: Outputs() differs from Tables()", name)
		}
	}
}

func TestNewErrors(t *testing.T) {
	for _, tc := range []struct {
		kind string
		opts Options
		code pgerr.Code
		msg  string
	}{
		{"KEY VALUE", Options{}, pgerr.FeatureNotSupported, `load generator "KEY VALUE" is not supported`},
		{"", Options{}, pgerr.FeatureNotSupported, `load generator "" is not supported`},
		{"COUNTER", Options{TickInterval: -time.Second}, pgerr.InvalidParameterValue, "TICK INTERVAL must not be negative"},
		{"COUNTER", Options{MaxCardinality: -1}, pgerr.InvalidParameterValue, "MAX CARDINALITY must not be negative"},
		{"AUCTION", Options{MaxCardinality: 5}, pgerr.InvalidParameterValue, "MAX CARDINALITY is only valid for COUNTER"},
		{"TPCH", Options{ScaleFactor: -1}, pgerr.InvalidParameterValue, "SCALE FACTOR must be between 0 and 100000"},
		{"TPCH", Options{ScaleFactor: math.NaN()}, pgerr.InvalidParameterValue, "SCALE FACTOR must be between 0 and 100000"},
		{"TPCH", Options{ScaleFactor: math.Inf(1)}, pgerr.InvalidParameterValue, "SCALE FACTOR must be between 0 and 100000"},
		{"NEXMARK", Options{ScaleFactor: 1}, pgerr.InvalidParameterValue, "SCALE FACTOR is only valid for TPCH"},
		{"NEXMARK", Options{EventsPerSecond: -1}, pgerr.InvalidParameterValue, "EVENTS PER SECOND must be a finite number not less than 0"},
		{"NEXMARK", Options{EventsPerSecond: math.Inf(1)}, pgerr.InvalidParameterValue, "EVENTS PER SECOND must be a finite number not less than 0"},
		{"COUNTER", Options{EventsPerSecond: 10}, pgerr.InvalidParameterValue, "EVENTS PER SECOND is only valid for NEXMARK"},
		{"NEXMARK", Options{MaxEvents: -1}, pgerr.InvalidParameterValue, "MAX EVENTS must not be negative"},
		{"TPCH", Options{MaxEvents: 10}, pgerr.InvalidParameterValue, "MAX EVENTS is not valid for TPCH"},
	} {
		t.Run(fmt.Sprintf("%s/%s", tc.kind, tc.msg), func(t *testing.T) {
			_, err := New(tc.kind, tc.opts)
			if err == nil {
				t.Fatal("New succeeded")
			}
			if pgerr.CodeOf(err) != tc.code || err.Error() != tc.msg {
				t.Fatalf("got %s %q, want %s %q", pgerr.CodeOf(err), err, tc.code, tc.msg)
			}
		})
	}
	if _, err := Tables("nope"); pgerr.CodeOf(err) != pgerr.FeatureNotSupported {
		t.Errorf("Tables(nope) = %v, want 0A000", err)
	}
}

// TestSchemas pins the outputs of every kind in testdata/schemas.golden.
func TestSchemas(t *testing.T) {
	var b strings.Builder
	for _, k := range []string{"COUNTER", "AUCTION", "TPCH", "NEXMARK"} {
		outs, err := Tables(k)
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range outs {
			fmt.Fprintf(&b, "%s %s\n", k, o.Name)
			if len(o.Key) != 0 {
				t.Errorf("%s.%s is an upsert output; load generators append", k, o.Name)
			}
			for _, c := range o.Columns {
				fmt.Fprintf(&b, "  %s %s", c.Name, c.Type)
				if c.NotNull {
					b.WriteString(" NOT NULL")
				}
				b.WriteByte('\n')
			}
		}
	}
	checkGolden(t, "schemas.golden", b.String())
}

func TestPosition(t *testing.T) {
	for _, n := range []int64{0, 1, 255, 1 << 40, math.MaxInt64} {
		p := EncodePosition(n)
		if len(p) != 8 {
			t.Fatalf("EncodePosition(%d) has %d bytes", n, len(p))
		}
		got, err := decodePosition(map[string][]byte{Partition: p})
		if err != nil || got != n {
			t.Fatalf("decode(encode(%d)) = %d, %v", n, got, err)
		}
	}
	if got, err := decodePosition(nil); got != 0 || err != nil {
		t.Fatalf("decodePosition(nil) = %d, %v", got, err)
	}
	for _, bad := range [][]byte{{}, {1, 2, 3}, make([]byte, 9), {0x80, 0, 0, 0, 0, 0, 0, 0}} {
		_, err := decodePosition(map[string][]byte{Partition: bad})
		if pgerr.CodeOf(err) != pgerr.DataCorrupted {
			t.Errorf("decodePosition(%x) = %v, want XX001", bad, err)
		}
	}
}

func FuzzDecodePosition(f *testing.F) {
	f.Add(EncodePosition(42))
	f.Add([]byte{})
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, p []byte) {
		n, err := decodePosition(map[string][]byte{Partition: p})
		if err != nil {
			return
		}
		if n < 0 || string(EncodePosition(n)) != string(p) {
			t.Fatalf("decoded %x as %d, which encodes differently", p, n)
		}
	})
}
