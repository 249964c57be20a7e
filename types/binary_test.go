package types

import (
	"math/rand/v2"
	"testing"
)

// TestBinaryRoundTrip sends random values and receives them back.
func TestBinaryRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	for _, f := range keyFamilies {
		if f == Record {
			continue // anonymous records have no input function, as in PostgreSQL
		}
		for i := 0; i < 500; i++ {
			d := randomDatum(rng, f)
			if d.IsNull() || f == Char || (f == Text || f == Varchar || f == Name || f == JSON) && !validText(d.Str()) {
				continue
			}
			typ := Type{Family: f, Mod: -1}
			if f == Array {
				if hasInvalidText(d) {
					continue
				}
				typ = ArrayOf(d.Array().Elem)
			}
			if f == JSON {
				d = NewString(JSON, `{"k": 1}`)
			}
			b := AppendBinary(nil, d, typ)
			back, err := ParseBinary(b, typ)
			if err != nil || !Equal(back, d) {
				t.Fatalf("%v → %x → %v, %v", debugDatum(d), b, debugDatum(back), err)
			}
		}
	}
}

func FuzzParseBinary(f *testing.F) {
	types := []Type{TypeBool, TypeInt2, TypeInt4, TypeInt8, TypeFloat4, TypeFloat8, TypeNumeric, TypeText, TypeBytea,
		TypeUUID, TypeJSONB, TypeDate, TypeTime, TypeTimestamp, TypeTimestampTZ, TypeInterval, ArrayOf(TypeInt4),
		ArrayOf(TypeText), {Family: Numeric, Mod: NumericMod(6, 2)}}
	rng := rand.New(rand.NewPCG(17, 18))
	for i, typ := range types {
		fam := typ.Family
		if fam == Array {
			fam = typ.Elem
		}
		d := randomDatum(rng, fam)
		if typ.Family == Array {
			d = NewArray(&ArrayValue{Elem: typ.ElemType(), Elems: []Datum{d, Null}})
		}
		f.Add(AppendBinary(nil, d, typ), uint8(i))
	}
	f.Fuzz(func(t *testing.T, b []byte, which uint8) {
		typ := types[int(which)%len(types)]
		d, err := ParseBinary(b, typ)
		if err != nil || d.IsNull() {
			return
		}
		again, err := ParseBinary(AppendBinary(nil, d, typ), typ)
		if err != nil || !Equal(again, d) {
			t.Fatalf("%v: %v re-sent and received as %v, %v", typ, debugDatum(d), debugDatum(again), err)
		}
	})
}

func FuzzParseJSON(f *testing.F) {
	for _, s := range []string{`{"a": [1, 2.50, {"b": null}]}`, `"\u00e9\ud83d\ude00"`, `1e400`, `[]`, `{"a":1,"a":2}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseJSON(s)
		if err != nil {
			return
		}
		c := FormatJSONB(v)
		v2, err := ParseJSON(c)
		if err != nil || FormatJSONB(v2) != c || CompareJSONValues(v, v2) != 0 || !JSONContains(v, v2) {
			t.Fatalf("%q → %q does not round-trip: %v", s, c, err)
		}
	})
}
