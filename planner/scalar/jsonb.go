package scalar

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"github.com/cockroachdb/apd/v3"
	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/types"
)

// JSON and JSONB functions and operators work on types.JSONValue: a jsonb
// Datum holds canonical text, parsed on use; json Datums keep their input
// text and are parsed the same way (their key order and duplicates only
// matter for output, which these functions do not echo back for json
// except through ->>).

var (
	jsonbT  = types.TypeJSONB
	jsonT   = types.TypeJSON
	textArr = types.ArrayOf(types.TypeText)
)

func parseJSONDatum(d types.Datum) (types.JSONValue, error) { return types.ParseJSON(d.Str()) }

// jsonDatum wraps a value as a jsonb or json Datum.
func jsonDatum(v types.JSONValue, f types.Family) types.Datum {
	if f == types.JSON {
		return types.NewString(types.JSON, string(appendJSONText(nil, v)))
	}
	return types.NewString(types.JSONB, types.FormatJSONB(v))
}

// appendJSONText prints a value built by the json functions as
// PostgreSQL's json builders do: `{"a" : 1}` and `[1, 2]`.
func appendJSONText(dst []byte, v types.JSONValue) []byte {
	switch v.Kind {
	case types.JSONArray:
		dst = append(dst, '[')
		for i := range v.Elems {
			if i > 0 {
				dst = append(dst, ", "...)
			}
			dst = appendJSONText(dst, v.Elems[i])
		}
		return append(dst, ']')
	case types.JSONObject:
		dst = append(dst, '{')
		for i := range v.Pairs {
			if i > 0 {
				dst = append(dst, ", "...)
			}
			dst = types.AppendJSONString(dst, v.Pairs[i].Key)
			dst = append(dst, " : "...)
			dst = appendJSONText(dst, v.Pairs[i].Value)
		}
		return append(dst, '}')
	}
	return types.AppendJSONB(dst, v)
}

func errNullKey() error {
	return pgerr.New(pgerr.InvalidParameterValue, "field name must not be null")
}

// makeObject orders pairs as jsonb stores them (keys by length, then
// bytes) keeping the last of duplicate keys.
func makeObject(pairs []types.JSONPair) types.JSONValue {
	slices.SortStableFunc(pairs, func(a, b types.JSONPair) int {
		if c := cmp.Compare(len(a.Key), len(b.Key)); c != 0 {
			return c
		}
		return strings.Compare(a.Key, b.Key)
	})
	out := pairs[:0]
	for i, p := range pairs {
		if i+1 < len(pairs) && pairs[i+1].Key == p.Key {
			continue
		}
		out = append(out, p)
	}
	return types.JSONValue{Kind: types.JSONObject, Pairs: out}
}

// toJSONValue converts a SQL value as to_jsonb does: numbers and booleans
// map to JSON ones, json values are embedded, arrays become JSON arrays,
// dates and timestamps ISO 8601 strings, everything else its text.
func toJSONValue(d types.Datum, t types.Type, cfg *types.TextConfig) (types.JSONValue, error) {
	if d.IsNull() {
		return types.JSONValue{Kind: types.JSONNull}, nil
	}
	switch d.Kind() {
	case types.Bool:
		return types.JSONValue{Kind: types.JSONBool, Bool: d.Bool()}, nil
	case types.Int2, types.Int4, types.Int8, types.Oid:
		return types.JSONValue{Kind: types.JSONNumber, Num: apd.New(d.Int(), 0)}, nil
	case types.Float4, types.Float8, types.Numeric:
		s := datumText(d, t, cfg)
		n, _, err := apd.NewFromString(s)
		if err != nil || n.Form != apd.Finite {
			return types.JSONValue{Kind: types.JSONString, Str: s}, nil
		}
		return types.JSONValue{Kind: types.JSONNumber, Num: n}, nil
	case types.JSON, types.JSONB:
		return parseJSONDatum(d)
	case types.Array:
		a := d.Array()
		elems := make([]types.JSONValue, len(a.Elems))
		for i, e := range a.Elems {
			ev, err := toJSONValue(e, a.Elem, cfg)
			if err != nil {
				return types.JSONValue{}, err
			}
			elems[i] = ev
		}
		return nestJSON(elems, a.Lengths()), nil
	case types.Timestamp, types.TimestampTZ, types.Date:
		return types.JSONValue{Kind: types.JSONString, Str: isoText(d, cfg)}, nil
	case types.Record:
		return recordToJSON(d.Record(), cfg)
	}
	return types.JSONValue{Kind: types.JSONString, Str: datumText(d, t, cfg)}, nil
}

