package types

import (
	"hash/maphash"
	"reflect"
	"testing"
	"unsafe"

	"github.com/cockroachdb/apd/v3"
)

// TestDatumSize keeps a Datum at 32 bytes, two to a cache line: rows are
// read by every operator on every tick, and each byte of a Datum is paid
// for in cache misses per row; and at four fields.
func TestDatumSize(t *testing.T) {
	if got := unsafe.Sizeof(Datum{}); got != 32 {
		t.Fatalf("a Datum is %d bytes, want 32", got)
	}
	// At most four fields, or the compiler no longer keeps a Datum in
	// registers (see Datum).
	if n := reflect.TypeFor[Datum]().NumField(); n > 4 {
		t.Fatalf("a Datum has %d fields, want at most 4", n)
	}
}

// TestStringPayloadIsByValue checks that two string Datums of equal
// contents in different memory are one value to every comparison, hash
// and encoding, and that the families sharing the payload fields with
// strings (numerics, arrays, intervals) read as no string.
func TestStringPayloadIsByValue(t *testing.T) {
	seed := maphash.MakeSeed()
	for _, f := range []Family{Text, Varchar, Bytea, JSONB, UUID} {
		s := "0123456789abcdef"
		a, b := NewString(f, s), NewString(f, string([]byte(s)))
		if unsafe.StringData(a.Str()) == unsafe.StringData(b.Str()) {
			t.Fatalf("%v: the two payloads share memory; the test needs them apart", f)
		}
		if Compare(a, b) != 0 || !Equal(a, b) || hashOf(seed, a) != hashOf(seed, b) ||
			string(AppendKey(nil, a, false)) != string(AppendKey(nil, b, false)) ||
			string(AppendValue(nil, a)) != string(AppendValue(nil, b)) {
			t.Errorf("%v: equal contents at different addresses are different values", f)
		}
		if c := NewString(f, "0123456789abcdeF"); Compare(a, c) == 0 || Equal(a, c) {
			t.Errorf("%v: different contents are one value", f)
		}
	}
	others := []Datum{
		NewNumeric(apd.New(12345, -2)),
		NewNumericCoef(12345, -2),
		NewArray(&ArrayValue{Elem: TypeInt4, Elems: []Datum{NewInt4(1)}}),
		NewInterval(IntervalValue{Months: 14, Days: 3, Micros: 5}),
		NewInt8(7),
		Null,
	}
	for _, d := range others {
		if d.Str() != "" {
			t.Errorf("%v: Str() = %q, want \"\"", d, d.Str())
		}
	}
	if NewText("x").Decimal() != nil || NewText("x").Array() != nil {
		t.Error("a text Datum reads as a numeric or an array")
	}
	if v := NewInterval(IntervalValue{Months: -7, Days: 40, Micros: -3}).Interval(); v != (IntervalValue{Months: -7, Days: 40, Micros: -3}) {
		t.Errorf("interval round trip = %+v", v)
	}
}

// TestDatumString checks the form %v prints a Datum in.
func TestDatumString(t *testing.T) {
	for _, tc := range []struct {
		d    Datum
		want string
	}{
		{Null, "NULL"},
		{NewInt4(-3), "-3"},
		{NewText("a b"), "a b"},
		{NewNumericCoef(150, -2), "1.50"},
		{NewBool(true), "t"},
		{NewArray(&ArrayValue{Elem: TypeText, Elems: []Datum{NewText("x"), Null}}), "{x,NULL}"},
	} {
		if got := tc.d.String(); got != tc.want {
			t.Errorf("String() = %q, want %q", got, tc.want)
		}
	}
}
