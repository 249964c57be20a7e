package scalar

import (
	"slices"

	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/types"
)

func compileArray(e *ArrayExpr) (Evaluator, error) {
	elems, err := compileAll(e.Elems)
	if err != nil {
		return nil, err
	}
	elem, multi := e.Typ.ElemType(), e.multi()
	return func(ctx *EvalContext, row types.Row) (types.Datum, error) {
		vals := make([]types.Datum, len(elems))
		for i, el := range elems {
			d, err := el(ctx, row)
			if err != nil {
				return types.Null, err
			}
			vals[i] = d
		}
		if multi {
			return stackArrays(elem, vals)
		}
		return types.NewArray(&types.ArrayValue{Elem: elem, Elems: vals}), nil
	}, nil
}

// errMatchingDims is the error of ARRAY[ARRAY[...], ...] over sub-arrays
// of different shapes.
func errMatchingDims() error {
	return pgerr.New(pgerr.ArraySubscriptError, "multidimensional arrays must have array expressions with matching dimensions")
}

// stackArrays builds ARRAY[sub, sub, ...]: the sub-arrays, all of one
// shape, one after the other along a new first dimension. Sub-arrays that
// are all empty make the empty array.
func stackArrays(elem types.Type, subs []types.Datum) (types.Datum, error) {
	var shape []int32
	var elems []types.Datum
	for i, d := range subs {
		if d.IsNull() {
			return types.Null, errMatchingDims()
		}
		a := d.Array()
		if i == 0 {
			shape = a.Lengths()
		} else if !slices.Equal(shape, a.Lengths()) {
			return types.Null, errMatchingDims()
		}
		elems = append(elems, a.Elems...)
	}
	if len(elems) == 0 {
		return types.NewArray(&types.ArrayValue{Elem: elem}), nil
	}
	a, err := types.NewArrayDims(elem, elems, append([]int32{int32(len(subs))}, shape...))
	if err != nil {
		return types.Null, err
	}
	return types.NewArray(a), nil
}

func compileSubscript(e *Subscript) (Evaluator, error) {
	arr, err := Compile(e.Arr)
	if err != nil {
		return nil, err
	}
	idx, err := compileAll(e.Index)
	if err != nil {
		return nil, err
	}
	return func(ctx *EvalContext, row types.Row) (types.Datum, error) {
		a, err := arr(ctx, row)
		if err != nil || a.IsNull() {
			return types.Null, err
		}
		v := a.Array()
		off, ok := 0, len(idx) == v.NDims()
		for d, ix := range idx {
			i, err := ix(ctx, row)
			if err != nil {
				return types.Null, err
			}
			if !ok || i.IsNull() {
				ok = false
				continue
			}
			n := i.Int()
			if n < 1 || n > int64(v.DimLen(d)) {
				ok = false
				continue
			}
			off = off*v.DimLen(d) + int(n-1)
		}
		if !ok {
			return types.Null, nil
		}
		return v.Elems[off], nil
	}, nil
}

func compileSlice(e *Slice) (Evaluator, error) {
	arr, err := Compile(e.Arr)
	if err != nil {
		return nil, err
	}
	bound := func(bs []Expr) ([]Evaluator, error) {
		out := make([]Evaluator, len(bs))
		for i, b := range bs {
			if b != nil {
				if out[i], err = Compile(b); err != nil {
					return nil, err
				}
			}
		}
		return out, nil
	}
	lo, err := bound(e.Lower)
	if err != nil {
		return nil, err
	}
	hi, err := bound(e.Upper)
	if err != nil {
		return nil, err
	}
	return func(ctx *EvalContext, row types.Row) (types.Datum, error) {
		a, err := arr(ctx, row)
		if err != nil || a.IsNull() {
			return types.Null, err
		}
		v := a.Array()
		// Bounds are evaluated even when the result is known to be
		// empty: a NULL bound makes it NULL.
		los, his := make([]int64, len(lo)), make([]int64, len(hi))
		for d := range lo {
			for _, b := range [2]struct {
				ev  Evaluator
				out *int64
				def int64
			}{{lo[d], &los[d], 1}, {hi[d], &his[d], 0}} {
				if b.ev == nil {
					*b.out = b.def
					continue
				}
				x, err := b.ev(ctx, row)
				if err != nil || x.IsNull() {
					return types.Null, err
				}
				*b.out = x.Int()
			}
		}
		empty := types.NewArray(&types.ArrayValue{Elem: v.Elem})
		if len(lo) > v.NDims() {
			return empty, nil
		}
		lens := v.Lengths()
		from, dims := make([]int, len(lens)), make([]int32, len(lens))
		for d, n := range lens {
			l, h := int64(1), int64(n)
			if d < len(lo) {
				l = max(los[d], 1)
				if hi[d] != nil {
					h = min(his[d], int64(n))
				}
			}
			if l > h {
				return empty, nil
			}
			from[d], dims[d] = int(l-1), int32(h-l+1)
		}
		var elems []types.Datum
		sliceElems(v.Elems, lens, from, dims, 0, 0, &elems)
		out, err := types.NewArrayDims(v.Elem, elems, dims)
		if err != nil {
			return types.Null, err
		}
		return types.NewArray(out), nil
	}, nil
}

// sliceElems appends the elements of the slice starting at from with
// lengths dims, of an array of lengths lens, from dimension d on; off is
// the flat offset of the sub-array of dimension d being read.
func sliceElems(src []types.Datum, lens []int32, from []int, dims []int32, d, off int, out *[]types.Datum) {
	stride := 1
	for _, n := range lens[d+1:] {
		stride *= int(n)
	}
	for i := from[d]; i < from[d]+int(dims[d]); i++ {
		if d == len(lens)-1 {
			*out = append(*out, src[off+i])
			continue
		}
		sliceElems(src, lens, from, dims, d+1, off+i*stride, out)
	}
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
