package kafka

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/streamdb/streamdb/sources"
	"github.com/streamdb/streamdb/types"
)

// benchRecord is a small JSON record of the kind an event topic carries.
func benchRecord(i int) []byte {
	return fmt.Appendf(nil, `{"id": %d, "user": "user-%d", "amount": %d.%02d, "ts": "2024-01-%02dT10:%02d:00Z", "tags": ["a", "b"], "ok": true}`,
		i, i%1000, i%10000, i%100, i%28+1, i%60)
}

var benchColumns = []sources.Column{
	col("id", types.TypeInt8), col("user", types.TypeText), col("amount", types.TypeNumeric),
	col("ts", types.TypeTimestampTZ), col("tags", types.TypeJSONB), col("ok", types.TypeBool),
}

// benchEvent is what the encoding/json baselines decode into.
type benchEvent struct {
	ID     int64    `json:"id"`
	User   string   `json:"user"`
	Amount float64  `json:"amount"`
	TS     string   `json:"ts"`
	Tags   []string `json:"tags"`
	OK     bool     `json:"ok"`
}

// BenchmarkDecode measures each format's decoder on pre-built records,
// beside encoding/json and types baselines for the JSON ones.
func BenchmarkDecode(b *testing.B) {
	const n = 1024
	records := make([][]byte, n)
	for i := range records {
		records[i] = benchRecord(i)
	}
	csvRecords := make([][]byte, n)
	for i := range csvRecords {
		csvRecords[i] = fmt.Appendf(nil, "%d,user-%d,%d.%02d,2024-01-%02d 10:00:00", i, i%1000, i%10000, i%100, i%28+1)
	}
	debeziumRecords := make([][]byte, n)
	for i := range debeziumRecords {
		debeziumRecords[i] = fmt.Appendf(nil, `{"before": null, "after": %s, "op": "c", "source": {"db": "shop", "table": "events", "lsn": %d}, "ts_ms": 1700000000000}`, records[i], i)
	}
	csvDec, _, err := valueDecoder(Format{Kind: FormatCSV, CSVColumns: 4},
		[]sources.Column{col("id", types.TypeInt8), col("user", types.TypeText), col("amount", types.TypeNumeric), col("ts", types.TypeTimestampTZ)})
	if err != nil {
		b.Fatal(err)
	}

	run := func(name string, recs [][]byte, width int, decode func(row []types.Datum, rec []byte) error) {
		b.Run(name, func(b *testing.B) {
			row := make(types.Row, width)
			bytes := 0
			for _, r := range recs {
				bytes += len(r)
			}
			b.SetBytes(int64(bytes / len(recs)))
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				if err := decode(row, recs[i%len(recs)]); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "records/s")
		})
	}

	jsonb := &jsonbDecoder{}
	run("json/jsonb", records, 1, jsonb.decode)
	run("json/jsonb-types.CanonicalJSONB", records, 1, func(row []types.Datum, rec []byte) error {
		s, err := types.CanonicalJSONB(string(rec))
		row[0] = types.NewString(types.JSONB, s)
		return err
	})
	typed := newJSONColumnsDecoder(benchColumns)
	run("json/columns", records, len(benchColumns), typed.decode)
	run("json/columns-slow-path", records, len(benchColumns), func(row []types.Datum, rec []byte) error {
		return typed.slow(row, string(rec))
	})
	run("json/encoding-json-map", records, 1, func(_ []types.Datum, rec []byte) error {
		var m map[string]any
		return json.Unmarshal(rec, &m)
	})
	run("json/encoding-json-struct", records, 1, func(_ []types.Datum, rec []byte) error {
		var e benchEvent
		return json.Unmarshal(rec, &e)
	})
	run("text", records, 1, textDecoder{typ: types.TypeText}.decode)
	run("bytes", records, 1, bytesDecoder{}.decode)
	run("csv", csvRecords, 4, csvDec.decode)
	dbz := &debeziumDecoder{inner: newJSONColumnsDecoder(benchColumns)}
	run("debezium", debeziumRecords, len(benchColumns), func(row []types.Datum, rec []byte) error {
		_, err := dbz.decode(row, rec)
		return err
	})
}
