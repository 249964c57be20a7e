package types

import "testing"

// TestRecordText checks record_out's format against PostgreSQL 15's:
// SELECT ROW(1,'a'), ROW(NULL,”), ROW('a b','x,y','q"r','b\s','(p)'),
// ROW(ARRAY[1,2], ROW(1,'x')), ROW(ARRAY['a b',NULL]), ROW(NULL::int).
func TestRecordText(t *testing.T) {
	text := func(s string) Datum { return NewText(s) }
	rec := func(fields ...Datum) Datum {
		typs := make([]Type, len(fields))
		for i, f := range fields {
			typs[i] = Type{Family: f.Kind(), Mod: -1}
			if f.Kind() == Array {
				typs[i] = ArrayOf(f.Array().Elem)
			}
			if f.IsNull() {
				typs[i] = TypeInt4
			}
		}
		return NewRecord(InternRecord("", AnonymousFieldNames(len(fields)), typs), fields)
	}
	for _, tc := range []struct {
		d    Datum
		want string
	}{
		{rec(NewInt4(1), text("a")), "(1,a)"},
		{rec(Null, text("")), `(,"")`},
		{rec(text("a b"), text("x,y"), text(`q"r`), text(`b\s`), text("(p)")), `("a b","x,y","q""r","b\\s","(p)")`},
		{rec(NewArray(&ArrayValue{Elem: TypeInt4, Elems: []Datum{NewInt4(1), NewInt4(2)}}), rec(NewInt4(1), text("x"))), `("{1,2}","(1,x)")`},
		{rec(NewArray(&ArrayValue{Elem: TypeText, Elems: []Datum{text("a b"), Null}})), `("{""a b"",NULL}")`},
		{rec(Null), "()"},
	} {
		if got := FormatText(tc.d, TypeRecord, DefaultTextConfig()); got != tc.want {
			t.Errorf("got %s, want %s", got, tc.want)
		}
	}
}

// TestRecordDescInterned checks that equal descriptors are one.
func TestRecordDescInterned(t *testing.T) {
	a := RecordType("", []string{"a", "b"}, []Type{TypeInt4, TypeText})
	b := RecordType("", []string{"a", "b"}, []Type{TypeInt4, TypeText})
	c := RecordType("", []string{"a", "b"}, []Type{TypeInt4, {Family: Varchar, Mod: 3}})
	if a != b || a == c || RecordDescOf(a).Field("b") != 1 || RecordDescOf(TypeRecord) != nil {
		t.Errorf("descriptors: %v %v %v", a, b, c)
	}
}
