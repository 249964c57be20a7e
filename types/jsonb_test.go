package types

import (
	"bufio"
	"bytes"
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestJSONBPairsGolden checks CompareJSONB, the jsonb key encoding and
// JSONBContains against PostgreSQL's <, > and @> for every pair in
// testdata/jsonb_pairs.golden.
func TestJSONBPairsGolden(t *testing.T) {
	f, err := os.Open("testdata/jsonb_pairs.golden")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		parts := strings.Split(sc.Text(), "\t")
		a, errA := CanonicalJSONB(parts[0])
		b, errB := CanonicalJSONB(parts[1])
		if errA != nil || errB != nil {
			t.Fatalf("%q %q: %v %v", parts[0], parts[1], errA, errB)
		}
		if a != parts[0] || b != parts[1] {
			t.Errorf("canonical forms %q %q, want %q %q", a, b, parts[0], parts[1])
		}
		want, _ := strconv.Atoi(parts[2])
		if got := CompareJSONB(a, b); sign(got) != want {
			t.Errorf("CompareJSONB(%s, %s) = %d, want %d", a, b, got, want)
		}
		ka := AppendKey(nil, NewString(JSONB, a), false)
		kb := AppendKey(nil, NewString(JSONB, b), false)
		if got := sign(bytes.Compare(ka, kb)); got != want {
			t.Errorf("key order of %s, %s = %d, want %d", a, b, got, want)
		}
		contains, err := JSONBContains(a, b)
		if err != nil || contains != (parts[3] == "t") {
			t.Errorf("%s @> %s = %v (%v), want %s", a, b, contains, err, parts[3])
		}
		n++
	}
	if n < 1000 {
		t.Fatalf("only %d pairs", n)
	}
}

func TestJSONBCanonical(t *testing.T) {
	for in, want := range map[string]string{
		`{"b":1,"a":[1, 2]}`:          `{"a": [1, 2], "b": 1}`,
		`{"a":1,"a":2}`:               `{"a": 2}`,
		`{"aa":1,"b":2}`:              `{"b": 2, "aa": 1}`,
		`[1.0, 1e2, -0, 1.50E-1]`:     `[1.0, 100, 0, 0.150]`,
		`"\u00e9\n\u0001"`:            `"é\n\u0001"`,
		` { "x" : [ true , null ] } `: `{"x": [true, null]}`,
	} {
		got, err := CanonicalJSONB(in)
		if err != nil || got != want {
			t.Errorf("CanonicalJSONB(%s) = %s, %v; want %s", in, got, err, want)
		}
	}
	v, _ := ParseJSON(`{"b":1,"aa":{"c":true},"a":null}`)
	if g, ok := v.Get("aa"); !ok || FormatJSONB(g) != `{"c": true}` {
		t.Errorf("Get(aa) = %v %v", g, ok)
	}
	if _, ok := v.Get("zz"); ok {
		t.Error("Get(zz) found a value")
	}
}

func BenchmarkCompareJSONB(b *testing.B) {
	x, _ := CanonicalJSONB(`{"id": 12345, "name": "widget", "tags": ["a", "b", "c"], "price": 19.99}`)
	y, _ := CanonicalJSONB(`{"id": 12345, "name": "widget", "tags": ["a", "b", "d"], "price": 19.99}`)
	b.ReportAllocs()
	for b.Loop() {
		CompareJSONB(x, y)
	}
}
