package scalar

import (
	"github.com/streamdb/streamdb/types"
)

// appendToJSON prints d as to_json and array_to_json do (datum_to_json):
// arrays as nested JSON arrays without spaces, one level per dimension,
// records as objects without spaces, json values as they are, jsonb in its output form, and scalars as
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
	case types.Record:
		return appendRecordJSON(dst, d.Record(), false, cfg)
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

// jsonBuildArrayText is json_build_array: the values as to_json prints
// them, separated by ", ".
func jsonBuildArrayText(a []types.Datum, argT []types.Type, cfg *types.TextConfig) (types.Datum, error) {
	b := []byte{'['}
	var err error
	for i, d := range a {
		if i > 0 {
			b = append(b, ", "...)
		}
		if b, err = appendToJSON(b, d, argT[i], cfg); err != nil {
			return types.Null, err
		}
	}
	return types.NewString(types.JSON, string(append(b, ']'))), nil
}

// appendBuildPair appends one key and value of json_build_object:
// "key" : value, after ", " unless first.
func appendBuildPair(dst []byte, key string, v types.Datum, t types.Type, cfg *types.TextConfig) ([]byte, error) {
	if len(dst) > 0 {
		dst = append(dst, ", "...)
	}
	dst = types.AppendJSONString(dst, key)
	dst = append(dst, " : "...)
	return appendToJSON(dst, v, t, cfg)
}

// jsonAggText is json_agg: the values as to_json prints them, separated
// by ", ", with a line break before each array or record after the
// first, as PostgreSQL's json_agg_transfn writes them.
func jsonAggText(t types.Type, m *multiset) (types.Datum, error) {
	b := []byte{'['}
	var err error
	any := false
	m.each(func(args []types.Datum, n int64) bool {
		for ; n > 0; n-- {
			if any {
				b = append(b, ", "...)
				if k := args[0].Kind(); k == types.Array || k == types.Record {
					b = append(b, "\n "...)
				}
			}
			any = true
			if b, err = appendToJSON(b, args[0], t, nil); err != nil {
				return false
			}
		}
		return true
	})
	if err != nil || !any {
		return types.Null, err
	}
	return types.NewString(types.JSON, string(append(b, ']'))), nil
}
