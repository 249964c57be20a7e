package scalar

import (
	"strings"

	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/types"
)

// candidate is one overload whose arity fits, with its parameter list
// expanded for variadics and made concrete for polymorphism.
type candidate struct {
	fn     *Func
	decl   []types.Type // declared, pseudo-types kept: the scoring steps use these
	params []types.Type
	ret    types.Type
}

// ResolveFunc picks the overload of function name for the argument types
// (Unknown for untyped literals and NULLs) following PostgreSQL's rules
// (chapter 10.3). It returns the overload instantiated for the arguments
// and the type each argument must be cast to; an argument already of that
// type (modifier aside) keeps its own type so the binder adds no cast.
func ResolveFunc(name string, args []types.Type) (*Func, []types.Type, error) {
	c, err := resolve(lib.funcs[name], args, false)
	if err != nil {
		return nil, nil, funcError(err, name, args)
	}
	return finish(c, args)
}

// ResolveBinaryOp picks the overload of a binary operator (chapter 10.2).
func ResolveBinaryOp(op string, l, r types.Type) (*Func, []types.Type, error) {
	args := []types.Type{l, r}
	c, err := resolve(lib.binOps[op], args, true)
	if err != nil {
		return nil, nil, opError(err, op, args)
	}
	return finish(c, args)
}

// ResolveUnaryOp picks the overload of a prefix operator.
func ResolveUnaryOp(op string, arg types.Type) (*Func, []types.Type, error) {
	args := []types.Type{arg}
	c, err := resolve(lib.unOps[op], args, true)
	if err != nil {
		return nil, nil, opError(err, op, args)
	}
	return finish(c, args)
}

// finish instantiates the chosen candidate and computes the cast targets.
func finish(c *candidate, args []types.Type) (*Func, []types.Type, error) {
	targets := make([]types.Type, len(args))
	for i, a := range args {
		p := c.params[i]
		if sameType(a, p) {
			targets[i] = a
		} else {
			targets[i] = p
		}
	}
	ret := c.ret
	if c.fn.retFn != nil {
		ret = c.fn.retFn(targets)
	}
	return c.fn.instantiate(targets, ret), targets, nil
}

type resolveFailure uint8

const (
	noMatch resolveFailure = iota + 1
	ambiguous
)

func (r resolveFailure) Error() string {
	if r == ambiguous {
		return "ambiguous"
	}
	return "no match"
}

func argList(args []types.Type) string {
	s := make([]string, len(args))
	for i, a := range args {
		s[i] = typeName(a)
	}
	return strings.Join(s, ", ")
}

func funcError(err error, name string, args []types.Type) error {
	if err == ambiguous {
		return pgerr.New(pgerr.AmbiguousFunction, "function %s(%s) is not unique", name, argList(args)).
			WithHint("Could not choose a best candidate function. You might need to add explicit type casts.")
	}
	return pgerr.New(pgerr.UndefinedFunction, "function %s(%s) does not exist", name, argList(args)).
		WithHint("No function matches the given name and argument types. You might need to add explicit type casts.")
}

func opText(op string, args []types.Type) string {
	if len(args) == 1 {
		return op + " " + typeName(args[0])
	}
	return typeName(args[0]) + " " + op + " " + typeName(args[1])
}

func opError(err error, op string, args []types.Type) error {
	if err == ambiguous {
		return pgerr.New(pgerr.AmbiguousFunction, "operator is not unique: %s", opText(op, args)).
			WithHint("Could not choose a best candidate operator. You might need to add explicit type casts.")
	}
	return pgerr.New(pgerr.UndefinedFunction, "operator does not exist: %s", opText(op, args)).
		WithHint("No operator matches the given name and argument types. You might need to add explicit type casts.")
}

// expand returns the parameter list of f for n arguments; ok is false if
// the arity does not fit. A variadic parameter takes at least one argument.
func expand(f *Func, n int) (params []types.Type, ok bool) {
	if !f.Variadic {
		return f.Params, len(f.Params) == n
	}
	fixed := len(f.Params) - 1
	if n <= fixed {
		return nil, false
	}
	p := make([]types.Type, n)
	copy(p, f.Params[:fixed])
	for i := fixed; i < n; i++ {
		p[i] = f.Params[fixed]
	}
	return p, true
}

// coercible reports whether an argument of type a can be passed for a
// concrete parameter p.
func coercible(a, p types.Type) bool {
	return a.Family == types.Unknown || implicitCast(a, p)
}

