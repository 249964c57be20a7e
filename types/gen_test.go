package types

import (
	"math"
	"math/rand/v2"
	"strings"

	"github.com/cockroachdb/apd/v3"
)

// keyFamilies are the families randomDatum can produce.
var keyFamilies = []Family{Bool, Int2, Int4, Int8, Oid, Float4, Float8, Numeric, Text, Varchar,
	Char, Name, Bytea, Date, Time, Timestamp, TimestampTZ, Interval, UUID, JSON, JSONB, Array, Record}

// randomDatum returns a value of family f drawn to hit edge cases often:
// NULL, zeros, extremes, NaN and infinities, equal values with different
// representations.
func randomDatum(rng *rand.Rand, f Family) Datum {
	if rng.IntN(12) == 0 {
		return Null
	}
	pick := func(vs ...int64) int64 {
		if rng.IntN(2) == 0 {
			return vs[rng.IntN(len(vs))]
		}
		return rng.Int64N(2001) - 1000
	}
	switch f {
	case Bool:
		return NewBool(rng.IntN(2) == 0)
	case Int2:
		return NewInt2(int16(pick(math.MinInt16, math.MaxInt16, 0, -1, 1, 255, 256)))
	case Int4:
		return NewInt4(int32(pick(math.MinInt32, math.MaxInt32, 0, -1, 1, 1<<24)))
	case Int8:
		return NewInt8(pick(math.MinInt64, math.MaxInt64, 0, -1, 1, 1<<40, -(1 << 40)))
	case Oid:
		return NewOid(uint32(pick(0, 1, math.MaxUint32, 1<<31)))
	case Float4:
		return NewFloat4(float32(randomFloat(rng)))
	case Float8:
		return NewFloat8(randomFloat(rng))
	case Numeric:
		d := randomDecimal(rng)
		if rng.IntN(2) == 0 {
			// Either form: inline whenever the value fits.
			return numericDatum(d)
		}
		return NewNumeric(d)
	case Text, Varchar, Name, Bytea, JSON:
		return NewString(f, randomString(rng))
	case Char:
		return NewString(f, randomString(rng)+strings.Repeat(" ", rng.IntN(3)))
	case Date:
		return NewDate(pick(PosInf, NegInf, 0, -2440588, 2932896, -719528, 2147483493-unixEpochJDate))
	case Time:
		return NewTime(rng.Int64N(86400000001))
	case Timestamp, TimestampTZ:
		return Datum{head: head{kind: f}, i: pick(PosInf, NegInf, 0, minTimestamp, PosInf-1, 1)}
	case Interval:
		return NewInterval(IntervalValue{Months: int32(pick(0, 1, -1, 12, math.MaxInt32, math.MinInt32)),
			Days: int32(pick(0, 30, -30, 1, math.MaxInt32)), Micros: pick(0, 86400000000, -86400000000, math.MaxInt64, math.MinInt64+1)})
	case UUID:
		var u [16]byte
		for i := range u {
			u[i] = byte(rng.IntN(3)) * 127
		}
		return NewUUID(u)
	case JSONB:
		s, err := CanonicalJSONB(randomJSON(rng, 0))
		if err != nil {
			panic(err)
		}
		return NewString(JSONB, s)
	case Array:
		ef := []Family{Int4, Text, Numeric}[rng.IntN(3)]
		a := &ArrayValue{Elem: Type{Family: ef, Mod: -1}}
		for n := rng.IntN(4); n > 0; n-- {
			a.Elems = append(a.Elems, randomDatum(rng, ef))
		}
		if rng.IntN(3) == 0 {
			// A multidimensional array, often of few elements so
			// that shapes alone tell arrays apart.
			shape := [][]int32{{1, 1}, {2, 1}, {1, 2}, {2, 2}, {1, 1, 1}, {2, 1, 2}}[rng.IntN(6)]
			n := int32(1)
			for _, d := range shape {
				n *= d
			}
			a.Elems = a.Elems[:0]
			for range n {
				a.Elems = append(a.Elems, randomDatum(rng, ef))
			}
			a.Dims = shape
		}
		return NewArray(a)
	case Record:
		var typs []Type
		var fields []Datum
		for n := rng.IntN(3); n > 0; n-- {
			ff := []Family{Int4, Text, Array}[rng.IntN(3)]
			typs = append(typs, Type{Family: ff, Mod: -1})
			fields = append(fields, randomDatum(rng, ff))
		}
		for i, t := range typs {
			if t.Family == Array {
				typs[i] = ArrayOf(TypeInt4)
				if !fields[i].IsNull() {
					typs[i] = ArrayOf(fields[i].Array().Elem)
				}
			}
		}
		return NewRecord(InternRecord("", AnonymousFieldNames(len(typs)), typs), fields)
	}
	return Null
}

func randomFloat(rng *rand.Rand) float64 {
	switch rng.IntN(8) {
	case 0:
		return []float64{math.NaN(), math.Inf(1), math.Inf(-1), 0, math.Copysign(0, -1), math.MaxFloat64,
			-math.MaxFloat64, math.SmallestNonzeroFloat64, 1e-310}[rng.IntN(9)]
	case 1:
		return float64(rng.IntN(5) - 2)
	}
	return rng.NormFloat64() * math.Pow(10, float64(rng.IntN(40)-20))
}

func randomDecimal(rng *rand.Rand) *apd.Decimal {
	specials := []string{"NaN", "Infinity", "-Infinity", "0", "0.000", "-0", "1", "1.0", "1.00", "-1.0",
		"100", "1e2", "0.001", "12345678901234567890.123456789", "-99.5", "99.50",
		"9223372036854775807", "-9223372036854775808", "9223372036854775808", "-922337203685477580.9"}
	var s string
	if rng.IntN(3) == 0 {
		s = specials[rng.IntN(len(specials))]
	} else {
		d := apd.New(rng.Int64N(200001)-100000, int32(rng.IntN(12)-6))
		s = d.Text('f')
	}
	d, _, err := apd.NewFromString(s)
	if err != nil {
		panic(err)
	}
	if err := normalizeNumeric(d); err != nil {
		panic(err)
	}
	return d
}

func randomString(rng *rand.Rand) string {
	alphabet := []string{"", "a", "b", "ab", "\x00", "\xff", " ", "é", "z", "\x01"}
	var b strings.Builder
	for n := rng.IntN(5); n > 0; n-- {
		b.WriteString(alphabet[rng.IntN(len(alphabet))])
	}
	return b.String()
}

func randomJSON(rng *rand.Rand, depth int) string {
	k := rng.IntN(8)
	if depth > 2 && k >= 6 {
		k = rng.IntN(6)
	}
	switch k {
	case 0:
		return "null"
	case 1:
		return []string{"true", "false"}[rng.IntN(2)]
	case 2:
		return []string{"0", "1", "1.0", "-1", "1e2", "100", "2.50", "-0.001"}[rng.IntN(8)]
	case 3, 4:
		return string(AppendJSONString(nil, strings.ReplaceAll(randomString(rng), "\x00", "")))
	case 5:
		return `"a"`
	case 6:
		var parts []string
		for n := rng.IntN(3); n > 0; n-- {
			parts = append(parts, randomJSON(rng, depth+1))
		}
		return "[" + strings.Join(parts, ",") + "]"
	}
	var parts []string
	for n := rng.IntN(3); n > 0; n-- {
		parts = append(parts, `"`+[]string{"a", "b", "aa", ""}[rng.IntN(4)]+`":`+randomJSON(rng, depth+1))
	}
	return "{" + strings.Join(parts, ",") + "}"
}
