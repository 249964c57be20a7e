package scalar

import "github.com/streamdb/streamdb/sql/types"

// category is pg_type.typcategory for a family: 'B' boolean, 'N' numeric,
// 'S' string, 'D' date/time, 'T' timespan, 'U' user-defined (uuid, json,
// bytea), 'A' array, 'X' unknown.
func category(f types.Family) byte {
	switch f {
	case types.Bool:
		return 'B'
	case types.Int2, types.Int4, types.Int8, types.Float4, types.Float8, types.Numeric, types.Oid:
		return 'N'
	case types.Text, types.Varchar, types.Char, types.Name:
		return 'S'
	case types.Date, types.Time, types.Timestamp, types.TimestampTZ:
		return 'D'
	case types.Interval:
		return 'T'
	case types.Array:
		return 'A'
	case types.Unknown:
		return 'X'
	}
	if f >= famAny {
		return 'P'
	}
	return 'U'
}

// preferred is pg_type.typispreferred: the type its category resolves to
// when a choice remains.
func preferred(f types.Family) bool {
	switch f {
	case types.Bool, types.Float8, types.Text, types.TimestampTZ, types.Interval, types.Oid:
		return true
	}
	return false
}

// implicitCast reports whether PostgreSQL's pg_cast allows converting from
// to to in implicit context (including binary-coercible relabelling), the
// only conversions overload resolution may insert.
func implicitCast(from, to types.Type) bool {
	if sameType(from, to) {
		return true
	}
	if from.Family == types.Array && to.Family == types.Array {
		return implicitCast(from.ElemType(), to.ElemType())
	}
	switch from.Family {
	case types.Int2:
		return to.Family == types.Int4 || to.Family == types.Int8 || to.Family == types.Float4 ||
			to.Family == types.Float8 || to.Family == types.Numeric || to.Family == types.Oid
	case types.Int4:
		return to.Family == types.Int8 || to.Family == types.Float4 || to.Family == types.Float8 ||
			to.Family == types.Numeric || to.Family == types.Oid
	case types.Int8:
		return to.Family == types.Float4 || to.Family == types.Float8 || to.Family == types.Numeric || to.Family == types.Oid
	case types.Float4:
		return to.Family == types.Float8
	case types.Numeric:
		return to.Family == types.Float4 || to.Family == types.Float8
	case types.Text, types.Varchar:
		return to.Family == types.Text || to.Family == types.Varchar || to.Family == types.Char || to.Family == types.Name
	case types.Char:
		return to.Family == types.Text || to.Family == types.Varchar
	case types.Name:
		return to.Family == types.Text
	case types.Date:
		return to.Family == types.Timestamp || to.Family == types.TimestampTZ
	case types.Timestamp:
		return to.Family == types.TimestampTZ
	case types.Time:
		return to.Family == types.Interval
	}
	return false
}
