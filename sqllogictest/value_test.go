package sqllogictest

import "testing"

func TestNormalize(t *testing.T) {
	tests := []struct {
		typ  byte
		oid  uint32
		in   []byte
		want string
	}{
		{'I', oidInt4, nil, "NULL"},
		{'T', 25, nil, "NULL"},
		{'R', oidFloat8, nil, "NULL"},
		{'I', oidInt4, []byte("-42"), "-42"},
		{'I', oidInt8, []byte("9223372036854775807"), "9223372036854775807"},
		{'I', oidNumeric, []byte("-12.75"), "-12"},
		{'I', oidNumeric, []byte("-0.5"), "0"},
		{'I', oidFloat8, []byte("3.99"), "3"},
		{'I', oidFloat8, []byte("-3.99"), "-3"},
		{'I', oidFloat8, []byte("1e+20"), "9223372036854775807"},
		{'I', oidFloat8, []byte("NaN"), "0"},
		{'I', oidBool, []byte("t"), "1"},
		{'I', oidBool, []byte("f"), "0"},
		{'I', 25, []byte("12abc"), "12"},
		{'I', 25, []byte("  -7x"), "-7"},
		{'I', 25, []byte("abc"), "0"},
		{'I', 25, []byte("99999999999999999999"), "9223372036854775807"},
		{'R', oidInt4, []byte("7"), "7.000"},
		{'R', oidFloat8, []byte("169.42"), "169.420"},
		{'R', oidFloat8, []byte("-0.0001"), "-0.000"},
		{'R', oidNumeric, []byte("2.0005"), "2.001"},
		{'R', oidNumeric, []byte("0.0625"), "0.063"},
		{'R', oidNumeric, []byte("-0.0625"), "-0.063"},
		{'R', oidNumeric, []byte("0.1875"), "0.188"},
		{'R', oidFloat8, []byte("1e+20"), "100000000000000000000.000"},
		{'R', oidBool, []byte("t"), "1.000"},
		{'R', 25, []byte("3.5abc"), "3.500"},
		{'R', 25, []byte("1.5e2x"), "150.000"},
		{'R', 25, []byte("x"), "0.000"},
		{'T', 25, []byte(""), "(empty)"},
		{'T', 25, []byte("a b"), "a b"},
		{'T', 25, []byte("tab\there\n"), "tab@here@"},
		{'T', 25, []byte("é"), "@@"},
		{'T', oidInt4, []byte("5"), "5"},
		{'T', oidBool, []byte("t"), "t"},
	}
	for _, tt := range tests {
		if got := normalize(tt.typ, tt.oid, tt.in); got != tt.want {
			t.Errorf("normalize(%c, %d, %q) = %q, want %q", tt.typ, tt.oid, tt.in, got, tt.want)
		}
	}
}

func TestFormatRealTies(t *testing.T) {
	// Exact ties round away from zero as SQLite's printf does; everything
	// else rounds the exact binary value.
	tests := map[float64]string{
		0.0625: "0.063", 0.3125: "0.313", 1.5625: "1.563", -2.9375: "-2.938",
		0.125: "0.125", 2.5: "2.500", 1.0005: "1.000", 0.0004999: "0.000",
		123456.0625: "123456.063",
	}
	for in, want := range tests {
		if got := formatReal(in); got != want {
			t.Errorf("formatReal(%v) = %q, want %q", in, got, want)
		}
	}
}

func BenchmarkNormalize(b *testing.B) {
	vals := [][]byte{[]byte("12345"), []byte("169.42"), []byte("apdbu"), nil}
	types := []byte{'I', 'R', 'T', 'I'}
	oids := []uint32{oidInt4, oidFloat8, 25, oidInt4}
	b.ReportAllocs()
	for b.Loop() {
		for i, v := range vals {
			normalize(types[i], oids[i], v)
		}
	}
	b.ReportMetric(float64(b.N*len(vals))/b.Elapsed().Seconds(), "values/s")
}
