package types

import (
	"encoding/binary"
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

// TestNumericBinaryFastPath checks that numeric_recv's inline fast path
// reads every value it accepts exactly as the general path does, with
// the same display scale, over random external forms.
func TestNumericBinaryFastPath(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 26))
	fast := 0
	for range 200000 {
		ndigits := rng.IntN(6)
		b := make([]byte, 0, 2*ndigits)
		for range ndigits {
			g := uint16(rng.IntN(10000))
			if rng.IntN(4) == 0 {
				g = uint16(rng.IntN(3)) * 9999 / 2
			}
			b = binary.BigEndian.AppendUint16(b, g)
		}
		weight := rng.IntN(12) - 6
		dscale := rng.IntN(22)
		sign := uint16(numericPos)
		if rng.IntN(2) == 0 {
			sign = numericNeg
		}
		d, ok := numericBinaryCoef(b, weight, dscale, sign == numericNeg)
		if !ok {
			continue
		}
		fast++
		want, err := parseNumericDigits(b, weight, dscale, sign)
		if err != nil {
			t.Fatalf("digits %x weight %d dscale %d: general path failed: %v", b, weight, dscale, err)
		}
		if Compare(d, want) != 0 || FormatText(d, TypeNumeric, nil) != FormatText(want, TypeNumeric, nil) {
			t.Fatalf("digits %x weight %d dscale %d sign %x: fast %s, general %s", b, weight, dscale, sign,
				FormatText(d, TypeNumeric, nil), FormatText(want, TypeNumeric, nil))
		}
	}
	if fast < 50000 {
		t.Fatalf("the fast path took only %d values", fast)
	}
}
