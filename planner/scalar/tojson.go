package scalar

import (
	"github.com/streamdb/streamdb/types"
)

// appendToJSON prints d as to_json and array_to_json do (datum_to_json):
// arrays as nested JSON arrays without spaces, one level per dimension,
// json values as they are, jsonb in its output form, and scalars as
// to_jsonb converts them.
func appendToJSON(dst []byte, d types.Datum, t types.Type, cfg *types.TextConfig) ([]byte, error) {
	switch d.Kind() {
	case types.Unknown:
		return append(dst, "null"...), nil
	case types.JSON, types.JSONB:
		return append(dst, d.Str()...), nil
	case types.Array:
		a := d.Array()
		return appendJSONArray(dst, a, a.Lengths(), a.Elems, ",", cfg)
	}
	v, err := toJSONValue(d, t, cfg)
	if err != nil {
		return dst, err
	}
	return types.AppendJSONB(dst, v), nil
}

// appendJSONArray prints the elements of an array of the given lengths,
// sep between those of the first dimension (array_to_json's pretty form
// breaks lines there only).
func appendJSONArray(dst []byte, a *types.ArrayValue, lens []int32, elems []types.Datum, sep string, cfg *types.TextConfig) ([]byte, error) {
	dst = append(dst, '[')
	var err error
	if len(lens) <= 1 {
		for i, e := range elems {
			if i > 0 {
				dst = append(dst, sep...)
			}
			if dst, err = appendToJSON(dst, e, a.Elem, cfg); err != nil {
				return dst, err
			}
		}
		return append(dst, ']'), nil
	}
	n := len(elems) / int(lens[0])
	for i := range int(lens[0]) {
		if i > 0 {
			dst = append(dst, sep...)
		}
		if dst, err = appendJSONArray(dst, a, lens[1:], elems[i*n:(i+1)*n], ",", cfg); err != nil {
			return dst, err
		}
	}
	return append(dst, ']'), nil
}

func init() {
	arrayToJSON := func(ctx *EvalContext, a []types.Datum) (types.Datum, error) {
		sep := ","
		if len(a) > 1 && a[1].Bool() {
			sep = ",\n "
		}
		arr := a[0].Array()
		b, err := appendJSONArray(nil, arr, arr.Lengths(), arr.Elems, sep, ctx.textConfig())
		if err != nil {
			return types.Null, err
		}
		return types.NewString(types.JSON, string(b)), nil
	}
	addFunc(
		&Func{Name: "array_to_json", Params: ts(AnyArray), Ret: jsonT, Strict: true, Volatility: Stable, Impl: arrayToJSON},
		&Func{Name: "array_to_json", Params: ts(AnyArray, boolT), Ret: jsonT, Strict: true, Volatility: Stable,
			Impl: arrayToJSON},
	)
}
