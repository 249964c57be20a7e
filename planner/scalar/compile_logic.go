package scalar

import (
	"github.com/streamdb/streamdb/types"
)

func compileAnd(e *And) (Evaluator, error) {
	args, err := compileAll(e.Args)
	if err != nil {
		return nil, err
	}
	return func(ctx *EvalContext, row types.Row) (types.Datum, error) {
		null := false
		for _, a := range args {
			d, err := a(ctx, row)
			if err != nil {
				return types.Null, err
			}
			if d.IsNull() {
				null = true
			} else if !d.Bool() {
				return types.DFalse, nil
			}
		}
		if null {
			return types.Null, nil
		}
		return types.DTrue, nil
	}, nil
}

func compileOr(e *Or) (Evaluator, error) {
	args, err := compileAll(e.Args)
	if err != nil {
		return nil, err
	}
	return func(ctx *EvalContext, row types.Row) (types.Datum, error) {
		null := false
		for _, a := range args {
			d, err := a(ctx, row)
			if err != nil {
				return types.Null, err
			}
			if d.IsNull() {
				null = true
			} else if d.Bool() {
				return types.DTrue, nil
			}
		}
		if null {
			return types.Null, nil
		}
		return types.DFalse, nil
	}, nil
}

func compileNot(e *Not) (Evaluator, error) {
	a, err := Compile(e.Arg)
	if err != nil {
		return nil, err
	}
	return func(ctx *EvalContext, row types.Row) (types.Datum, error) {
		d, err := a(ctx, row)
		if err != nil || d.IsNull() {
			return types.Null, err
		}
		return types.NewBool(!d.Bool()), nil
	}, nil
}

func compileIsNull(e *IsNull) (Evaluator, error) {
	a, err := Compile(e.Arg)
	if err != nil {
		return nil, err
	}
	not := e.Not
	if e.Arg.Type().Family == types.Record {
		return func(ctx *EvalContext, row types.Row) (types.Datum, error) {
			d, err := a(ctx, row)
			if err != nil {
				return types.Null, err
			}
			return types.NewBool(recordIsNull(d, not)), nil
		}, nil
	}
	return func(ctx *EvalContext, row types.Row) (types.Datum, error) {
		d, err := a(ctx, row)
		if err != nil {
			return types.Null, err
		}
		return types.NewBool(isNullValue(d) != not), nil
	}, nil
}

// isNullValue is IS NULL's test. For arrays PostgreSQL tests the value
// itself, not its elements; row values are not supported.
func isNullValue(d types.Datum) bool { return d.IsNull() }

func compileIsTruth(e *IsTruth) (Evaluator, error) {
	a, err := Compile(e.Arg)
	if err != nil {
		return nil, err
	}
	want, not := e.Want, e.Not
	return func(ctx *EvalContext, row types.Row) (types.Datum, error) {
		d, err := a(ctx, row)
		if err != nil {
			return types.Null, err
		}
		return types.NewBool((!d.IsNull() && d.Bool() == want) != not), nil
	}, nil
}

func compileIsUnknown(e *IsUnknown) (Evaluator, error) {
	return compileIsNull(&IsNull{Arg: e.Arg, Not: e.Not})
}

func compileIsDistinct(e *IsDistinctFrom) (Evaluator, error) {
	l, err := Compile(e.L)
	if err != nil {
		return nil, err
	}
	r, err := Compile(e.R)
	if err != nil {
		return nil, err
	}
	not := e.Not
	return func(ctx *EvalContext, row types.Row) (types.Datum, error) {
		a, err := l(ctx, row)
		if err != nil {
			return types.Null, err
		}
		b, err := r(ctx, row)
		if err != nil {
			return types.Null, err
		}
		var distinct bool
		switch {
		case a.IsNull() || b.IsNull():
			distinct = a.IsNull() != b.IsNull()
		default:
			distinct = types.Compare(a, b) != 0
		}
		return types.NewBool(distinct != not), nil
	}, nil
}
