package scalar

import (
	"slices"

	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/types"
)

// The functions of an array's dimensions, and the checks of functions
// that take one-dimensional arrays only.

// oneDimensional refuses a multidimensional array where array_append and
// array_prepend take one dimension (a NULL or empty array is fine).
func oneDimensional(d types.Datum) error {
	if !d.IsNull() && d.Array().Dims != nil {
		return pgerr.New(pgerr.DataException, "argument must be empty or one-dimensional array")
	}
	return nil
}

// searchable refuses a multidimensional array where array_position and
// array_positions search.
func searchable(d types.Datum) error {
	if d.Array().Dims != nil {
		return pgerr.New(pgerr.FeatureNotSupported, "searching for elements in multidimensional arrays is not supported")
	}
	return nil
}

// dimLength is array_length(a, d) and array_upper(a, d): the length of
// dimension d (from 1), NULL for a dimension the array does not have.
func dimLength(_ *EvalContext, a []types.Datum) (types.Datum, error) {
	arr, d := a[0].Array(), a[1].Int()
	if d < 1 || d > int64(arr.NDims()) {
		return types.Null, nil
	}
	return int4Of(arr.DimLen(int(d - 1))), nil
}

// arrayFill is array_fill(value, dims [, lbounds]): an array of the given
// lengths holding value everywhere.
func arrayFill(_ *EvalContext, a []types.Datum) (types.Datum, error) {
	if a[1].IsNull() || len(a) > 2 && a[2].IsNull() {
		return types.Null, pgerr.New(pgerr.NullValueNotAllowed, "dimension array or low bound array cannot be null")
	}
	dims := a[1].Array()
	if dims.NDims() > 1 {
		return types.Null, pgerr.New(pgerr.ArraySubscriptError, "wrong number of array subscripts").
			WithDetail("Dimension array must be one dimensional.")
	}
	lens := make([]int32, len(dims.Elems))
	n := 1
	for i, e := range dims.Elems {
		if e.IsNull() {
			return types.Null, pgerr.New(pgerr.NullValueNotAllowed, "dimension values cannot be null")
		}
		if e.Int() < 0 {
			return types.Null, pgerr.New(pgerr.ArraySubscriptError, "array size exceeds the maximum allowed (%d)", 134217727)
		}
		lens[i] = int32(e.Int())
		n *= int(lens[i])
		if n > 134217727 {
			return types.Null, pgerr.New(pgerr.ProgramLimitExceeded, "array size exceeds the maximum allowed (%d)", 134217727)
		}
	}
	if len(a) > 2 {
		lbs := a[2].Array()
		if lbs.NDims() > 1 || len(lbs.Elems) != len(lens) {
			return types.Null, pgerr.New(pgerr.ArraySubscriptError, "wrong number of array subscripts").
				WithDetail("Low bound array has different size than dimensions array.")
		}
		for _, e := range lbs.Elems {
			if e.IsNull() {
				return types.Null, pgerr.New(pgerr.NullValueNotAllowed, "dimension values cannot be null")
			}
			if e.Int() != 1 {
				return types.Null, types.ErrArrayBounds()
			}
		}
	}
	if len(lens) == 0 {
		n = 0
	}
	elems := make([]types.Datum, n)
	for i := range elems {
		elems[i] = a[0]
	}
	out, err := types.NewArrayDims(types.Type{Family: a[0].Kind(), Mod: -1}, elems, lens)
	if err != nil {
		return types.Null, err
	}
	return types.NewArray(out), nil
}

func init() {
	addFunc(
		strict("array_length", ts(AnyArray, int4T), int4T, dimLength),
		strict("array_upper", ts(AnyArray, int4T), int4T, dimLength),
		strict("array_lower", ts(AnyArray, int4T), int4T, func(_ *EvalContext, a []types.Datum) (types.Datum, error) {
			if d := a[1].Int(); d < 1 || d > int64(a[0].Array().NDims()) {
				return types.Null, nil
			}
			return int4Of(1), nil
		}),
		strict("array_ndims", ts(AnyArray), int4T, func(_ *EvalContext, a []types.Datum) (types.Datum, error) {
			if n := a[0].Array().NDims(); n > 0 {
				return int4Of(n), nil
			}
			return types.Null, nil
		}),
		strict("array_dims", ts(AnyArray), textT, func(_ *EvalContext, a []types.Datum) (types.Datum, error) {
			if a[0].Array().NDims() == 0 {
				return types.Null, nil
			}
			return types.NewText(string(a[0].Array().AppendDims(nil))), nil
		}),
		&Func{Name: "array_fill", Params: ts(AnyElement, types.ArrayOf(int4T)), Ret: AnyArray, Impl: arrayFill},
		&Func{Name: "array_fill", Params: ts(AnyElement, types.ArrayOf(int4T), types.ArrayOf(int4T)), Ret: AnyArray, Impl: arrayFill},
	)
	addAgg(orderedAgg("array_agg", ts(AnyArray), AnyArray, false, arrayAggArrays))
}

// arrayAggArrays is array_agg over arrays: a multidimensional array with
// one slice per input array, which must all have the same dimensions and
// be neither NULL nor empty.
func arrayAggArrays(p []types.Type, _ types.Type, m *multiset) (types.Datum, error) {
	var subs []types.Datum
	var err error
	m.each(func(args []types.Datum, n int64) bool {
		switch {
		case args[0].IsNull():
			err = pgerr.New(pgerr.NullValueNotAllowed, "cannot accumulate null arrays")
		case len(args[0].Array().Elems) == 0:
			err = pgerr.New(pgerr.ArraySubscriptError, "cannot accumulate empty arrays")
		case len(subs) > 0 && args[0].Array().NDims() != subs[0].Array().NDims():
			err = pgerr.New(pgerr.ArraySubscriptError, "cannot accumulate arrays of different dimensionality")
		}
		for ; n > 0 && err == nil; n-- {
			subs = append(subs, args[0])
		}
		return err == nil
	})
	switch {
	case err != nil:
		return types.Null, err
	case subs == nil:
		return types.Null, nil
	}
	for _, s := range subs[1:] {
		if !slices.Equal(s.Array().Lengths(), subs[0].Array().Lengths()) {
			return types.Null, pgerr.New(pgerr.ArraySubscriptError, "cannot accumulate arrays of different dimensionality")
		}
	}
	if subs[0].Array().NDims()+1 > types.MaxArrayDims {
		return types.Null, types.ErrArrayDims(subs[0].Array().NDims() + 1)
	}
	return stackArrays(p[0].ElemType(), subs)
}
