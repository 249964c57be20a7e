package scalar

import (
	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/types"
)

// jsonKey is the object key a value makes in json_build_object,
// jsonb_build_object and the json object aggregates: the text the value
// would have as a JSON scalar (true, not t; 2020-01-01T10:00:00 for a
// timestamp), and an error for arrays and json values, which PostgreSQL
// refuses as keys (datum_to_json's key_scalar).
func jsonKey(d types.Datum, t types.Type, cfg *types.TextConfig) (string, error) {
	switch d.Kind() {
	case types.Array, types.JSON, types.JSONB:
		return "", pgerr.New(pgerr.InvalidParameterValue, "key value must be scalar, not array, composite, or json")
	case types.Bool:
		if d.Bool() {
			return "true", nil
		}
		return "false", nil
	case types.Int2, types.Int4, types.Int8, types.Oid, types.Float4, types.Float8, types.Numeric:
		return datumText(d, t, cfg), nil
	}
	v, err := toJSONValue(d, t, cfg)
	if err != nil {
		return "", err
	}
	if v.Kind == types.JSONString {
		return v.Str, nil
	}
	return datumText(d, t, cfg), nil
}

// appendJSONObjectAgg prints json_object_agg's result as PostgreSQL
// does, "{ "k" : v, … }" with the pairs in input order, duplicates kept.
func appendJSONObjectAgg(dst []byte, pairs []types.JSONPair) []byte {
	dst = append(dst, "{ "...)
	for i := range pairs {
		if i > 0 {
			dst = append(dst, ", "...)
		}
		dst = types.AppendJSONString(dst, pairs[i].Key)
		dst = append(dst, " : "...)
		dst = appendJSONText(dst, pairs[i].Value)
	}
	return append(dst, " }"...)
}
