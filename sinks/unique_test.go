package sinks

import (
	"strings"
	"testing"

	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/types"
)

func TestCheckUniqueKey(t *testing.T) {
	cols := []Column{{"id", types.TypeInt4}, {"region", types.TypeText}, {"n", types.TypeInt8}}
	row := func(id int32, region string, n int64) types.Row {
		r := types.Row{types.NewInt4(id), types.NewText(region), types.NewInt8(n)}
		if region == "" {
			r[1] = types.Null
		}
		return r
	}
	for _, tc := range []struct {
		name   string
		key    []int
		rows   []Change
		detail string // empty: unique
	}{
		{"unique", []int{0}, []Change{{row(1, "eu", 5), 1}, {row(2, "eu", 5), 1}}, ""},
		{"empty", []int{0}, nil, ""},
		{"duplicate id", []int{0}, []Change{{row(1, "eu", 5), 1}, {row(1, "us", 5), 1}}, "Key (id)=(1) is duplicated."},
		{"composite unique", []int{0, 1}, []Change{{row(1, "eu", 5), 1}, {row(1, "us", 5), 1}}, ""},
		{"composite duplicate", []int{1, 0}, []Change{{row(1, "eu", 5), 1}, {row(2, "eu", 1), 1}, {row(1, "eu", 7), 1}}, "Key (region, id)=(eu, 1) is duplicated."},
		{"multiplicity", []int{0}, []Change{{row(3, "eu", 5), 2}}, "Key (id)=(3) is duplicated."},
		{"nulls collide", []int{1}, []Change{{row(1, "", 5), 1}, {row(2, "", 5), 1}}, "Key (region)=(NULL) is duplicated."},
		{"numeric scale is one key", []int{0}, []Change{
			{types.Row{types.NewNumericCoef(15, -1)}, 1}, {types.Row{types.NewNumericCoef(150, -2)}, 1}}, "is duplicated"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckUniqueKey(cols, tc.key, tc.rows)
			if tc.detail == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			e := pgerr.As(err)
			if e == nil || e.Code != pgerr.UniqueViolation || !strings.Contains(e.Detail, tc.detail) {
				t.Fatalf("got %#v, want 23505 with detail %q", err, tc.detail)
			}
		})
	}
}
