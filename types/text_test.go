package types

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestTextRoundTrip prints random values and reads them back: the result
// must compare equal to the original (and be identical for types whose
// text form is exact).
func TestTextRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	cfgs := []*TextConfig{DefaultTextConfig(), {Location: mustLoad(t, "America/New_York"), DateStyle: DateStyleSQL,
		DateOrder: DateOrderDMY, IntervalStyle: IntervalStyleSQLStandard, ExtraFloatDigits: 3, ByteaEscape: true},
		// Not Postgres style here: like PostgreSQL, we read IST as Israel
		// time, so Kolkata's abbreviated output does not read back.
		{Location: mustLoad(t, "Asia/Kolkata"), IntervalStyle: IntervalStyleISO8601, ExtraFloatDigits: 1},
		{Location: mustLoad(t, "America/New_York"), DateStyle: DateStylePostgres, IntervalStyle: IntervalStylePostgres, ExtraFloatDigits: 1},
		{Location: mustLoad(t, "Europe/Berlin"), DateStyle: DateStyleGerman, DateOrder: DateOrderDMY, IntervalStyle: IntervalStylePostgresVerbose, ExtraFloatDigits: 2}}
	for _, f := range keyFamilies {
		if f == JSON || f == Char {
			continue // json keeps arbitrary text; char is padded by its typmod
		}
		if f == Record {
			continue // anonymous records have no input function, as in PostgreSQL
		}
		for i := 0; i < 500; i++ {
			d := randomDatum(rng, f)
			if d.IsNull() || (f == Text || f == Varchar || f == Name) && !validText(d.Str()) {
				continue
			}
			typ := Type{Family: f, Mod: -1}
			if f == Array {
				typ = ArrayOf(d.Array().Elem)
				if hasInvalidText(d) {
					continue
				}
			}
			cfg := cfgs[i%len(cfgs)]
			s := FormatText(d, typ, cfg)
			if strings.Contains(s, " LMT") {
				continue // local mean time has no abbreviation to read back, as in PostgreSQL
			}
			back, err := ParseText(s, typ, cfg)
			if err != nil {
				t.Fatalf("%v: ParseText(%q): %v", debugDatum(d), s, err)
			}
			if !Equal(back, d) {
				t.Fatalf("%v → %q → %v", debugDatum(d), s, debugDatum(back))
			}
		}
	}
}

func validText(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == 0 || s[i] >= 0x80 {
			return false
		}
	}
	return true
}

func hasInvalidText(d Datum) bool {
	for _, e := range d.Array().Elems {
		if e.Kind() == Text && !validText(e.Str()) {
			return true
		}
	}
	return false
}

func FuzzParseText(f *testing.F) {
	for _, s := range []string{"12", " -0 ", "1e5", "NaN", "2024-01-15 12:34:56+05:30", "1 day 02:03:04", "P1Y2M",
		`{"a": [1, 2]}`, `{1,"a b",NULL}`, `\x0102`, "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", "J2451545", "@ 1 day ago"} {
		f.Add(s, uint8(0))
	}
	types := []Type{TypeBool, TypeInt4, TypeInt8, TypeFloat4, TypeFloat8, TypeNumeric, {Family: Numeric, Mod: NumericMod(5, 2)},
		TypeText, {Family: Varchar, Mod: 3}, {Family: Char, Mod: 3}, TypeBytea, TypeUUID, TypeJSON, TypeJSONB, TypeDate, TypeTime,
		TypeTimestamp, TypeTimestampTZ, TypeInterval, ArrayOf(TypeInt4), ArrayOf(TypeText), TypeOid}
	cfg := DefaultTextConfig()
	f.Fuzz(func(t *testing.T, s string, which uint8) {
		typ := types[int(which)%len(types)]
		d, err := ParseText(s, typ, cfg)
		if err != nil {
			return
		}
		out := FormatText(d, typ, cfg)
		back, err := ParseText(out, typ, cfg)
		if err != nil {
			t.Fatalf("%v %q → %q does not read back: %v", typ, s, out, err)
		}
		if !Equal(back, d) {
			t.Fatalf("%v %q → %q → %v, want %v", typ, s, out, debugDatum(back), debugDatum(d))
		}
		bin := AppendBinary(nil, d, typ)
		if fromBin, err := ParseBinary(bin, typ); err != nil || !Equal(fromBin, d) {
			t.Fatalf("%v %q: binary round trip gave %v, %v", typ, s, debugDatum(fromBin), err)
		}
	})
}

func BenchmarkAppendText(b *testing.B) {
	row := benchRow()
	cfg := DefaultTextConfig()
	types := []Type{TypeInt8, TypeInt4, TypeText, TypeNumeric, TypeTimestampTZ, TypeBool, TypeFloat8, TypeText}
	var buf []byte
	b.ReportAllocs()
	for b.Loop() {
		for i, d := range row {
			buf = AppendText(buf[:0], d, types[i], cfg)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}

func BenchmarkParseText(b *testing.B) {
	cfg := DefaultTextConfig()
	inputs := []string{"123456789", "42", "customer-000042", "1234.56", "2023-11-14 22:13:20+00", "t", "3.25"}
	types := []Type{TypeInt8, TypeInt4, TypeText, TypeNumeric, TypeTimestampTZ, TypeBool, TypeFloat8}
	b.ReportAllocs()
	for b.Loop() {
		for i, s := range inputs {
			if _, err := ParseText(s, types[i], cfg); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}
