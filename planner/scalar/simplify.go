package scalar

import "github.com/streamdb/streamdb/types"

// Simplify is the part of PostgreSQL's eval_const_expressions that
// decides what a query may fail on: a strict function, operator or cast
// with a NULL constant argument is never called, so it becomes a NULL
// constant whatever its other arguments are (x / 0 > NULL is NULL, and
// x / 0 is never divided); AND and OR over constants reduce as
// simplify_and_arguments does (a false conjunct makes the AND false, true
// ones are dropped, NULL ones kept as one NULL); NOT of a constant is
// one; and boolean expressions over constants only are evaluated, so
// that a filter's constant conjuncts are known before any row is read.
// An evaluation that fails leaves the expression as it was: its error
// surfaces at run time, and only if a row reaches it.
//
// Other constant expressions are left to run time: their text may depend
// on session settings the planner does not see.
func Simplify(e Expr) Expr {
	return Rewrite(e, simplifyNode)
}

func simplifyNode(n Expr) Expr {
	switch x := n.(type) {
	case *Const:
		return x
	case *Call:
		if x.Fn.Strict && anyNullConst(x.Args) {
			return NullOf(x.Type())
		}
	case *Cast:
		if isNullConst(x.Arg) {
			return NullOf(x.To)
		}
	case *Not:
		if c, ok := x.Arg.(*Const); ok {
			if c.Val.IsNull() {
				return NullOf(types.TypeBool)
			}
			return NewConst(types.NewBool(!c.Val.Bool()), types.TypeBool)
		}
	case *In:
		// PostgreSQL reads x IN (y) as x = y, a strict operator.
		if len(x.List) == 1 && isNullConst(x.List[0]) {
			return NullOf(types.TypeBool)
		}
	case *And:
		return simplifyJunction(x.Args, false)
	case *Or:
		return simplifyJunction(x.Args, true)
	}
	if n.Type().Family == types.Bool && foldable(n) {
		if d, err := Eval(nil, n, nil); err == nil {
			return NewConst(d, types.TypeBool)
		}
	}
	return n
}

// simplifyJunction reduces the arguments of an AND (or, with or set, an
// OR): a constant that decides it (false for AND, true for OR) replaces
// it, the neutral constant is dropped, NULL constants are kept as one
// NULL, nested junctions of the same kind are flattened.
func simplifyJunction(args []Expr, or bool) Expr {
	var out []Expr
	haveNull := false
	var flatten func(args []Expr) bool
	flatten = func(args []Expr) bool {
		for _, a := range args {
			switch x := a.(type) {
			case *And:
				if !or && !flatten(x.Args) {
					return false
				}
				if !or {
					continue
				}
			case *Or:
				if or && !flatten(x.Args) {
					return false
				}
				if or {
					continue
				}
			case *Const:
				switch {
				case x.Val.IsNull():
					haveNull = true
					continue
				case x.Val.Bool() == or:
					return false
				default:
					continue
				}
			}
			out = append(out, a)
		}
		return true
	}
	if !flatten(args) {
		return NewConst(types.NewBool(or), types.TypeBool)
	}
	if haveNull {
		out = append(out, NullOf(types.TypeBool))
	}
	switch len(out) {
	case 0:
		return NewConst(types.NewBool(!or), types.TypeBool)
	case 1:
		return out[0]
	}
	if or {
		return &Or{Args: out}
	}
	return &And{Args: out}
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
