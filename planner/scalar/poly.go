package scalar

import "github.com/streamdb/streamdb/types"

// Pseudo-type families for polymorphic parameters, numbered above every
// real family. They appear only in library signatures: resolution replaces
// them with concrete types before a *Func reaches an expression.
const (
	famAny types.Family = 240 + iota
	famAnyElement
	famAnyArray
	famAnyNonArray
	famAnyCompatible
	famAnyCompatibleArray
)

// Polymorphic parameter types, as in PostgreSQL: "any" accepts every type
// independently; the anyelement group must agree on one element type; the
// anycompatible group is unified to a common type with implicit casts.
var (
	AnyT               = types.Type{Family: famAny, Mod: -1}
	AnyElement         = types.Type{Family: famAnyElement, Mod: -1}
	AnyArray           = types.Type{Family: famAnyArray, Mod: -1}
	AnyNonArray        = types.Type{Family: famAnyNonArray, Mod: -1}
	AnyCompatible      = types.Type{Family: famAnyCompatible, Mod: -1}
	AnyCompatibleArray = types.Type{Family: famAnyCompatibleArray, Mod: -1}
	pseudoNames        = map[types.Family]string{famAny: "\"any\"", famAnyElement: "anyelement", famAnyArray: "anyarray", famAnyNonArray: "anynonarray", famAnyCompatible: "anycompatible", famAnyCompatibleArray: "anycompatiblearray"}
)

func isPseudo(t types.Type) bool { return t.Family >= famAny }

// typeName prints a type, pseudo-types included, as PostgreSQL's
// format_type does.
func typeName(t types.Type) string {
	if n, ok := pseudoNames[t.Family]; ok {
		return n
	}
	return t.String()
}

// sameType compares types ignoring modifiers.
func sameType(a, b types.Type) bool {
	return a.Family == b.Family && (a.Family != types.Array || a.Elem == b.Elem)
}

// bare drops a type's modifier.
func bare(t types.Type) types.Type {
	t.Mod = -1
	return t
}

// resolvePoly replaces the pseudo-types of params with concrete types for
// the given argument types, and returns the concrete result type too. ok is
// false when the arguments do not fit (different element types, an array
// where none is allowed, nothing to determine the type from).
func resolvePoly(params []types.Type, ret types.Type, args []types.Type) (out []types.Type, r types.Type, ok bool) {
	var elem, compat types.Type
	haveElem := false
	var compatTypes []types.Type
	for i, p := range params {
		a := args[i]
		switch p.Family {
		case famAnyElement, famAnyNonArray:
			if a.Family == types.Unknown {
				continue
			}
			if p.Family == famAnyNonArray && a.Family == types.Array {
				return nil, r, false
			}
			if haveElem && !sameType(elem, a) {
				return nil, r, false
			}
			elem, haveElem = bare(a), true
		case famAnyArray:
			if a.Family == types.Unknown {
				continue
			}
			if a.Family != types.Array {
				return nil, r, false
			}
			e := bare(a.ElemType())
			if haveElem && !sameType(elem, e) {
				return nil, r, false
			}
			elem, haveElem = e, true
		case famAnyCompatible:
			if a.Family != types.Unknown {
				compatTypes = append(compatTypes, a)
			}
		case famAnyCompatibleArray:
			if a.Family == types.Unknown {
				continue
			}
			if a.Family != types.Array {
				return nil, r, false
			}
			compatTypes = append(compatTypes, a.ElemType())
		}
	}
	compat = types.TypeText
	if len(compatTypes) > 0 {
		c, err := CommonType(compatTypes, "")
		if err != nil {
			return nil, r, false
		}
		compat = bare(c)
	}
	subst := func(p types.Type) (types.Type, bool) {
		switch p.Family {
		case famAnyElement, famAnyNonArray:
			return elem, haveElem
		case famAnyArray:
			return types.ArrayOf(elem), haveElem
		case famAnyCompatible:
			return compat, true
		case famAnyCompatibleArray:
			return types.ArrayOf(compat), true
		}
		return p, true
	}
	out = make([]types.Type, len(params))
	for i, p := range params {
		if p.Family == famAny {
			out[i] = args[i]
			if out[i].Family == types.Unknown {
				out[i] = types.TypeText
			}
			continue
		}
		t, ok := subst(p)
		if !ok {
			return nil, r, false
		}
		out[i] = t
	}
	r, ok = subst(ret)
	return out, r, ok
}
