package scalar

import (
	"slices"

	"github.com/streamdb/streamdb/types"
)

func compileCase(e *Case) (Evaluator, error) {
	type arm struct{ cond, result Evaluator }
	arms := make([]arm, len(e.Whens))
	for i, w := range e.Whens {
		c, err := Compile(w.Cond)
		if err != nil {
			return nil, err
		}
		r, err := Compile(w.Result)
		if err != nil {
			return nil, err
		}
		arms[i] = arm{c, r}
	}
	var els Evaluator
	if e.Else != nil {
		var err error
		if els, err = Compile(e.Else); err != nil {
			return nil, err
		}
	}
	return func(ctx *EvalContext, row types.Row) (types.Datum, error) {
		for _, a := range arms {
			c, err := a.cond(ctx, row)
			if err != nil {
				return types.Null, err
			}
			if !c.IsNull() && c.Bool() {
				return a.result(ctx, row)
			}
		}
		if els == nil {
			return types.Null, nil
		}
		return els(ctx, row)
	}, nil
}

func compileCoalesce(e *Coalesce) (Evaluator, error) {
	args, err := compileAll(e.Args)
	if err != nil {
		return nil, err
	}
	return func(ctx *EvalContext, row types.Row) (types.Datum, error) {
		for _, a := range args {
			d, err := a(ctx, row)
			if err != nil || !d.IsNull() {
				return d, err
			}
		}
		return types.Null, nil
	}, nil
}

func compileNullIf(e *NullIf) (Evaluator, error) {
	l, err := Compile(e.L)
	if err != nil {
		return nil, err
	}
	r, err := Compile(e.R)
	if err != nil {
		return nil, err
	}
	return func(ctx *EvalContext, row types.Row) (types.Datum, error) {
		a, err := l(ctx, row)
		if err != nil {
			return types.Null, err
		}
		b, err := r(ctx, row)
		if err != nil {
			return types.Null, err
		}
		if !a.IsNull() && !b.IsNull() && types.Compare(a, b) == 0 {
			return types.Null, nil
		}
		return a, nil
	}, nil
}

// compileExtreme is GREATEST (sign 1) and LEAST (sign -1): NULLs ignored.
func compileExtreme(es []Expr, sign int) (Evaluator, error) {
	args, err := compileAll(es)
	if err != nil {
		return nil, err
	}
	return func(ctx *EvalContext, row types.Row) (types.Datum, error) {
		best := types.Null
		for _, a := range args {
			d, err := a(ctx, row)
			if err != nil {
				return types.Null, err
			}
			if !d.IsNull() && (best.IsNull() || types.Compare(d, best)*sign > 0) {
				best = d
			}
		}
		return best, nil
	}, nil
}

// compileIn tests membership. A list of constants is sorted once and
// searched by bisection; otherwise the list is evaluated left to right
// until a match.
func compileIn(e *In) (Evaluator, error) {
	arg, err := Compile(e.Arg)
	if err != nil {
		return nil, err
	}
	not := e.Not
	result := func(found, null bool) types.Datum {
		switch {
		case found:
			return types.NewBool(!not)
		case null:
			return types.Null
		}
		return types.NewBool(not)
	}
	if consts, hasNull, ok := constList(e.List); ok {
		return func(ctx *EvalContext, row types.Row) (types.Datum, error) {
			d, err := arg(ctx, row)
			if err != nil || d.IsNull() {
				return types.Null, err
			}
			_, found := slices.BinarySearchFunc(consts, d, types.Compare)
			return result(found, hasNull), nil
		}, nil
	}
	list, err := compileAll(e.List)
	if err != nil {
		return nil, err
	}
	return func(ctx *EvalContext, row types.Row) (types.Datum, error) {
		d, err := arg(ctx, row)
		if err != nil || d.IsNull() {
			return types.Null, err
		}
		null := false
		for _, l := range list {
			v, err := l(ctx, row)
			if err != nil {
				return types.Null, err
			}
			if v.IsNull() {
				null = true
			} else if types.Compare(d, v) == 0 {
				return result(true, false), nil
			}
		}
		return result(false, null), nil
	}, nil
}

// constList returns the sorted non-NULL values of a list of constants.
func constList(es []Expr) (vals []types.Datum, hasNull, ok bool) {
	for _, e := range es {
		c, isConst := e.(*Const)
		if !isConst {
			return nil, false, false
		}
		if c.Val.IsNull() {
			hasNull = true
			continue
		}
		vals = append(vals, c.Val)
	}
	slices.SortFunc(vals, types.Compare)
	return vals, hasNull, true
}
