package types

import "strings"

// int2vector and oidvector are the catalogs' arrays of key columns and
// types (pg_index.indkey, pg_proc.proargtypes). They are arrays of int2
// and oid, and are an array type of their own only in their OIDs (22
// and 30) and their text form, the elements separated by spaces
// ("1 3"), which clients parse: SQLAlchemy splits indkey::varchar on
// spaces. A vector type is its array type with Mod VectorMod.
const VectorMod = -2

// Vector types.
var (
	TypeInt2Vector = Type{Family: Array, Elem: Int2, Mod: VectorMod}
	TypeOidVector  = Type{Family: Array, Elem: Oid, Mod: VectorMod}
)

// IsVector reports whether t is int2vector or oidvector.
func (t Type) IsVector() bool { return t.Family == Array && t.Mod == VectorMod }

// vectorOID returns the OID of a vector type.
func (t Type) vectorOID() uint32 {
	if t.Elem == Int2 {
		return 22
	}
	return 30
}

// appendVector is int2vectorout and oidvectorout.
func appendVector(dst []byte, a *ArrayValue) []byte {
	for i, e := range a.Elems {
		if i > 0 {
			dst = append(dst, ' ')
		}
		dst = appendInt(dst, e.i)
	}
	return dst
}

// parseVector is int2vectorin and oidvectorin: numbers separated by
// spaces.
func parseVector(s string, t Type) (Datum, error) {
	a := &ArrayValue{Elem: t.ElemType()}
	for _, f := range strings.Fields(s) {
		d, err := parseTextValue(f, a.Elem, defaultTextConfig)
		if err != nil {
			return Null, err
		}
		a.Elems = append(a.Elems, d)
	}
	return NewArray(a), nil
}
