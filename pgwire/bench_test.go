package pgwire

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/streamdb/streamdb/types"
)

// BenchmarkRoundTrip is one pgx query of one row over loopback: client,
// server and fake engine all in this process, so allocations include all
// three.
func BenchmarkRoundTrip(b *testing.B) {
	ts := startServer(b, Config{})
	ctx := context.Background()
	for _, mode := range []pgx.QueryExecMode{pgx.QueryExecModeCacheStatement, pgx.QueryExecModeSimpleProtocol} {
		b.Run(mode.String(), func(b *testing.B) {
			conn := connectPgx(b, ts.addr)
			var n int32
			b.ReportAllocs()
			for b.Loop() {
				if err := conn.QueryRow(ctx, "SELECT 1", mode).Scan(&n); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkStreamRows reads a 100,000-row result of four bigint columns.
func BenchmarkStreamRows(b *testing.B) {
	ts := startServer(b, Config{})
	conn := connectPgx(b, ts.addr)
	ctx := context.Background()
	const rows = 100000
	b.ReportAllocs()
	for b.Loop() {
		r, err := conn.Query(ctx, "SELECT many(100000, 4)")
		if err != nil {
			b.Fatal(err)
		}
		for r.Next() {
		}
		if err := r.Err(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(rows*b.N)/b.Elapsed().Seconds(), "rows/s")
}

// benchRow is a typical ten-column row.
func benchRow() (types.Row, []Column) {
	cols := []Column{
		{Name: "id", Type: types.TypeInt8},
		{Name: "user_id", Type: types.TypeInt4},
		{Name: "name", Type: types.TypeText},
		{Name: "active", Type: types.TypeBool},
		{Name: "score", Type: types.TypeFloat8},
		{Name: "count", Type: types.TypeInt8},
		{Name: "city", Type: types.TypeText},
		{Name: "deleted", Type: types.TypeBool},
		{Name: "note", Type: types.TypeText},
		{Name: "version", Type: types.TypeInt2},
	}
	row := types.Row{
		types.NewInt8(1234567890123),
		types.NewInt4(42),
		types.NewText("Ada Lovelace"),
		types.DTrue,
		types.NewFloat8(98.25),
		types.NewInt8(-17),
		types.NewText("London"),
		types.DFalse,
		types.Null,
		types.NewInt2(3),
	}
	return row, cols
}

// BenchmarkDataRow encodes a ten-column DataRow into a reused buffer, in
// text and binary, against pgproto3's DataRow (values collected as
// [][]byte first) as the baseline.
func BenchmarkDataRow(b *testing.B) {
	row, cols := benchRow()
	cfg := types.DefaultTextConfig()
	for _, bc := range []struct {
		name    string
		formats []int16
	}{{"text", nil}, {"binary", []int16{formatBinary}}} {
		b.Run(bc.name, func(b *testing.B) {
			buf := make([]byte, 0, 4096)
			b.ReportAllocs()
			for b.Loop() {
				buf = appendDataRow(buf[:0], row, cols, bc.formats, cfg)
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "rows/s")
		})
	}
	b.Run("pgproto3-text", func(b *testing.B) {
		buf := make([]byte, 0, 4096)
		var vals [][]byte
		b.ReportAllocs()
		for b.Loop() {
			vals = vals[:0]
			for i, d := range row {
				if d.IsNull() {
					vals = append(vals, nil)
					continue
				}
				vals = append(vals, types.AppendText(nil, d, cols[i].Type, cfg))
			}
			var err error
			if buf, err = (&pgproto3.DataRow{Values: vals}).Encode(buf[:0]); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "rows/s")
	})
}
