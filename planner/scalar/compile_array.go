package scalar

import (
	"github.com/streamdb/streamdb/types"
)

func compileArray(e *ArrayExpr) (Evaluator, error) {
	elems, err := compileAll(e.Elems)
	if err != nil {
		return nil, err
	}
	elem := e.Typ.ElemType()
	return func(ctx *EvalContext, row types.Row) (types.Datum, error) {
		vals := make([]types.Datum, len(elems))
		for i, el := range elems {
			d, err := el(ctx, row)
			if err != nil {
				return types.Null, err
			}
			vals[i] = d
		}
		return types.NewArray(&types.ArrayValue{Elem: elem, Elems: vals}), nil
	}, nil
}

func compileSubscript(e *Subscript) (Evaluator, error) {
	arr, err := Compile(e.Arr)
	if err != nil {
		return nil, err
	}
	idx, err := Compile(e.Index)
	if err != nil {
		return nil, err
	}
	return func(ctx *EvalContext, row types.Row) (types.Datum, error) {
		a, err := arr(ctx, row)
		if err != nil || a.IsNull() {
			return types.Null, err
		}
		i, err := idx(ctx, row)
		if err != nil || i.IsNull() {
			return types.Null, err
		}
		n := i.Int()
		elems := a.Array().Elems
		if n < 1 || n > int64(len(elems)) {
			return types.Null, nil
		}
		return elems[n-1], nil
	}, nil
}

func compileAnyAll(e *AnyAll) (Evaluator, error) {
	arg, err := Compile(e.Arg)
	if err != nil {
		return nil, err
	}
	arr, err := Compile(e.Array)
	if err != nil {
		return nil, err
	}
	op, all := e.Op.Impl, e.All
	buf := make([]types.Datum, 2)
	return func(ctx *EvalContext, row types.Row) (types.Datum, error) {
		a, err := arr(ctx, row)
		if err != nil || a.IsNull() {
			return types.Null, err
		}
		x, err := arg(ctx, row)
		if err != nil {
			return types.Null, err
		}
		elems := a.Array().Elems
		if len(elems) == 0 {
			return types.NewBool(all), nil
		}
		if x.IsNull() {
			return types.Null, nil
		}
		null := false
		for _, el := range elems {
			if el.IsNull() {
				null = true
				continue
			}
			buf[0], buf[1] = x, el
			r, err := op(ctx, buf)
			if err != nil {
				return types.Null, err
			}
			switch {
			case r.IsNull():
				null = true
			case r.Bool() != all:
				return r, nil
			}
		}
		if null {
			return types.Null, nil
		}
		return types.NewBool(all), nil
	}, nil
}