// resolve implements func_select_candidate over the overloads fs.
func resolve(fs []*Func, args []types.Type, isOp bool) (*candidate, error) {
	var cands []*candidate
	for _, f := range fs {
		params, ok := expand(f, len(args))
		if !ok {
			continue
		}
		decl := params
		ret := f.Ret
		poly := false
		for _, p := range params {
			poly = poly || isPseudo(p)
		}
		if poly || isPseudo(ret) {
			var ok bool
			if params, ret, ok = resolvePoly(params, ret, args); !ok {
				continue
			}
		}
		fits := true
		for i, a := range args {
			if !coercible(a, params[i]) {
				fits = false
				break
			}
		}
		if fits {
			cands = append(cands, &candidate{fn: f, decl: decl, params: params, ret: ret})
		}
	}
	if len(cands) == 0 {
		return nil, noMatch
	}
	// An exact match wins outright. For a binary operator with one
	// unknown operand, the unknown is assumed to be the other's type.
	probe := args
	if isOp && len(args) == 2 {
		switch {
		case args[0].Family == types.Unknown && args[1].Family != types.Unknown:
			probe = []types.Type{args[1], args[1]}
		case args[1].Family == types.Unknown && args[0].Family != types.Unknown:
			probe = []types.Type{args[0], args[0]}
		}
	}
	for _, c := range cands {
		if exactMatches(c.decl, probe) == len(args) && !c.fn.Variadic {
			return c, nil
		}
	}
	if len(cands) == 1 {
		return cands[0], nil
	}
	// Keep the candidates with the most exact matches on known arguments.
	cands = keepMax(cands, func(c *candidate) int { return exactMatches(c.decl, args) })
	if len(cands) == 1 {
		return cands[0], nil
	}
	// Keep those with the most known arguments matched exactly or by a
	// preferred type of the argument's category.
	cands = keepMax(cands, func(c *candidate) int {
		n := 0
		for i, a := range args {
			p := c.decl[i]
			if a.Family != types.Unknown && (sameType(a, p) || preferred(p.Family) && category(p.Family) == category(a.Family)) {
				n++
			}
		}
		return n
	})
	if len(cands) == 1 {
		return cands[0], nil
	}
	// Unknown arguments: choose a category per position, preferring
	// string, then a preferred type of that category.
	if cands = byUnknownCategory(cands, args); len(cands) == 1 {
		return cands[0], nil
	}
	if len(cands) == 0 {
		return nil, ambiguous
	}
	// Unknowns beside known arguments of one type are taken to be of that
	// type.
	var known types.Type
	same, haveKnown, haveUnknown := true, false, false
	for _, a := range args {
		switch {
		case a.Family == types.Unknown:
			haveUnknown = true
		case !haveKnown:
			known, haveKnown = a, true
		case !sameType(known, a):
			same = false
		}
	}
	if haveKnown && haveUnknown && same {
		var match []*candidate
		for _, c := range cands {
			ok := true
			for i, a := range args {
				if a.Family == types.Unknown && !implicitCast(known, c.params[i]) {
					ok = false
				}
			}
			if ok {
				match = append(match, c)
			}
		}
		if len(match) == 1 {
			return match[0], nil
		}
	}
	return nil, ambiguous
}

func exactMatches(params, args []types.Type) int {
	n := 0
	for i, a := range args {
		if a.Family != types.Unknown && sameType(a, params[i]) {
			n++
		}
	}
	return n
}

func keepMax(cands []*candidate, score func(*candidate) int) []*candidate {
	best := -1
	var out []*candidate
	for _, c := range cands {
		s := score(c)
		switch {
		case s > best:
			best, out = s, []*candidate{c}
		case s == best:
			out = append(out, c)
		}
	}
	return out
}

// byUnknownCategory applies step 4.e of PostgreSQL's rules to each
// unknown-typed argument position.
func byUnknownCategory(cands []*candidate, args []types.Type) []*candidate {
	for i, a := range args {
		if a.Family != types.Unknown {
			continue
		}
		var cat byte
		conflict, sawString := false, false
		for _, c := range cands {
			pc := category(c.decl[i].Family)
			if pc == 'S' {
				sawString = true
			}
			if cat == 0 {
				cat = pc
			} else if cat != pc {
				conflict = true
			}
		}
		if sawString {
			cat = 'S'
		} else if conflict {
			return nil
		}
		havePref := false
		for _, c := range cands {
			if category(c.decl[i].Family) == cat && preferred(c.decl[i].Family) {
				havePref = true
			}
		}
		var keep []*candidate
		for _, c := range cands {
			pf := c.decl[i].Family
			if category(pf) == cat && (!havePref || preferred(pf)) {
				keep = append(keep, c)
			}
		}
		cands = keep
	}
	return cands
}

// CommonType chooses the type that values of ts are converted to when they
// meet in one column: CASE results, COALESCE, IN lists, UNION, ARRAY[...]
// (PostgreSQL's select_common_type). All unknown resolves to text. context
// names the construct for the error, e.g. "CASE" or "UNION".
func CommonType(ts []types.Type, context string) (types.Type, error) {
	var ptype types.Type
	have := false
	for _, t := range ts {
		if t.Family == types.Unknown {
			continue
		}
		if !have {
			ptype, have = t, true
			continue
		}
		if sameType(t, ptype) {
			if t.Mod != ptype.Mod {
				ptype = bare(ptype)
			}
			continue
		}
		if category(t.Family) != category(ptype.Family) {
			if context == "" {
				context = "expression"
			}
			return types.Type{}, pgerr.New(pgerr.DatatypeMismatch, "%s types %s and %s cannot be matched", context, typeName(ptype), typeName(t))
		}
		if !preferred(ptype.Family) && implicitCast(ptype, t) && !implicitCast(t, ptype) {
			ptype = t
		}
	}
	if !have {
		return types.TypeText, nil
	}
	for _, t := range ts {
		if t.Family != types.Unknown && !implicitCast(t, ptype) {
			if context == "" {
				context = "expression"
			}
			return types.Type{}, pgerr.New(pgerr.DatatypeMismatch, "%s could not convert type %s to %s", context, typeName(t), typeName(ptype))
		}
	}
	return ptype, nil
}
