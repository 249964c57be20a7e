package types

import "testing"

// TestTypMod checks TypMod and String against PostgreSQL's atttypmod and
// format_type for the same column types.
func TestTypMod(t *testing.T) {
	for _, c := range []struct {
		typ  Type
		mod  int32
		name string
	}{
		{Type{Family: Interval, Mod: 2147418114}, 2147418114, "interval(2)"},
		{Type{Family: Interval, Mod: 327679}, 327679, "interval year"},
		{Type{Family: Interval, Mod: 196607}, 196607, "interval month"},
		{Type{Family: Interval, Mod: 470286339}, 470286339, "interval day to second(3)"},
		{Type{Family: Interval, Mod: 402718719}, 402718719, "interval minute to second"},
		{Type{Family: Interval, Mod: 201392127}, 201392127, "interval hour to minute"},
		{Type{Family: Interval, Mod: 268435456}, 268435456, "interval second(0)"},
		{TypeInterval, -1, "interval"},
		{Type{Family: Time, Mod: 3}, 3, "time(3) without time zone"},
		{Type{Family: TimestampTZ, Mod: 0}, 0, "timestamp(0) with time zone"},
		{Type{Family: Numeric, Mod: NumericMod(5, 2)}, 327686, "numeric(5,2)"},
		{Type{Family: Varchar, Mod: 3}, 7, "character varying(3)"},
		{Type{Family: Char, Mod: 2}, 6, "character(2)"},
		{TypeNumeric, -1, "numeric"},
		{ArrayOf(Type{Family: Varchar, Mod: 3}), 7, "character varying(3)[]"},
	} {
		if got := c.typ.TypMod(); got != c.mod {
			t.Errorf("%s: TypMod = %d, want %d", c.name, got, c.mod)
		}
		if back := (Type{Family: c.typ.Family, Elem: c.typ.Elem}).WithTypMod(c.mod); back != c.typ {
			t.Errorf("WithTypMod(%d) = %v, want %v", c.mod, back, c.typ)
		}
		if got := c.typ.String(); got != c.name {
			t.Errorf("String = %q, want %q", got, c.name)
		}
	}
	for _, f := range []Family{Bool, Int4, Text, JSONB, TimestampTZ} {
		typ := Type{Family: f, Mod: -1}
		if back, ok := TypeForOID(typ.OID()); !ok || back != typ {
			t.Errorf("TypeForOID(%d) = %v", typ.OID(), back)
		}
		arr := ArrayOf(typ)
		if back, ok := TypeForOID(arr.OID()); !ok || back != arr {
			t.Errorf("TypeForOID(%d) = %v, want %v", arr.OID(), back, arr)
		}
	}
}
