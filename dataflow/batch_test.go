package dataflow

import (
	"math/rand/v2"
	"testing"

	"github.com/cockroachdb/apd/v3"

	"github.com/streamdb/streamdb/types"
)

func TestConsolidate(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"+(1)", "+(1)"},
		{"+(1) -(1)", ""},
		{"+(2) +(1) +(2)", "+(1) +2(2)"},
		{"+(b) +(a) -(b) +3(c) -3(c)", "+(a)"},
		{"+(NULL) +(1) +(-5)", "+(-5) +(1) +(NULL)"},
		{"+(1, a) +(1, NULL) +(1, a)", "+2(1, a) +(1, NULL)"},
		{"+(abcdefghij, 1) +(abcdefghij, 0) +(abcdefgh, 9)", "+(abcdefgh, 9) +(abcdefghij, 0) +(abcdefghij, 1)"},
	} {
		got := parseBatch(tc.in).Consolidate()
		var parts []string
		for _, u := range got {
			parts = append(parts, fmtUpdate(u))
		}
		if s := join(parts); s != tc.want {
			t.Errorf("Consolidate(%s) = %s, want %s", tc.in, s, tc.want)
		}
	}
}

func join(parts []string) string {
	s := ""
	for i, p := range parts {
		if i > 0 {
			s += " "
		}
		s += p
	}
	return s
}

// TestConsolidateMergesEqualRepresentations: numeric 1.0 and 1.00 are one
// row for consolidation.
func TestConsolidateMergesEqualRepresentations(t *testing.T) {
	num := func(s string) types.Row {
		d, _, err := apd.NewFromString(s)
		if err != nil {
			t.Fatal(err)
		}
		return types.Row{types.NewNumeric(d)}
	}
	b := Batch{{Row: num("1.0"), Diff: 1}, {Row: num("1.00"), Diff: -1}, {Row: num("2.5"), Diff: 1}}
	got := b.Consolidate()
	if len(got) != 1 || got[0].Row[0].Decimal().String() != "2.5" {
		t.Fatalf("got %v", got)
	}
}

// TestConsolidateRandom checks Consolidate against a map-based model.
func TestConsolidateRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for iter := 0; iter < 200; iter++ {
		var b Batch
		model := map[string]int64{}
		for i := rng.IntN(50); i > 0; i-- {
			r := types.Row{types.NewInt8(rng.Int64N(5)), types.NewText(string(rune('a' + rng.IntN(3))))}
			d := rng.Int64N(5) - 2
			b = append(b, Update{Row: r, Diff: d})
			model[fmtRow(r)] += d
		}
		got := b.Consolidate()
		for _, u := range got {
			if model[fmtRow(u.Row)] != u.Diff {
				t.Fatalf("row %s: got %d want %d", fmtRow(u.Row), u.Diff, model[fmtRow(u.Row)])
			}
			delete(model, fmtRow(u.Row))
		}
		for k, v := range model {
			if v != 0 {
				t.Fatalf("row %s missing (weight %d)", k, v)
			}
		}
		checkConsolidated(got)
	}
}

func TestConsolidateErrors(t *testing.T) {
	e1 := ErrorUpdate{Err: errDivByZero, Diff: 1}
	e2 := ErrorUpdate{Err: types2Err("22P02", "invalid input syntax for type integer: \"x\""), Diff: 2}
	e1b := ErrorUpdate{Err: types2Err("22012", "division by zero"), Diff: -1}
	got := ConsolidateErrors([]ErrorUpdate{e2, e1, e1b})
	if fmtErrors(got) != "+2 22P02 invalid input syntax for type integer: \"x\"" {
		t.Fatalf("got %s", fmtErrors(got))
	}
}

// BenchmarkConsolidate consolidates a tick's 10,000 rows: "dups" of
// 5,000 keys, "bids" distinct rows of four integers whose first column
// repeats (Nexmark bids projected by q0: hot auctions and bidders).
func BenchmarkConsolidate(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, tc := range []struct {
		name string
		row  func(i int) types.Row
	}{
		{"dups", func(int) types.Row { return types.Row{types.NewInt8(rng.Int64N(5000)), types.NewText("some text")} }},
		{"bids", func(i int) types.Row {
			return types.Row{types.NewInt8(1000 + rng.Int64N(50)), types.NewInt8(1000 + rng.Int64N(500)),
				types.NewInt8(rng.Int64N(1_000_000)), types.NewTimestamp(1_700_000_000_000_000 + int64(i)*1000)}
		}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			src := make(Batch, 10000)
			for i := range src {
				src[i] = Update{Row: tc.row(i), Diff: 1}
			}
			buf := make(Batch, len(src))
			c := new(consolidator)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				copy(buf, src)
				c.consolidate(buf)
			}
			b.ReportMetric(float64(b.N*len(src))/b.Elapsed().Seconds(), "rows/s")
		})
	}
}
