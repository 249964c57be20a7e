package scalar

import "github.com/streamdb/streamdb/types"

// category is pg_type.typcategory, with 'P' for the pseudo-types of
// polymorphic parameters.
func category(f types.Family) byte {
	if f >= famAny {
		return 'P'
	}
	return types.Category(f)
}

// preferred is pg_type.typispreferred.
func preferred(f types.Family) bool { return f < famAny && types.Preferred(f) }

// implicitCast reports whether a value of type from may be passed where to
// is expected without an explicit cast: pg_cast's implicit context, which
// is all overload resolution may insert.
func implicitCast(from, to types.Type) bool {
	if sameType(from, to) {
		return true
	}
	if from.Family >= famAny || to.Family >= famAny {
		return false
	}
	k, ok := types.CastContext(from, to)
	return ok && k == types.CastImplicit
}
