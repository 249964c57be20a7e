package types

import (
	"bufio"
	"bytes"
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestOrderGolden checks Compare, and the key encoding, against
// PostgreSQL's ORDER BY for the values in testdata/order.golden: values
// must order by PostgreSQL's dense rank, equal ranks comparing equal.
func TestOrderGolden(t *testing.T) {
	f, err := os.Open("testdata/order.golden")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	type ranked struct {
		d    Datum
		rank int
		text string
	}
	byType := map[string][]ranked{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		p := strings.Split(sc.Text(), "\t")
		typ := parseTypeName(t, p[0])
		d, err := ParseText(unescapeCopy(p[1]), typ, nil)
		if err != nil {
			t.Fatalf("%s %q: %v", p[0], p[1], err)
		}
		r, _ := strconv.Atoi(p[2])
		byType[p[0]] = append(byType[p[0]], ranked{d, r, p[1]})
	}
	if len(byType) < 10 {
		t.Fatalf("only %d types", len(byType))
	}
	for typ, vals := range byType {
		for _, a := range vals {
			for _, b := range vals {
				want := sign(a.rank - b.rank)
				if got := sign(Compare(a.d, b.d)); got != want {
					t.Errorf("%s: Compare(%q, %q) = %d, want %d", typ, a.text, b.text, got, want)
				}
				ka, kb := AppendKey(nil, a.d, false), AppendKey(nil, b.d, false)
				if got := sign(bytes.Compare(ka, kb)); got != want {
					t.Errorf("%s: key order of %q, %q = %d, want %d", typ, a.text, b.text, got, want)
				}
			}
		}
	}
}
