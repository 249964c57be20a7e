package scalar

import (
	"strings"

	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/types"
)

// The order-sensitive aggregates: their accumulators only fold the
// multiset kept by aggState, so add is never called on them.

type foldAcc struct {
	fn func(m *multiset) (types.Datum, error)
}

func (f foldAcc) add([]types.Datum, int64) error {
	return internalf("order-sensitive aggregate fed without its multiset")
}

func (f foldAcc) result() (types.Datum, error) {
	return types.Null, internalf("order-sensitive aggregate read without its multiset")
}

func (f foldAcc) fold(m *multiset) (types.Datum, error) { return f.fn(m) }

func orderedAgg(name string, params []types.Type, ret types.Type, strict bool, fold func(params []types.Type, ret types.Type, m *multiset) (types.Datum, error)) *AggFunc {
	return &AggFunc{Name: name, Params: params, Ret: ret, Strict: strict, ordered: true,
		newAcc: func(p []types.Type, r types.Type) accumulator {
			return foldAcc{fn: func(m *multiset) (types.Datum, error) { return fold(p, r, m) }}
		}}
}

// followsInput marks an aggregate whose result lists its inputs in order.
func followsInput(f *AggFunc) *AggFunc {
	f.inputOrder = true
	return f
}

// minMax is min or max over values of type t. PostgreSQL declares them
// for each type, not as polymorphic functions: an untyped literal, min('x'),
// resolves to the text overload, which a text instance gives.
func minMax(name string, max bool, t types.Type) *AggFunc {
	f := orderedAgg(name, ts(t), t, true, func(_ []types.Type, _ types.Type, m *multiset) (types.Datum, error) {
		var args []types.Datum
		var ok bool
		if max {
			args, ok = m.last()
		} else {
			args, ok = m.first()
		}
		if !ok {
			return types.Null, nil
		}
		return args[0], nil
	})
	f.extreme = extremeMin
	if max {
		f.extreme = extremeMax
	}
	return f
}

// stringAgg concatenates non-NULL values, each but the first preceded by
// its own row's delimiter (a NULL delimiter is empty). The result's size
// is added up first: past PostgreSQL's 1 GB it fails as PostgreSQL's
// string buffer does, before anything is copied, and below it the result
// is copied once, not through every doubling of a buffer.
func stringAgg(t types.Type) *AggFunc {
	return followsInput(orderedAgg("string_agg", ts(t, t), t, false, func(_ []types.Type, r types.Type, m *multiset) (types.Datum, error) {
		var size int64
		var tooLong error
		m.each(func(args []types.Datum, n int64) bool {
			if args[0].IsNull() {
				return true
			}
			add := int64(len(args[0].Str()) + len(args[1].Str()))
			if size+add*n > maxStringBytes {
				tooLong = pgerr.New(pgerr.ProgramLimitExceeded, "out of memory").
					WithDetail("Cannot enlarge string buffer containing %d bytes by %d more bytes.", size+add*((maxStringBytes-size)/add), add)
				return false
			}
			size += add * n
			return true
		})
		if tooLong != nil {
			return types.Null, tooLong
		}
		var b strings.Builder
		b.Grow(int(size))
		any := false
		m.each(func(args []types.Datum, n int64) bool {
			if args[0].IsNull() {
				return true
			}
			for ; n > 0; n-- {
				if any && !args[1].IsNull() {
					b.WriteString(args[1].Str())
				}
				b.WriteString(args[0].Str())
				any = true
			}
			return true
		})
		if !any {
			return types.Null, nil
		}
		return types.NewString(r.Family, b.String()), nil
	}))
}

func arrayAgg() *AggFunc {
	return followsInput(orderedAgg("array_agg", ts(AnyNonArray), AnyArray, false, func(p []types.Type, _ types.Type, m *multiset) (types.Datum, error) {
		var elems []types.Datum
		m.each(func(args []types.Datum, n int64) bool {
			for ; n > 0; n-- {
				elems = append(elems, args[0])
			}
			return true
		})
		if elems == nil {
			return types.Null, nil
		}
		return types.NewArray(&types.ArrayValue{Elem: p[0], Elems: elems}), nil
	}))
}

func jsonAgg(name string, ret types.Type) *AggFunc {
	return followsInput(orderedAgg(name, ts(AnyElement), ret, false, func(p []types.Type, r types.Type, m *multiset) (types.Datum, error) {
		if r.Family == types.JSON {
			return jsonAggText(p[0], m)
		}
		var elems []types.JSONValue
		var err error
		m.each(func(args []types.Datum, n int64) bool {
			var v types.JSONValue
			if v, err = toJSONValue(args[0], p[0], nil); err != nil {
				return false
			}
			for ; n > 0; n-- {
				elems = append(elems, v)
			}
			return true
		})
		if err != nil || elems == nil {
			return types.Null, err
		}
		return jsonDatum(types.JSONValue{Kind: types.JSONArray, Elems: elems}, r.Family), nil
	}))
}

func jsonObjectAgg(name string, ret types.Type) *AggFunc {
	return followsInput(orderedAgg(name, ts(AnyT, AnyT), ret, false, func(p []types.Type, r types.Type, m *multiset) (types.Datum, error) {
		var pairs []types.JSONPair
		var err error
		m.each(func(args []types.Datum, n int64) bool {
			if args[0].IsNull() {
				err = errNullKey()
				return false
			}
			var k string
			if k, err = jsonKey(args[0], p[0], nil); err != nil {
				return false
			}
			var v types.JSONValue
			if v, err = toJSONValue(args[1], p[1], nil); err != nil {
				return false
			}
			for ; n > 0; n-- {
				pairs = append(pairs, types.JSONPair{Key: k, Value: v})
			}
			return true
		})
		if err != nil || pairs == nil {
			return types.Null, err
		}
		if r.Family == types.JSON {
			return types.NewString(types.JSON, string(appendJSONObjectAgg(nil, pairs))), nil
		}
		return jsonDatum(makeObject(pairs), r.Family), nil
	}))
}

func init() {
	addAgg(
		minMax("min", false, AnyElement), minMax("max", true, AnyElement),
		minMax("min", false, textT), minMax("max", true, textT),
		minMax("min", false, types.TypeChar), minMax("max", true, types.TypeChar),
		stringAgg(textT), stringAgg(byteaT),
		arrayAgg(),
		jsonAgg("jsonb_agg", types.TypeJSONB), jsonAgg("json_agg", types.TypeJSON),
		jsonObjectAgg("jsonb_object_agg", types.TypeJSONB), jsonObjectAgg("json_object_agg", types.TypeJSON),
	)
}

// bitAgg is bit_and and bit_or: not invertible, so folded over the
// multiset of values.
func bitAgg(name string, t types.Type, and bool) *AggFunc {
	return orderedAgg(name, ts(t), t, true, func(p []types.Type, _ types.Type, m *multiset) (types.Datum, error) {
		var acc int64
		first := true
		m.each(func(args []types.Datum, _ int64) bool {
			v := args[0].Int()
			switch {
			case first:
				acc, first = v, false
			case and:
				acc &= v
			default:
				acc |= v
			}
			return true
		})
		if first {
			return types.Null, nil
		}
		return types.NewInt(p[0].Family, acc), nil
	})
}

func init() {
	for _, t := range intTypes {
		addAgg(bitAgg("bit_and", t, true), bitAgg("bit_or", t, false))
	}
}
