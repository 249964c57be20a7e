package scalar

import "github.com/streamdb/streamdb/types"

// Simplify is PostgreSQL's eval_const_expressions, as far as it decides
// what a query computes and what it fails on:
//
//   - a constant subexpression (no columns, no parameters, immutable
//     functions and casts only) is evaluated when the query is planned,
//     so that its error fails the query even if no row ever reaches it
//     (SELECT CASE WHEN x > 0 THEN 1 ELSE 1 / 0 END fails on an empty
//     table). Boolean and NULL results replace the expression; other
//     values are left to run time, where the session's settings format
//     them;
//   - a strict function, operator or cast with a NULL constant argument
//     is never called: it is NULL whatever its other arguments are
//     (x / 0 > NULL is NULL, and x / 0 is never divided);
//   - CASE drops the arms whose condition is constant false or NULL, and
//     those after one that is constant true, without looking at them;
//     COALESCE stops at its first non-NULL constant; AND and OR stop at
//     the constant that decides them (simplify_and_arguments), drop the
//     neutral one and keep NULL ones as one NULL; NOT of a constant is a
//     constant.
//
// visit, when not nil, is called on every node reached before its
// children, so that the planner can simplify the plans of subqueries
// that are reached (not those of a dropped CASE arm, as PostgreSQL).
func Simplify(e Expr, visit func(Expr) (Expr, error)) (Expr, error) {
	s := simplifier{visit: visit}
	return s.expr(e)
}

type simplifier struct {
	visit func(Expr) (Expr, error)
}

func (s *simplifier) expr(e Expr) (Expr, error) {
	if s.visit != nil {
		var err error
		if e, err = s.visit(e); err != nil {
			return nil, err
		}
	}
	if _, ok := e.(*Const); ok {
		return e, nil
	}
	if foldable(e) {
		d, err := Eval(nil, e, nil)
		if err != nil {
			return nil, err
		}
		if d.IsNull() || e.Type().Family == types.Bool {
			return NewConst(d, e.Type()), nil
		}
		return e, nil
	}
	switch x := e.(type) {
	case *Case:
		return s.caseExpr(x)
	case *Coalesce:
		return s.coalesce(x)
	case *And:
		return s.junction(x.Args, false)
	case *Or:
		return s.junction(x.Args, true)
	}
	kids := e.Children()
	if len(kids) > 0 {
		out := make([]Expr, len(kids))
		for i, k := range kids {
			var err error
			if out[i], err = s.expr(k); err != nil {
				return nil, err
			}
		}
		e = e.WithChildren(out)
	}
	switch x := e.(type) {
	case *Call:
		if x.Fn.Strict && anyNullConst(x.Args) {
			return NullOf(x.Type()), nil
		}
	case *Cast:
		if isNullConst(x.Arg) {
			return NullOf(x.To), nil
		}
	case *Not:
		if c, ok := x.Arg.(*Const); ok {
			if c.Val.IsNull() {
				return NullOf(types.TypeBool), nil
			}
			return NewConst(types.NewBool(!c.Val.Bool()), types.TypeBool), nil
		}
	case *In:
		// PostgreSQL reads x IN (y) as x = y, a strict operator.
		if len(x.List) == 1 && isNullConst(x.List[0]) {
			return NullOf(types.TypeBool), nil
		}
	}
	return e, nil
}

// caseExpr drops the arms no row can take, as PostgreSQL does before it
// looks at their results.
func (s *simplifier) caseExpr(x *Case) (Expr, error) {
	var whens []When
	for _, w := range x.Whens {
		cond, err := s.expr(w.Cond)
		if err != nil {
			return nil, err
		}
		c, isConst := cond.(*Const)
		if isConst && (c.Val.IsNull() || !c.Val.Bool()) {
			continue
		}
		res, err := s.expr(w.Result)
		if err != nil {
			return nil, err
		}
		if isConst {
			// A constant true condition: its result is the default and
			// the arms after it are never reached.
			if len(whens) == 0 {
				return res, nil
			}
			return &Case{Whens: whens, Else: res, Typ: x.Typ}, nil
		}
		whens = append(whens, When{Cond: cond, Result: res})
	}
	var def Expr = NullOf(x.Typ)
	if x.Else != nil {
		var err error
		if def, err = s.expr(x.Else); err != nil {
			return nil, err
		}
	}
	if len(whens) == 0 {
		return def, nil
	}
	if x.Else == nil {
		def = nil
	}
	return &Case{Whens: whens, Else: def, Typ: x.Typ}, nil
}

// coalesce drops NULL constants and stops at the first other constant.
func (s *simplifier) coalesce(x *Coalesce) (Expr, error) {
	var args []Expr
	for _, a := range x.Args {
		a, err := s.expr(a)
		if err != nil {
			return nil, err
		}
		if c, ok := a.(*Const); ok {
			if c.Val.IsNull() {
				continue
			}
			if len(args) == 0 {
				return a, nil
			}
			args = append(args, a)
			break
		}
		args = append(args, a)
	}
	if len(args) == 0 {
		return NullOf(x.Typ), nil
	}
	return &Coalesce{Args: args, Typ: x.Typ}, nil
}

// junction simplifies the arguments of an AND (or, with or set, an OR)
// in order: the constant that decides it (false for AND, true for OR)
// replaces it and the arguments after it are not looked at, the neutral
// constant is dropped, NULL constants are kept as one NULL at the end,
// and nested junctions of the same kind are flattened.
func (s *simplifier) junction(args []Expr, or bool) (Expr, error) {
	var out []Expr
	haveNull := false
	decided := false
	var add func(a Expr)
	add = func(a Expr) {
		switch x := a.(type) {
		case *And:
			if !or {
				for _, y := range x.Args {
					add(y)
				}
				return
			}
		case *Or:
			if or {
				for _, y := range x.Args {
					add(y)
				}
				return
			}
		case *Const:
			switch {
			case x.Val.IsNull():
				haveNull = true
			case x.Val.Bool() == or:
				decided = true
			}
			return
		}
		out = append(out, a)
	}
	for _, a := range args {
		a, err := s.expr(a)
		if err != nil {
			return nil, err
		}
		if add(a); decided {
			return NewConst(types.NewBool(or), types.TypeBool), nil
		}
	}
	if haveNull {
		out = append(out, NullOf(types.TypeBool))
	}
	switch len(out) {
	case 0:
		return NewConst(types.NewBool(!or), types.TypeBool), nil
	case 1:
		return out[0], nil
	}
	if or {
		return &Or{Args: out}, nil
	}
	return &And{Args: out}, nil
}

func isNullConst(e Expr) bool {
	c, ok := e.(*Const)
	return ok && c.Val.IsNull()
}

func anyNullConst(es []Expr) bool {
	for _, e := range es {
		if isNullConst(e) {
			return true
		}
	}
	return false
}

// IsFalseOrNull reports whether e is the constant false or NULL: a
// filter conjunct no row passes.
func IsFalseOrNull(e Expr) bool {
	c, ok := e.(*Const)
	return ok && (c.Val.IsNull() || !c.Val.Bool())
}
