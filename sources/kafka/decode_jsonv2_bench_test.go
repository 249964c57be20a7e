//go:build goexperiment.jsonv2

package kafka

import (
	"bytes"
	"encoding/json/jsontext"
	jsonv2 "encoding/json/v2"
	"io"
	"testing"
)

// BenchmarkDecodeJSONv2 measures the encoding/json/v2 decoders (Go's
// jsonv2 experiment) on BenchmarkDecode's records, the other candidates
// for the JSON fast path:
//
//	GOEXPERIMENT=jsonv2 go test -run '^$' -bench 'Decode(JSONv2)?/json' ./sources/kafka
func BenchmarkDecodeJSONv2(b *testing.B) {
	const n = 1024
	records := make([][]byte, n)
	for i := range records {
		records[i] = benchRecord(i)
	}
	b.Run("json/v2-struct", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			var e benchEvent
			if err := jsonv2.Unmarshal(records[i%n], &e); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "records/s")
	})
	// A token stream is what a typed-column decoder would build on.
	b.Run("json/jsontext-tokens", func(b *testing.B) {
		b.ReportAllocs()
		var d jsontext.Decoder
		var r bytes.Reader
		for i := 0; b.Loop(); i++ {
			r.Reset(records[i%n])
			d.Reset(&r)
			for {
				if _, err := d.ReadToken(); err == io.EOF {
					break
				} else if err != nil {
					b.Fatal(err)
				}
			}
		}
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "records/s")
	})
}
