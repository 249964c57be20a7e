package types

import (
	"cmp"
	"testing"

	"github.com/streamdb/streamdb/pgerr"
)

// TestArrayText checks multidimensional array input and output against
// what PostgreSQL 15 prints and reports for the same literals.
func TestArrayText(t *testing.T) {
	cfg := DefaultTextConfig()
	for _, tc := range []struct {
		in, out string
		code    pgerr.Code
		detail  string
	}{
		{in: "{{1,2},{3,4}}", out: "{{1,2},{3,4}}"},
		{in: " { { 1 , 2 } , { 3 , 4 } } ", out: "{{1,2},{3,4}}"},
		{in: "{{{1}},{{2}}}", out: "{{{1}},{{2}}}"},
		{in: "{{1},{2}}", out: "{{1},{2}}"},
		{in: "[1:2][1:2]={{1,2},{3,4}}", out: "{{1,2},{3,4}}"},
		{in: "[1:1][1:2]={{1,2}}", out: "{{1,2}}"},
		{in: "[2]={1,2}", out: "{1,2}"},
		{in: "{{NULL,2},{3,NULL}}", out: "{{NULL,2},{3,NULL}}"},
		{in: "{{{{{{1}}}}}}", out: "{{{{{{1}}}}}}"},
		{in: "{{{{{{{1}}}}}}}", code: pgerr.ProgramLimitExceeded},
		{in: "{{1,2},{3}}", code: pgerr.InvalidTextRepresentation, detail: "Multidimensional arrays must have sub-arrays with matching dimensions."},
		{in: "{{1,2},3}", code: pgerr.InvalidTextRepresentation, detail: "Unexpected array element."},
		{in: "{1,{2}}", code: pgerr.InvalidTextRepresentation, detail: `Unexpected "{" character.`},
		{in: "{{}}", code: pgerr.InvalidTextRepresentation, detail: `Unexpected "}" character.`},
		{in: "{{1,2}}x", code: pgerr.InvalidTextRepresentation, detail: "Junk after closing right brace."},
		{in: "{{1,2}", code: pgerr.InvalidTextRepresentation, detail: "Unexpected end of input."},
		{in: "[1:3]={1,2}", code: pgerr.InvalidTextRepresentation, detail: "Specified array dimensions do not match array contents."},
		{in: "[1:2][1:2]={1,2,3,4}", code: pgerr.InvalidTextRepresentation, detail: "Specified array dimensions do not match array contents."},
		{in: "[0:1]={1,2}", code: pgerr.FeatureNotSupported},
	} {
		d, err := ParseText(tc.in, ArrayOf(TypeInt4), cfg)
		if tc.code != "" {
			pe, ok := err.(*pgerr.Error)
			if !ok || pe.Code != tc.code || tc.detail != "" && pe.Detail != tc.detail {
				t.Errorf("%q: got %v, want %s %q", tc.in, err, tc.code, tc.detail)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", tc.in, err)
			continue
		}
		if got := string(AppendText(nil, d, ArrayOf(TypeInt4), cfg)); got != tc.out {
			t.Errorf("%q: got %s, want %s", tc.in, got, tc.out)
		}
	}
}

// TestArrayShapeOrder checks array_cmp's order: elements first, then the
// number of elements, of dimensions and the dimensions' lengths.
func TestArrayShapeOrder(t *testing.T) {
	cfg := DefaultTextConfig()
	arr := func(s string) Datum {
		d, err := ParseText(s, ArrayOf(TypeInt4), cfg)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	ordered := []string{"{}", "{1}", "{{1}}", "{1,2}", "{{1,2}}", "{{1},{2}}", "{1,2,3}", "{{1,2},{3,4}}", "{2}"}
	for i := range ordered {
		for j := range ordered {
			a, b := arr(ordered[i]), arr(ordered[j])
			want := cmp.Compare(i, j)
			if got := Compare(a, b); got != want {
				t.Errorf("Compare(%s, %s) = %d, want %d", ordered[i], ordered[j], got, want)
			}
			for _, desc := range []bool{false, true} {
				c := compareBytes(AppendKey(nil, a, desc), AppendKey(nil, b, desc))
				if desc {
					c = -c
				}
				if c != want {
					t.Errorf("key order of %s, %s (desc %v) = %d, want %d", ordered[i], ordered[j], desc, c, want)
				}
			}
		}
	}
}

func compareBytes(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return cmp.Compare(int(a[i]), int(b[i]))
		}
	}
	return cmp.Compare(len(a), len(b))
}
