package scalar

import (
	"slices"
	"strings"

	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/types"
)

// Array functions. Arrays have lower bounds of 1 (the only arrays
// types.ArrayValue represents); the functions that work on one dimension
// only refuse a multidimensional array as PostgreSQL does, the others
// (cardinality, @>, unnest, array_to_string...) see its elements in
// storage order. array_dims.go holds the functions of dimensions.

func arrayOf(elem types.Type, elems []types.Datum) types.Datum {
	return types.NewArray(&types.ArrayValue{Elem: elem, Elems: elems})
}

func elemsOf(d types.Datum) []types.Datum {
	if d.IsNull() {
		return nil
	}
	return d.Array().Elems
}

// arrayFunc builds an array function overload; non-strict ones treat a
// NULL array argument as empty, as PostgreSQL's array_append and friends
// do.
func arrayFunc(name string, params []types.Type, ret types.Type, strictFn bool, impl Impl) *Func {
	return &Func{Name: name, Params: params, Ret: ret, Strict: strictFn, Impl: impl}
}

func arrayPosition(_ *EvalContext, a []types.Datum) (types.Datum, error) {
	if a[0].IsNull() {
		return types.Null, nil
	}
	if err := searchable(a[0]); err != nil {
		return types.Null, err
	}
	start := 1
	if len(a) > 2 {
		if a[2].IsNull() {
			return types.Null, pgerr.New(pgerr.NullValueNotAllowed, "initial position must not be null")
		}
		start = int(a[2].Int())
	}
	for i, e := range elemsOf(a[0]) {
		if i+1 < start {
			continue
		}
		if e.IsNull() && a[1].IsNull() || !e.IsNull() && !a[1].IsNull() && types.Compare(e, a[1]) == 0 {
			return int4Of(i + 1), nil
		}
	}
	return types.Null, nil
}

func arrayPositions(_ *EvalContext, a []types.Datum) (types.Datum, error) {
	if a[0].IsNull() {
		return types.Null, nil
	}
	if err := searchable(a[0]); err != nil {
		return types.Null, err
	}
	out := []types.Datum{}
	for i, e := range elemsOf(a[0]) {
		if e.IsNull() && a[1].IsNull() || !e.IsNull() && !a[1].IsNull() && types.Compare(e, a[1]) == 0 {
			out = append(out, int4Of(i+1))
		}
	}
	return arrayOf(int4T, out), nil
}

