package planner

import (
	"bytes"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/cockroachdb/apd/v3"

	"github.com/streamdb/streamdb/dataflow"
	"github.com/streamdb/streamdb/planner/scalar"
	"github.com/streamdb/streamdb/types"
)

// sortKeyValues generates values of a column of each family that
// dataflow.SortKeyExact accepts, edge cases often: the datums of one
// column may be of any family types.Compare compares with the column's
// (int2/int4/int8, float4/float8, text/varchar/char/name).
var sortKeyValues = map[types.Family]func(*rand.Rand) types.Datum{
	types.Bool: func(r *rand.Rand) types.Datum { return types.NewBool(r.IntN(2) == 0) },
	types.Int2: randInteger, types.Int4: randInteger, types.Int8: randInteger,
	types.Float4: randFloat, types.Float8: randFloat,
	types.Numeric: func(r *rand.Rand) types.Datum {
		switch r.IntN(8) {
		case 0:
			return types.NewNumeric(&apd.Decimal{Form: apd.NaN})
		case 1:
			return types.NewNumeric(&apd.Decimal{Form: apd.Infinite, Negative: r.IntN(2) == 0})
		}
		// Small coefficients at several scales: 1, 1.0 and 10E-1 are
		// equal, and so is -0.
		return types.NewNumeric(apd.New(r.Int64N(41)-20, int32(r.IntN(5)-2)))
	},
	types.Text: randString, types.Varchar: randString, types.Char: randString, types.Name: randString,
	types.Bytea: func(r *rand.Rand) types.Datum { return types.NewBytea([]byte(randBytes(r))) },
	types.Date:  func(r *rand.Rand) types.Datum { return types.NewDate(randTime(r, 40)) },
	types.Time:  func(r *rand.Rand) types.Datum { return types.NewTime(r.Int64N(86400000001)) },
	types.Timestamp: func(r *rand.Rand) types.Datum {
		return types.NewTimestamp(randTime(r, 1e12))
	},
	types.TimestampTZ: func(r *rand.Rand) types.Datum {
		return types.NewTimestampTZ(randTime(r, 1e12))
	},
	types.Interval: func(r *rand.Rand) types.Datum {
		// Small parts, so that a month meets 30 days and a day meets
		// 24 hours.
		return types.NewInterval(types.IntervalValue{
			Months: int32(r.IntN(5) - 2),
			Days:   int32(r.IntN(61) - 30),
			Micros: (r.Int64N(5) - 2) * 12 * 3600 * 1e6,
		})
	},
	types.UUID: func(r *rand.Rand) types.Datum {
		var u [16]byte
		for i := range u {
			u[i] = byte(r.IntN(3)) * 0x7f
		}
		return types.NewUUID(u)
	},
	types.Oid: func(r *rand.Rand) types.Datum {
		return types.NewOid([]uint32{0, 1, 2, 1 << 31, math.MaxUint32}[r.IntN(5)])
	},
}

func randInteger(r *rand.Rand) types.Datum {
	v := []int64{0, 1, -1, 2, math.MaxInt16, math.MinInt16}[r.IntN(6)]
	switch r.IntN(3) {
	case 0:
		return types.NewInt2(int16(v))
	case 1:
		return types.NewInt4(int32(v))
	}
	return types.NewInt8([]int64{v, math.MaxInt64, math.MinInt64, 1 << 40}[r.IntN(4)])
}

func randFloat(r *rand.Rand) types.Datum {
	v := []float64{0, math.Copysign(0, -1), 1, -1, 0.5, math.Inf(1), math.Inf(-1), math.NaN(),
		math.Float64frombits(0x7ff8000000000001), math.SmallestNonzeroFloat64, -math.MaxFloat64}[r.IntN(11)]
	if r.IntN(2) == 0 {
		return types.NewFloat4(float32(v))
	}
	return types.NewFloat8(v)
}

func randString(r *rand.Rand) types.Datum {
	s := randBytes(r)
	switch r.IntN(4) {
	case 0:
		return types.NewString(types.Varchar, s)
	case 1:
		return types.NewString(types.Char, s+strings.Repeat(" ", r.IntN(3)))
	case 2:
		return types.NewString(types.Name, s)
	}
	return types.NewText(s)
}

// randBytes returns short strings over an alphabet with NUL, 0x01, 0xff,
// a blank and a multi-byte letter, so that prefixes, escapes and
// trailing blanks meet.
func randBytes(r *rand.Rand) string {
	alphabet := []string{"\x00", "\x01", "\xff", " ", "a", "b", "é"}
	var b strings.Builder
	for range r.IntN(4) {
		b.WriteString(alphabet[r.IntN(len(alphabet))])
	}
	return b.String()
}

func randTime(r *rand.Rand, scale int64) int64 {
	switch r.IntN(8) {
	case 0:
		return types.PosInf
	case 1:
		return types.NegInf
	}
	return (r.Int64N(5) - 2) * scale
}

// TestSortKeyMatchesComparator checks, for every family that
// dataflow.SortKeyExact accepts, that the byte order of
// dataflow.ColumnSortKey is Comparator's order on random values, in both
// directions and with NULLs first and last, with a second column to break
// ties. The planner lowers ORDER BY to a sort key only for these families.
func TestSortKeyMatchesComparator(t *testing.T) {
	for f := types.Family(0); f <= types.RegNamespace; f++ {
		gen, ok := sortKeyValues[f]
		if !dataflow.SortKeyExact(f) {
			continue
		}
		if !ok {
			t.Fatalf("family %d: SortKeyExact accepts it but the test has no values for it", f)
		}
		rng := rand.New(rand.NewPCG(uint64(f), 11))
		val := func() types.Datum {
			if rng.IntN(8) == 0 {
				return types.Null
			}
			return gen(rng)
		}
		for _, desc := range []bool{false, true} {
			for _, nullsFirst := range []bool{false, true} {
				keys := []SortKey{{Expr: &scalar.ColRef{Idx: 1}, Desc: desc, NullsFirst: nullsFirst}, {Expr: &scalar.ColRef{Idx: 0}}}
				cmp := Comparator(keys)
				key := dataflow.ColumnSortKey([]dataflow.SortColumn{{Col: 1, Desc: desc, NullsFirst: nullsFirst}, {Col: 0}})
				for range 3000 {
					a := types.Row{types.NewInt4(int32(rng.IntN(2))), val()}
					b := types.Row{types.NewInt4(int32(rng.IntN(2))), val()}
					want := sign(cmp(a, b))
					if got := bytes.Compare(key(nil, a), key(nil, b)); got != want {
						t.Fatalf("family %d desc=%v nullsFirst=%v: %v vs %v: sort key order %d, comparator %d",
							f, desc, nullsFirst, a, b, got, want)
					}
				}
			}
		}
	}
}

func sign(c int) int { return min(max(c, -1), 1) }
