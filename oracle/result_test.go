package oracle

import (
	"strings"
	"testing"
)

// res builds a result from rows of values; "NULL" is NULL.
func res(oids []uint32, rows ...[]string) *result {
	r := &result{oids: oids}
	for _, row := range rows {
		vals := make([]*string, len(row))
		for i, v := range row {
			if v != "NULL" {
				s := v
				vals[i] = &s
			}
		}
		r.rows = append(r.rows, vals)
	}
	return r
}

func TestDiff(t *testing.T) {
	text := []uint32{25}
	num := []uint32{oidNumeric}
	intText := []uint32{23, 25}
	for _, tc := range []struct {
		name  string
		a, b  *result
		blind bool
		want  string // substring of the difference; "" for agreement
	}{
		{"equal", res(text, []string{"a"}, []string{"b"}), res(text, []string{"b"}, []string{"a"}), false, ""},
		{"duplicates count", res(text, []string{"a"}, []string{"a"}), res(text, []string{"a"}), false, "only in view (1)"},
		{"null is not the string NULL", res(text, []string{"NULL"}), &result{oids: text, rows: [][]*string{{ptr("NULL")}}}, false, "only in view"},
		{"null equals null", res(intText, []string{"1", "NULL"}), res(intText, []string{"1", "NULL"}), false, ""},
		{"empty", res(text), res(text), false, ""},
		{"numeric within tolerance", res(num, []string{"0.3333333333333333"}), res(num, []string{"0.33333333333333331"}), false, ""},
		{"numeric scale", res(num, []string{"1.50"}), res(num, []string{"1.5"}), false, ""},
		{"numeric beyond tolerance", res(num, []string{"0.3333"}), res(num, []string{"0.3334"}), false, "only in query (1)"},
		{"text is exact", res(text, []string{"1.50"}), res(text, []string{"1.5"}), false, "only in view"},
		{"tolerance pairs rows", res(num, []string{"1.0000000000001"}, []string{"2"}), res(num, []string{"2"}, []string{"1"}), false, ""},
		{"both fail alike", &result{code: "22012", msg: "division by zero"}, &result{code: "22012", msg: "division by zero"}, false, ""},
		{"fail differently", &result{code: "22012"}, &result{code: "22003"}, false, "fails with 22012"},
		{"one fails", &result{code: "22012"}, res(text), false, "returns 0 rows"},
		{"column count", res(text), res(intText), false, "has 1 columns"},
		{"text scale blind", res(text, []string{"{1.50,2}"}), res(text, []string{"{1.5,2.0}"}), true, ""},
		{"text scale blind keeps values", res(text, []string{"{1.51}"}), res(text, []string{"{1.5}"}), true, "only in view"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := diff(tc.a, tc.b, "view", "query", tc.blind)
			if tc.want == "" && got != "" || tc.want != "" && !strings.Contains(got, tc.want) {
				t.Errorf("diff = %q, want %q", got, tc.want)
			}
		})
	}
}

func ptr(s string) *string { return &s }

func TestNormalizeScale(t *testing.T) {
	for in, want := range map[string]string{
		"1.50":                   "1.5",
		"2.00":                   "2",
		"-0.0":                   "-0",
		"{1.10,NULL,20.0}":       "{1.1,NULL,20}",
		"[1.50, 2]":              "[1.5, 2]",
		"2024-01-01 10:00:00":    "2024-01-01 10:00:00",
		"a.0":                    "a.0",
		"1.":                     "1.",
		"x 10.250 y 3.0":         "x 10.25 y 3",
		"0.50000000000000000000": "0.5",
	} {
		if got := normalizeScale(in); got != want {
			t.Errorf("normalizeScale(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCloseEnough(t *testing.T) {
	for _, tc := range []struct {
		x, y string
		want bool
	}{
		{"1", "1", true},
		{"1", "1.0", true},
		{"1e300", "1.0000000001e300", true},
		{"0", "1e-13", true},
		{"0", "1e-6", false},
		{"NaN", "NaN", true},
		{"Infinity", "Infinity", true},
		{"Infinity", "-Infinity", false},
		{"abc", "abc", true},
		{"abc", "abd", false},
	} {
		if got := closeEnough(tc.x, tc.y); got != tc.want {
			t.Errorf("closeEnough(%q, %q) = %v", tc.x, tc.y, got)
		}
	}
}

// BenchmarkDiff measures comparing two results of 10,000 rows that agree
// but arrive in different orders, the common case of every check.
func BenchmarkDiff(b *testing.B) {
	oids := []uint32{23, 25, oidNumeric}
	var rows [][]string
	for i := range 10000 {
		rows = append(rows, []string{strings.Repeat("1", i%7+1), "text", "1.5"})
	}
	a := res(oids, rows...)
	rev := make([][]string, len(rows))
	for i, r := range rows {
		rev[len(rows)-1-i] = r
	}
	c := res(oids, rev...)
	b.ReportAllocs()
	for b.Loop() {
		if d := diff(a, c, "a", "b", true); d != "" {
			b.Fatal(d)
		}
	}
	b.ReportMetric(float64(len(rows))*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}