func init() {
	addFunc(
		strict("cardinality", ts(AnyArray), int4T, func(_ *EvalContext, a []types.Datum) (types.Datum, error) {
			return int4Of(len(a[0].Array().Elems)), nil
		}),
		arrayFunc("array_position", ts(AnyCompatibleArray, AnyCompatible), int4T, false, arrayPosition),
		arrayFunc("array_position", ts(AnyCompatibleArray, AnyCompatible, int4T), int4T, false, arrayPosition),
		arrayFunc("array_positions", ts(AnyCompatibleArray, AnyCompatible), types.ArrayOf(int4T), false, arrayPositions),
		arrayFunc("array_append", ts(AnyCompatibleArray, AnyCompatible), AnyCompatibleArray, false, func(_ *EvalContext, a []types.Datum) (types.Datum, error) {
			if err := oneDimensional(a[0]); err != nil {
				return types.Null, err
			}
			elems := append(append([]types.Datum(nil), elemsOf(a[0])...), a[1])
			return arrayOf(elemTypeOf(a[0], a[1]), elems), nil
		}),
		arrayFunc("array_prepend", ts(AnyCompatible, AnyCompatibleArray), AnyCompatibleArray, false, func(_ *EvalContext, a []types.Datum) (types.Datum, error) {
			if err := oneDimensional(a[1]); err != nil {
				return types.Null, err
			}
			elems := append([]types.Datum{a[0]}, elemsOf(a[1])...)
			return arrayOf(elemTypeOf(a[1], a[0]), elems), nil
		}),
		arrayFunc("array_cat", ts(AnyCompatibleArray, AnyCompatibleArray), AnyCompatibleArray, false, arrayCat),
		arrayFunc("array_remove", ts(AnyCompatibleArray, AnyCompatible), AnyCompatibleArray, false, func(_ *EvalContext, a []types.Datum) (types.Datum, error) {
			if a[0].IsNull() {
				return types.Null, nil
			}
			if a[0].Array().Dims != nil {
				return types.Null, pgerr.New(pgerr.FeatureNotSupported, "removing elements from multidimensional arrays is not supported")
			}
			out := []types.Datum{}
			for _, e := range elemsOf(a[0]) {
				if !(e.IsNull() && a[1].IsNull() || !e.IsNull() && !a[1].IsNull() && types.Compare(e, a[1]) == 0) {
					out = append(out, e)
				}
			}
			return arrayOf(a[0].Array().Elem, out), nil
		}),
		arrayFunc("array_replace", ts(AnyCompatibleArray, AnyCompatible, AnyCompatible), AnyCompatibleArray, false, func(_ *EvalContext, a []types.Datum) (types.Datum, error) {
			if a[0].IsNull() {
				return types.Null, nil
			}
			out := make([]types.Datum, len(elemsOf(a[0])))
			for i, e := range elemsOf(a[0]) {
				if e.IsNull() && a[1].IsNull() || !e.IsNull() && !a[1].IsNull() && types.Compare(e, a[1]) == 0 {
					e = a[2]
				}
				out[i] = e
			}
			return types.NewArray(a[0].Array().WithElems(a[0].Array().Elem, out)), nil
		}),
		&Func{Name: "array_to_string", Params: ts(AnyArray, textT), Ret: textT, Strict: true, Volatility: Stable, Impl: arrayToString},
		&Func{Name: "array_to_string", Params: ts(AnyArray, textT, textT), Ret: textT, Volatility: Stable, Impl: func(ctx *EvalContext, a []types.Datum) (types.Datum, error) {
			if a[0].IsNull() || a[1].IsNull() {
				return types.Null, nil
			}
			return arrayToString(ctx, a)
		}},
		&Func{Name: "string_to_array", Params: ts(textT, textT), Ret: textArr, Impl: stringToArray},
		&Func{Name: "string_to_array", Params: ts(textT, textT, textT), Ret: textArr, Impl: stringToArray},
	)
	addOp(
		arrayFunc("||", ts(AnyCompatibleArray, AnyCompatibleArray), AnyCompatibleArray, false, arrayCat),
		arrayFunc("||", ts(AnyCompatibleArray, AnyCompatible), AnyCompatibleArray, false, func(ctx *EvalContext, a []types.Datum) (types.Datum, error) {
			return lib.funcs["array_append"][0].Impl(ctx, a)
		}),
		arrayFunc("||", ts(AnyCompatible, AnyCompatibleArray), AnyCompatibleArray, false, func(ctx *EvalContext, a []types.Datum) (types.Datum, error) {
			return lib.funcs["array_prepend"][0].Impl(ctx, a)
		}),
		strict("@>", ts(AnyCompatibleArray, AnyCompatibleArray), boolT, arrayContains(false)),
		strict("<@", ts(AnyCompatibleArray, AnyCompatibleArray), boolT, arrayContains(true)),
		strict("&&", ts(AnyCompatibleArray, AnyCompatibleArray), boolT, arrayOverlap),
	)
}

// elemTypeOf returns the element type for a result built from arr and x.
func elemTypeOf(arr, x types.Datum) types.Type {
	if !arr.IsNull() {
		return arr.Array().Elem
	}
	return types.Type{Family: x.Kind(), Mod: -1}
}