// isoText prints a date or timestamp as JSON does: ISO 8601 with a T.
func isoText(d types.Datum, cfg *types.TextConfig) string {
	iso := types.DefaultTextConfig()
	if cfg != nil {
		iso.Location = cfg.Location
	}
	t := types.Type{Family: d.Kind(), Mod: -1}
	s := datumText(d, t, iso)
	if d.Kind() == types.Date || isInf(d.Int()) {
		return s
	}
	s = strings.Replace(s, " ", "T", 1)
	if d.Kind() == types.TimestampTZ {
		if i := strings.LastIndexAny(s, "+-"); i > 10 && len(s)-i == 3 {
			s += ":00"
		}
	}
	return s
}

// jsonField returns v->key for objects and v->index for arrays (negative
// indexes count from the end); ok is false when there is no such member.
func jsonField(v types.JSONValue, key types.Datum) (types.JSONValue, bool) {
	if key.Kind() == types.Int4 || key.Kind() == types.Int8 {
		if v.Kind != types.JSONArray {
			return v, false
		}
		i := key.Int()
		if i < 0 {
			i += int64(len(v.Elems))
		}
		if i < 0 || i >= int64(len(v.Elems)) {
			return v, false
		}
		return v.Elems[i], true
	}
	return v.Get(key.Str())
}

// jsonPath follows a text[] path: keys into objects, integer subscripts
// into arrays.
func jsonPath(v types.JSONValue, path *types.ArrayValue) (types.JSONValue, bool) {
	for _, p := range path.Elems {
		if p.IsNull() {
			return v, false
		}
		switch v.Kind {
		case types.JSONObject:
			var ok bool
			if v, ok = v.Get(p.Str()); !ok {
				return v, false
			}
		case types.JSONArray:
			i, err := strconv.ParseInt(strings.TrimSpace(p.Str()), 10, 64)
			if err != nil {
				return v, false
			}
			var ok bool
			if v, ok = jsonField(v, types.NewInt8(i)); !ok {
				return v, false
			}
		default:
			return v, false
		}
	}
	return v, true
}

// jsonAsText is ->>'s conversion: strings unquoted, JSON null as SQL NULL.
func jsonAsText(v types.JSONValue) types.Datum {
	switch v.Kind {
	case types.JSONNull:
		return types.Null
	case types.JSONString:
		return types.NewText(v.Str)
	}
	return types.NewText(types.FormatJSONB(v))
}

func jsonGet(asText bool, f types.Family) Impl {
	return func(_ *EvalContext, a []types.Datum) (types.Datum, error) {
		v, err := parseJSONDatum(a[0])
		if err != nil {
			return types.Null, err
		}
		var r types.JSONValue
		var ok bool
		if a[1].Kind() == types.Array {
			r, ok = jsonPath(v, a[1].Array())
		} else {
			r, ok = jsonField(v, a[1])
		}
		switch {
		case !ok:
			return types.Null, nil
		case asText:
			return jsonAsText(r), nil
		}
		return jsonDatum(r, f), nil
	}
}

func jsonScalar(v types.JSONValue) bool {
	return v.Kind != types.JSONArray && v.Kind != types.JSONObject
}

func jsonbContains(swap bool) Impl {
	return func(_ *EvalContext, a []types.Datum) (types.Datum, error) {
		x, err := parseJSONDatum(a[0])
		if err != nil {
			return types.Null, err
		}
		y, err := parseJSONDatum(a[1])
		if err != nil {
			return types.Null, err
		}
		if swap {
			x, y = y, x
		}
		return types.NewBool(types.JSONContains(x, y)), nil
	}
}

// jsonHasKey is ?: a top-level key, or a string element of an array.
func jsonHasKey(v types.JSONValue, key string) bool {
	switch v.Kind {
	case types.JSONObject:
		_, ok := v.Get(key)
		return ok
	case types.JSONArray:
		for _, e := range v.Elems {
			if e.Kind == types.JSONString && e.Str == key {
				return true
			}
		}
	case types.JSONString:
		return v.Str == key
	}
	return false
}

func jsonbExists(mode byte) Impl {
	return func(_ *EvalContext, a []types.Datum) (types.Datum, error) {
		v, err := parseJSONDatum(a[0])
		if err != nil {
			return types.Null, err
		}
		if mode == '?' {
			return types.NewBool(jsonHasKey(v, a[1].Str())), nil
		}
		all := mode == '&'
		for _, k := range a[1].Array().Elems {
			if k.IsNull() {
				continue
			}
			if jsonHasKey(v, k.Str()) != all {
				return types.NewBool(!all), nil
			}
		}
		return types.NewBool(all), nil
	}
}

