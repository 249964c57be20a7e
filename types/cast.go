package types

import (
	"strings"

	"github.com/streamdb/streamdb/pgerr"
)

// Cast converts d from type from to type to as an explicit CAST does in
// PostgreSQL 15, then applies to's modifier (explicit casts truncate
// over-long strings to varchar(n) and char(n) silently). Session settings
// in cfg (nil means DefaultTextConfig) govern conversions through text and
// between timestamps with and without time zone. Whether the cast is
// allowed in a given context is CastContext's question; Cast performs any
// cast that exists.
func Cast(d Datum, from, to Type, cfg *TextConfig) (Datum, error) {
	return CastIn(d, from, to, CastExplicit, cfg)
}

// CastIn is Cast with the modifier rules of the given context: under
// CastImplicit or CastAssignment a string too long for varchar(n) or
// char(n) is a 22001 error, as on INSERT.
func CastIn(d Datum, from, to Type, ctx CastKind, cfg *TextConfig) (Datum, error) {
	if d.IsNull() {
		return Null, nil
	}
	if cfg == nil {
		cfg = defaultTextConfig
	}
	explicit := ctx == CastExplicit
	r, err := castValue(d, from, to, explicit, cfg)
	if err != nil {
		return Null, err
	}
	return applyTypmod(r, to, explicit)
}

func errCannotCast(from, to Type) error {
	return pgerr.New(pgerr.CannotCoerce, "cannot cast type %s to %s", from, to)
}

// castValue converts between families; the target modifier is applied by
// the caller (elements of arrays excepted, which are done here).
func castValue(d Datum, from, to Type, explicit bool, cfg *TextConfig) (Datum, error) {
	ff, tf := from.Family, to.Family
	switch {
	case ff == Unknown:
		return parseTextValue(d.str(), to, cfg)
	case ff == tf && ff != Array:
		return d, nil
	case ff == Array && tf == Array:
		return castArray(d, from, to, explicit, cfg)
	case tf.IsString():
		return NewString(tf, castToString(d, from, tf, cfg)), nil
	case ff.IsString():
		// An I/O conversion reads the text without the target's modifier
		// and applies it after (CoerceViaIO, then the length coercion):
		// CAST(text '1' AS interval year) is one second truncated to zero
		// years, where the literal INTERVAL '1' YEAR is one year.
		to.Mod = -1
		return parseTextValue(d.str(), to, cfg)
	case ff == QChar && tf.IsInteger() || ff.IsInteger() && tf == QChar:
		return castQChar(d, tf)
	case ff.IsNumeric() || ff == Oid || ff.IsReg() || tf.IsNumeric() && ff != JSONB || tf == Oid || tf.IsReg():
		return castNumber(d, from, to)
	}
	switch [2]Family{ff, tf} {
	case [2]Family{JSON, JSONB}:
		c, err := CanonicalJSONB(d.str())
		if err != nil {
			return Null, err
		}
		return NewString(JSONB, c), nil
	case [2]Family{JSONB, JSON}:
		return NewString(JSON, d.str()), nil
	case [2]Family{JSONB, Bool}, [2]Family{JSONB, Int2}, [2]Family{JSONB, Int4}, [2]Family{JSONB, Int8},
		[2]Family{JSONB, Float4}, [2]Family{JSONB, Float8}, [2]Family{JSONB, Numeric}:
		return castFromJSONB(d.str(), to)
	}
	if r, ok, err := castDateTime(d, ff, tf, cfg); ok {
		return r, err
	}
	return Null, errCannotCast(from, to)
}

// castToString is the conversion to a string type: the output function's
// text, except that booleans become true/false (booltext) and char(n)
// loses its trailing blanks unless the target is char again.
func castToString(d Datum, from Type, to Family, cfg *TextConfig) string {
	switch {
	case d.kind == Bool:
		if d.i != 0 {
			return "true"
		}
		return "false"
	case d.kind == Char && to != Char:
		return strings.TrimRight(d.str(), " ")
	case d.kind == Name || to == Name:
		if d.kind.IsString() {
			return truncateName(d.str())
		}
		return truncateName(FormatText(d, from, cfg))
	case d.kind.IsString():
		return d.str()
	}
	return FormatText(d, from, cfg)
}

func castArray(d Datum, from, to Type, explicit bool, cfg *TextConfig) (Datum, error) {
	fe, te := from.ElemType(), to.ElemType()
	out := d.arr().WithElems(te, make([]Datum, len(d.arr().Elems)))
	for i, e := range d.arr().Elems {
		if e.IsNull() {
			continue
		}
		v, err := castValue(e, fe, te, explicit, cfg)
		if err != nil {
			return Null, err
		}
		if v, err = applyTypmod(v, te, explicit); err != nil {
			return Null, err
		}
		out.Elems[i] = v
	}
	return NewArray(out), nil
}

var jsonKindNames = [...]string{JSONNull: "null", JSONString: "string", JSONNumber: "numeric",
	JSONBool: "boolean", JSONArray: "array", JSONObject: "object"}

// castFromJSONB converts a scalar jsonb document to bool or a number.
func castFromJSONB(s string, to Type) (Datum, error) {
	v, err := ParseJSON(s)
	if err != nil {
		return Null, err
	}
	want := JSONNumber
	if to.Family == Bool {
		want = JSONBool
	}
	if v.Kind != want {
		return Null, pgerr.New(pgerr.InvalidParameterValue, "cannot cast jsonb %s to type %s", jsonKindNames[v.Kind], to.Family)
	}
	if want == JSONBool {
		return NewBool(v.Bool), nil
	}
	return castNumber(NewNumeric(v.Num), TypeNumeric, to)
}
