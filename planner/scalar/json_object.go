package scalar

import (
	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/types"
)

// jsonb_object and json_object build an object from text arrays: one
// array of alternating keys and values, or an array of keys and one of
// values. Every value is a JSON string (or null); a NULL key is an error.
// jsonb keeps the last of duplicate keys and orders them as jsonb does;
// json keeps the pairs as given.

// jsonObjectFromArrays builds the pairs of keys[i]: vals[i].
func jsonObjectFromArrays(keys, vals []types.Datum) ([]types.JSONPair, error) {
	pairs := make([]types.JSONPair, len(keys))
	for i, k := range keys {
		if k.IsNull() {
			return nil, pgerr.New(pgerr.NullValueNotAllowed, "null value not allowed for object key")
		}
		pairs[i].Key = k.Str()
		pairs[i].Value = types.JSONValue{Kind: types.JSONNull}
		if !vals[i].IsNull() {
			pairs[i].Value = types.JSONValue{Kind: types.JSONString, Str: vals[i].Str()}
		}
	}
	return pairs, nil
}

func jsonObjectDatum(pairs []types.JSONPair, f types.Family) types.Datum {
	if f == types.JSONB {
		return jsonDatum(makeObject(pairs), f)
	}
	return jsonDatum(types.JSONValue{Kind: types.JSONObject, Pairs: pairs}, f)
}

// jsonObjectPairs is jsonb_object(text[]): keys and values alternate.
func jsonObjectPairs(f types.Family) Impl {
	return func(_ *EvalContext, a []types.Datum) (types.Datum, error) {
		elems := a[0].Array().Elems
		if len(elems)%2 != 0 {
			return types.Null, pgerr.New(pgerr.ArraySubscriptError, "array must have even number of elements")
		}
		keys := make([]types.Datum, 0, len(elems)/2)
		vals := make([]types.Datum, 0, len(elems)/2)
		for i := 0; i < len(elems); i += 2 {
			keys, vals = append(keys, elems[i]), append(vals, elems[i+1])
		}
		pairs, err := jsonObjectFromArrays(keys, vals)
		if err != nil {
			return types.Null, err
		}
		return jsonObjectDatum(pairs, f), nil
	}
}

// jsonObjectKeysValues is jsonb_object(keys text[], values text[]).
func jsonObjectKeysValues(f types.Family) Impl {
	return func(_ *EvalContext, a []types.Datum) (types.Datum, error) {
		keys, vals := a[0].Array().Elems, a[1].Array().Elems
		if (len(keys) == 0) != (len(vals) == 0) {
			return types.Null, pgerr.New(pgerr.ArraySubscriptError, "wrong number of array subscripts")
		}
		if len(keys) != len(vals) {
			return types.Null, pgerr.New(pgerr.ArraySubscriptError, "mismatched array dimensions")
		}
		pairs, err := jsonObjectFromArrays(keys, vals)
		if err != nil {
			return types.Null, err
		}
		return jsonObjectDatum(pairs, f), nil
	}
}

func init() {
	for _, f := range []types.Type{jsonbT, jsonT} {
		name := "jsonb_object"
		if f.Family == types.JSON {
			name = "json_object"
		}
		addFunc(
			strict(name, ts(textArr), f, jsonObjectPairs(f.Family)),
			strict(name, ts(textArr, textArr), f, jsonObjectKeysValues(f.Family)),
		)
	}
}