// jsonbConcat is jsonb || jsonb: objects merge (right wins), anything else
// concatenates as arrays, wrapping scalars.
func jsonbConcat(_ *EvalContext, a []types.Datum) (types.Datum, error) {
	x, err := parseJSONDatum(a[0])
	if err != nil {
		return types.Null, err
	}
	y, err := parseJSONDatum(a[1])
	if err != nil {
		return types.Null, err
	}
	if x.Kind == types.JSONObject && y.Kind == types.JSONObject {
		pairs := append(append([]types.JSONPair(nil), x.Pairs...), y.Pairs...)
		return jsonDatum(makeObject(pairs), types.JSONB), nil
	}
	asArr := func(v types.JSONValue) []types.JSONValue {
		if v.Kind == types.JSONArray {
			return v.Elems
		}
		return []types.JSONValue{v}
	}
	elems := append(append([]types.JSONValue(nil), asArr(x)...), asArr(y)...)
	return jsonDatum(types.JSONValue{Kind: types.JSONArray, Elems: elems}, types.JSONB), nil
}

// jsonbDelete is jsonb - text, jsonb - int and jsonb - text[].
func jsonbDelete(_ *EvalContext, a []types.Datum) (types.Datum, error) {
	v, err := parseJSONDatum(a[0])
	if err != nil {
		return types.Null, err
	}
	switch a[1].Kind() {
	case types.Int4, types.Int8:
		if jsonScalar(v) {
			return types.Null, pgerr.New(pgerr.InvalidParameterValue, "cannot delete from scalar")
		}
		if v.Kind == types.JSONObject {
			return types.Null, pgerr.New(pgerr.InvalidParameterValue, "cannot delete from object using integer index")
		}
		i := a[1].Int()
		if i < 0 {
			i += int64(len(v.Elems))
		}
		if i >= 0 && i < int64(len(v.Elems)) {
			v.Elems = slices.Delete(slices.Clone(v.Elems), int(i), int(i)+1)
		}
		return jsonDatum(v, types.JSONB), nil
	}
	if jsonScalar(v) {
		return types.Null, pgerr.New(pgerr.InvalidParameterValue, "cannot delete from scalar")
	}
	var keys []string
	if a[1].Kind() == types.Array {
		for _, k := range a[1].Array().Elems {
			if !k.IsNull() {
				keys = append(keys, k.Str())
			}
		}
	} else {
		keys = []string{a[1].Str()}
	}
	if v.Kind == types.JSONObject {
		v.Pairs = slices.DeleteFunc(slices.Clone(v.Pairs), func(p types.JSONPair) bool { return slices.Contains(keys, p.Key) })
	} else {
		v.Elems = slices.DeleteFunc(slices.Clone(v.Elems), func(e types.JSONValue) bool {
			return e.Kind == types.JSONString && slices.Contains(keys, e.Str)
		})
	}
	return jsonDatum(v, types.JSONB), nil
}

var jsonKindNames = map[types.JSONKind]string{types.JSONNull: "null", types.JSONString: "string",
	types.JSONNumber: "number", types.JSONBool: "boolean", types.JSONArray: "array", types.JSONObject: "object"}

func jsonTypeof(_ *EvalContext, a []types.Datum) (types.Datum, error) {
	v, err := parseJSONDatum(a[0])
	if err != nil {
		return types.Null, err
	}
	return types.NewText(jsonKindNames[v.Kind]), nil
}

func jsonArrayLength(_ *EvalContext, a []types.Datum) (types.Datum, error) {
	v, err := parseJSONDatum(a[0])
	if err != nil {
		return types.Null, err
	}
	switch v.Kind {
	case types.JSONArray:
		return int4Of(len(v.Elems)), nil
	case types.JSONObject:
		return types.Null, pgerr.New(pgerr.InvalidParameterValue, "cannot get array length of a non-array")
	}
	return types.Null, pgerr.New(pgerr.InvalidParameterValue, "cannot get array length of a scalar")
}

func stripNulls(v types.JSONValue) types.JSONValue {
	switch v.Kind {
	case types.JSONObject:
		out := types.JSONValue{Kind: types.JSONObject}
		for _, p := range v.Pairs {
			if p.Value.Kind != types.JSONNull {
				out.Pairs = append(out.Pairs, types.JSONPair{Key: p.Key, Value: stripNulls(p.Value)})
			}
		}
		return out
	case types.JSONArray:
		out := types.JSONValue{Kind: types.JSONArray, Elems: make([]types.JSONValue, len(v.Elems))}
		for i, e := range v.Elems {
			out.Elems[i] = stripNulls(e)
		}
		return out
	}
	return v
}

