package scalar

import (
	"slices"
	"strconv"
	"strings"

	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/types"
)

// jsonb_set(target, path, new_value[, create_missing]) replaces the value
// at path, or adds it when only the last step is missing and
// create_missing (default true) is set; array steps are integers counting
// from the end when negative, and a missing array position prepends or
// appends. Paths through scalars change nothing.

func setPath(v types.JSONValue, path []types.Datum, pos int, nv types.JSONValue, create bool) (types.JSONValue, error) {
	if len(path) == 0 {
		return nv, nil
	}
	last := len(path) == 1
	step := path[0]
	if step.IsNull() {
		return v, pgerr.New(pgerr.NullValueNotAllowed, "path element at position %d is null", pos)
	}
	switch v.Kind {
	case types.JSONObject:
		i := slices.IndexFunc(v.Pairs, func(p types.JSONPair) bool { return p.Key == step.Str() })
		if i < 0 {
			if !last || !create {
				return v, nil
			}
			pairs := append(slices.Clone(v.Pairs), types.JSONPair{Key: step.Str(), Value: nv})
			return makeObject(pairs), nil
		}
		child, err := setPath(v.Pairs[i].Value, path[1:], pos+1, nv, create)
		if err != nil {
			return v, err
		}
		pairs := slices.Clone(v.Pairs)
		pairs[i].Value = child
		return types.JSONValue{Kind: types.JSONObject, Pairs: pairs}, nil
	case types.JSONArray:
		idx, err := strconv.Atoi(strings.TrimSpace(step.Str()))
		if err != nil {
			return v, pgerr.New(pgerr.InvalidTextRepresentation, "path element at position %d is not an integer: \"%s\"", pos, step.Str())
		}
		n := len(v.Elems)
		if idx < 0 {
			idx += n
		}
		if idx < 0 || idx >= n {
			if !last || !create {
				return v, nil
			}
			if idx < 0 {
				return types.JSONValue{Kind: types.JSONArray, Elems: append([]types.JSONValue{nv}, v.Elems...)}, nil
			}
			return types.JSONValue{Kind: types.JSONArray, Elems: append(slices.Clone(v.Elems), nv)}, nil
		}
		child, err := setPath(v.Elems[idx], path[1:], pos+1, nv, create)
		if err != nil {
			return v, err
		}
		elems := slices.Clone(v.Elems)
		elems[idx] = child
		return types.JSONValue{Kind: types.JSONArray, Elems: elems}, nil
	}
	return v, nil
}

func jsonbSet(_ *EvalContext, a []types.Datum) (types.Datum, error) {
	v, err := parseJSONDatum(a[0])
	if err != nil {
		return types.Null, err
	}
	nv, err := parseJSONDatum(a[2])
	if err != nil {
		return types.Null, err
	}
	if v.Kind != types.JSONObject && v.Kind != types.JSONArray {
		return types.Null, pgerr.New(pgerr.InvalidParameterValue, "cannot set path in scalar")
	}
	create := len(a) < 4 || a[3].Bool()
	r, err := setPath(v, a[1].Array().Elems, 1, nv, create)
	if err != nil {
		return types.Null, err
	}
	return jsonDatum(r, types.JSONB), nil
}

func init() {
	addFunc(
		strict("jsonb_set", ts(jsonbT, textArr, jsonbT), jsonbT, jsonbSet),
		strict("jsonb_set", ts(jsonbT, textArr, jsonbT, boolT), jsonbT, jsonbSet),
	)
}
