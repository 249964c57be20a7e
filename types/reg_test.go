package types

import (
	"testing"

	"github.com/streamdb/streamdb/pgerr"
)

type fakeNames map[string]uint32

func (n fakeNames) ObjectName(f Family, oid uint32) (string, bool) {
	for k, v := range n {
		if v == oid {
			return k, true
		}
	}
	return "", false
}

func (n fakeNames) ObjectOID(f Family, name string) (uint32, error) {
	if oid, ok := n[name]; ok {
		return oid, nil
	}
	return 0, pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", name)
}

func TestRegText(t *testing.T) {
	cfg := DefaultTextConfig()
	cfg.Names = fakeNames{"orders": 20001}
	tests := []struct {
		in, out string
		err     pgerr.Code
	}{
		{in: "orders", out: "orders"},
		{in: "20001", out: "orders"},
		{in: "42", out: "42"},
		{in: "-", out: "-"},
		{in: "nope", err: pgerr.UndefinedTable},
	}
	for _, tt := range tests {
		d, err := ParseText(tt.in, TypeRegClass, cfg)
		if tt.err != "" {
			if pgerr.CodeOf(err) != tt.err {
				t.Errorf("%q: err %v, want %s", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%q: %v", tt.in, err)
		}
		if d.Kind() != Oid {
			t.Errorf("%q: kind %v, want oid", tt.in, d.Kind())
		}
		if got := FormatText(d, TypeRegClass, cfg); got != tt.out {
			t.Errorf("%q: prints %q, want %q", tt.in, got, tt.out)
		}
	}
	if _, err := ParseText("orders", TypeRegClass, DefaultTextConfig()); pgerr.CodeOf(err) != pgerr.InvalidTextRepresentation {
		t.Errorf("without names: %v", err)
	}
}

func TestRegCasts(t *testing.T) {
	for _, c := range []struct {
		from, to Family
		want     CastKind
	}{
		{Oid, RegClass, CastImplicit}, {RegType, Oid, CastImplicit}, {Int4, RegProc, CastImplicit},
		{RegClass, Int8, CastAssignment}, {Text, RegClass, CastImplicit}, {Text, RegType, CastExplicit},
		{RegClass, Text, CastAssignment},
	} {
		k, ok := CastContext(Type{Family: c.from, Mod: -1}, Type{Family: c.to, Mod: -1})
		if !ok || k != c.want {
			t.Errorf("%v -> %v: %v %v, want %v", c.from, c.to, k, ok, c.want)
		}
	}
}