// appendPretty prints jsonb_pretty's layout: four-space indentation, one
// member per line; empty containers too span two lines.
func appendPretty(dst []byte, v types.JSONValue, indent int) []byte {
	pad := func(n int) []byte { return []byte("\n" + strings.Repeat("    ", n)) }
	switch {
	case v.Kind == types.JSONArray:
		dst = append(dst, '[')
		for i, e := range v.Elems {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, pad(indent+1)...)
			dst = appendPretty(dst, e, indent+1)
		}
		return append(append(dst, pad(indent)...), ']')
	case v.Kind == types.JSONObject:
		dst = append(dst, '{')
		for i, p := range v.Pairs {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, pad(indent+1)...)
			dst = types.AppendJSONString(dst, p.Key)
			dst = append(dst, ": "...)
			dst = appendPretty(dst, p.Value, indent+1)
		}
		return append(append(dst, pad(indent)...), '}')
	}
	return types.AppendJSONB(dst, v)
}

// jsonBuilder is jsonb_build_object/array and json_build_object/array over
// "any" arguments, whose types are known at prepare time.
func jsonBuilder(name string, object bool, f types.Family) *Func {
	ret := types.Type{Family: f, Mod: -1}
	fn := &Func{Name: name, Params: ts(AnyT), Variadic: true, Ret: ret, Volatility: Stable}
	fn.Impl = func(*EvalContext, []types.Datum) (types.Datum, error) {
		return types.Null, internalf("%s called without preparation", name)
	}
	fn.prepare = func(args []Expr) Impl {
		argT := argTypesOf(args)
		return func(ctx *EvalContext, a []types.Datum) (types.Datum, error) {
			cfg := ctx.textConfig()
			if f == types.JSON && !object {
				return jsonBuildArrayText(a, argT, cfg)
			}
			if !object {
				v := types.JSONValue{Kind: types.JSONArray, Elems: make([]types.JSONValue, len(a))}
				for i, d := range a {
					e, err := toJSONValue(d, argT[i], cfg)
					if err != nil {
						return types.Null, err
					}
					v.Elems[i] = e
				}
				return jsonDatum(v, f), nil
			}
			if len(a)%2 != 0 {
				return types.Null, pgerr.New(pgerr.InvalidParameterValue, "argument list must have even number of elements").
					WithHint("The arguments of %s() must consist of alternating keys and values.", name)
			}
			pairs := make([]types.JSONPair, 0, len(a)/2)
			var text []byte // json's: values as to_json prints them
			for i := 0; i < len(a); i += 2 {
				if a[i].IsNull() {
					return types.Null, pgerr.New(pgerr.InvalidParameterValue, "argument %d: key must not be null", i+1)
				}
				k, err := jsonKey(a[i], argT[i], cfg)
				if err != nil {
					return types.Null, err
				}
				if f == types.JSON {
					if text, err = appendBuildPair(text, k, a[i+1], argT[i+1], cfg); err != nil {
						return types.Null, err
					}
					continue
				}
				v, err := toJSONValue(a[i+1], argT[i+1], cfg)
				if err != nil {
					return types.Null, err
				}
				pairs = append(pairs, types.JSONPair{Key: k, Value: v})
			}
			if f == types.JSON {
				return types.NewString(types.JSON, "{"+string(text)+"}"), nil
			}
			return jsonDatum(makeObject(pairs), f), nil
		}
	}
	return fn
}

func toJSONFunc(name string, f types.Family) *Func {
	fn := &Func{Name: name, Params: ts(AnyElement), Ret: types.Type{Family: f, Mod: -1}, Strict: true, Volatility: Stable}
	fn.Impl = func(ctx *EvalContext, a []types.Datum) (types.Datum, error) {
		if f == types.JSON {
			b, err := appendToJSON(nil, a[0], types.Type{Family: a[0].Kind(), Mod: -1}, ctx.textConfig())
			if err != nil {
				return types.Null, err
			}
			return types.NewString(types.JSON, string(b)), nil
		}
		v, err := toJSONValue(a[0], types.Type{Family: a[0].Kind(), Mod: -1}, ctx.textConfig())
		if err != nil {
			return types.Null, err
		}
		return jsonDatum(v, f), nil
	}
	return fn
}