// arrayCat is array_cat (||): arrays of as many dimensions join along
// the first, and an array of one dimension less becomes the first or the
// last slice of the other, whose other dimensions it must match.
func arrayCat(_ *EvalContext, a []types.Datum) (types.Datum, error) {
	switch {
	case a[0].IsNull():
		return a[1], nil
	case a[1].IsNull():
		return a[0], nil
	}
	x, y := a[0].Array(), a[1].Array()
	switch {
	case len(x.Elems) == 0:
		return a[1], nil
	case len(y.Elems) == 0:
		return a[0], nil
	}
	xd, yd := x.Lengths(), y.Lengths()
	incompatible := func(detail string, args ...any) error {
		return pgerr.New(pgerr.ArraySubscriptError, "cannot concatenate incompatible arrays").WithDetail(detail, args...)
	}
	var dims []int32
	switch len(xd) - len(yd) {
	case 0:
		if !slices.Equal(xd[1:], yd[1:]) {
			return types.Null, incompatible("Arrays with differing element dimensions are not compatible for concatenation.")
		}
		dims = append([]int32{xd[0] + yd[0]}, xd[1:]...)
	case -1:
		if !slices.Equal(xd, yd[1:]) {
			return types.Null, incompatible("Arrays with differing dimensions are not compatible for concatenation.")
		}
		dims = append([]int32{yd[0] + 1}, yd[1:]...)
	case 1:
		if !slices.Equal(xd[1:], yd) {
			return types.Null, incompatible("Arrays with differing dimensions are not compatible for concatenation.")
		}
		dims = append([]int32{xd[0] + 1}, xd[1:]...)
	default:
		return types.Null, incompatible("Arrays of %d and %d dimensions are not compatible for concatenation.", len(xd), len(yd))
	}
	elems := append(append([]types.Datum(nil), x.Elems...), y.Elems...)
	out, err := types.NewArrayDims(x.Elem, elems, dims)
	if err != nil {
		return types.Null, err
	}
	return types.NewArray(out), nil
}

// arrayContains is @> (and <@ swapped): every non-NULL element of the
// second array equals some element of the first; NULL elements never
// match.
func arrayContains(swap bool) Impl {
	return func(_ *EvalContext, a []types.Datum) (types.Datum, error) {
		x, y := elemsOf(a[0]), elemsOf(a[1])
		if swap {
			x, y = y, x
		}
		for _, e := range y {
			if e.IsNull() || !containsDatum(x, e) {
				return types.DFalse, nil
			}
		}
		return types.DTrue, nil
	}
}

func containsDatum(elems []types.Datum, d types.Datum) bool {
	for _, e := range elems {
		if !e.IsNull() && types.Compare(e, d) == 0 {
			return true
		}
	}
	return false
}

func arrayOverlap(_ *EvalContext, a []types.Datum) (types.Datum, error) {
	for _, e := range elemsOf(a[1]) {
		if !e.IsNull() && containsDatum(elemsOf(a[0]), e) {
			return types.DTrue, nil
		}
	}
	return types.DFalse, nil
}

func arrayToString(ctx *EvalContext, a []types.Datum) (types.Datum, error) {
	arr := a[0].Array()
	var b strings.Builder
	first := true
	for _, e := range arr.Elems {
		var s string
		switch {
		case !e.IsNull():
			s = textOf(ctx, e, arr.Elem)
		case len(a) > 2 && !a[2].IsNull():
			s = a[2].Str()
		default:
			continue
		}
		if !first {
			b.WriteString(a[1].Str())
		}
		first = false
		b.WriteString(s)
	}
	return types.NewText(b.String()), nil
}

// stringToArray splits on a delimiter (NULL: into characters; empty: the
// whole string), turning elements equal to the null string into NULLs.
func stringToArray(_ *EvalContext, a []types.Datum) (types.Datum, error) {
	if a[0].IsNull() {
		return types.Null, nil
	}
	s := a[0].Str()
	var parts []string
	switch {
	case s == "":
	case a[1].IsNull():
		for _, r := range s {
			parts = append(parts, string(r))
		}
	case a[1].Str() == "":
		parts = []string{s}
	default:
		parts = strings.Split(s, a[1].Str())
	}
	elems := make([]types.Datum, len(parts))
	for i, p := range parts {
		if len(a) > 2 && !a[2].IsNull() && p == a[2].Str() {
			continue
		}
		elems[i] = types.NewText(p)
	}
	return arrayOf(textT, elems), nil
}