func init() {
	for _, f := range []types.Type{jsonbT, jsonT} {
		addOp(
			strict("->", ts(f, textT), f, jsonGet(false, f.Family)),
			strict("->", ts(f, int4T), f, jsonGet(false, f.Family)),
			strict("->>", ts(f, textT), textT, jsonGet(true, f.Family)),
			strict("->>", ts(f, int4T), textT, jsonGet(true, f.Family)),
			strict("#>", ts(f, textArr), f, jsonGet(false, f.Family)),
			strict("#>>", ts(f, textArr), textT, jsonGet(true, f.Family)),
		)
	}
	addOp(
		strict("@>", ts(jsonbT, jsonbT), boolT, jsonbContains(false)),
		strict("<@", ts(jsonbT, jsonbT), boolT, jsonbContains(true)),
		strict("?", ts(jsonbT, textT), boolT, jsonbExists('?')),
		strict("?|", ts(jsonbT, textArr), boolT, jsonbExists('|')),
		strict("?&", ts(jsonbT, textArr), boolT, jsonbExists('&')),
		strict("||", ts(jsonbT, jsonbT), jsonbT, jsonbConcat),
		strict("-", ts(jsonbT, textT), jsonbT, jsonbDelete),
		strict("-", ts(jsonbT, int4T), jsonbT, jsonbDelete),
		strict("-", ts(jsonbT, textArr), jsonbT, jsonbDelete),
	)
	pathFn := func(name string, f types.Type, asText bool) *Func {
		ret := f
		if asText {
			ret = textT
		}
		get := jsonGet(asText, f.Family)
		return &Func{Name: name, Params: ts(f, textT), Variadic: true, Ret: ret, Strict: true,
			Impl: func(ctx *EvalContext, a []types.Datum) (types.Datum, error) {
				path := &types.ArrayValue{Elem: textT, Elems: a[1:]}
				return get(ctx, []types.Datum{a[0], types.NewArray(path)})
			}}
	}
	addFunc(
		strict("jsonb_typeof", ts(jsonbT), textT, jsonTypeof),
		strict("json_typeof", ts(jsonT), textT, jsonTypeof),
		strict("jsonb_array_length", ts(jsonbT), int4T, jsonArrayLength),
		strict("json_array_length", ts(jsonT), int4T, jsonArrayLength),
		pathFn("jsonb_extract_path", jsonbT, false), pathFn("jsonb_extract_path_text", jsonbT, true),
		pathFn("json_extract_path", jsonT, false), pathFn("json_extract_path_text", jsonT, true),
		strict("jsonb_strip_nulls", ts(jsonbT), jsonbT, func(_ *EvalContext, a []types.Datum) (types.Datum, error) {
			v, err := parseJSONDatum(a[0])
			if err != nil {
				return types.Null, err
			}
			return jsonDatum(stripNulls(v), types.JSONB), nil
		}),
		strict("jsonb_pretty", ts(jsonbT), textT, func(_ *EvalContext, a []types.Datum) (types.Datum, error) {
			v, err := parseJSONDatum(a[0])
			if err != nil {
				return types.Null, err
			}
			return types.NewText(string(appendPretty(nil, v, 0))), nil
		}),
		jsonBuilder("jsonb_build_object", true, types.JSONB), jsonBuilder("jsonb_build_array", false, types.JSONB),
		jsonBuilder("json_build_object", true, types.JSON), jsonBuilder("json_build_array", false, types.JSON),
		toJSONFunc("to_jsonb", types.JSONB), toJSONFunc("to_json", types.JSON),
	)
	for _, name := range []string{"jsonb_build_object", "jsonb_build_array", "json_build_object", "json_build_array"} {
		f := lib.funcs[name][0]
		empty := *f
		empty.Params, empty.Variadic, empty.prepare = nil, false, nil
		ret := f.Ret.Family
		obj := strings.Contains(name, "object")
		empty.Impl = func(*EvalContext, []types.Datum) (types.Datum, error) {
			if obj {
				return jsonDatum(types.JSONValue{Kind: types.JSONObject}, ret), nil
			}
			return jsonDatum(types.JSONValue{Kind: types.JSONArray}, ret), nil
		}
		addFunc(&empty)
	}
}

// nestJSON arranges the elements of an array of the given lengths into
// nested JSON arrays, one level per dimension.
func nestJSON(elems []types.JSONValue, lens []int32) types.JSONValue {
	if len(lens) <= 1 {
		return types.JSONValue{Kind: types.JSONArray, Elems: elems}
	}
	n := len(elems) / int(lens[0])
	v := types.JSONValue{Kind: types.JSONArray, Elems: make([]types.JSONValue, lens[0])}
	for i := range v.Elems {
		v.Elems[i] = nestJSON(elems[i*n:(i+1)*n], lens[1:])
	}
	return v
}
