package scalar

import (
	"github.com/cockroachdb/apd/v3"
	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/types"
)

// Column is one output column of a table function.
type Column struct {
	Name string
	Type types.Type
}

// TableFunc is a set-returning function usable in FROM: generate_series,
// unnest, the jsonb set functions and regexp_matches. The planner runs it
// in a FlatMap: Eval emits the rows for one set of argument values.
type TableFunc struct {
	Name       string
	Params     []types.Type
	Ret        types.Type // the single column's type, or the first column's
	Volatility Volatility
	// cols gives the output columns for concrete argument types.
	cols func(args []types.Type) []Column
	eval func(ctx *EvalContext, args []types.Datum, emit func(types.Row) bool) error
	// named marks a function whose one column is named by an OUT
	// parameter (jsonb_array_elements' value), which an alias in FROM
	// does not rename, unlike the column of a function without one.
	named bool
	// takesNulls marks a function that sees NULL arguments itself
	// instead of returning no rows (RowsFrom).
	takesNulls bool
}

// NamedColumn reports whether the function's single column keeps its
// name under an alias in FROM.
func (f *TableFunc) NamedColumn() bool { return f.named }

// Columns returns the output columns for the argument types chosen by
// resolution.
func (f *TableFunc) Columns(args []types.Type) []Column { return f.cols(args) }

// Eval emits the function's rows for evaluated arguments. A NULL argument
// produces no rows (the functions are strict). emit must not retain the
// row; it returns false to stop the function early (a canceled query).
func (f *TableFunc) Eval(ctx *EvalContext, args []types.Datum, emit func(types.Row) bool) error {
	if !f.takesNulls {
		for _, a := range args {
			if a.IsNull() {
				return nil
			}
		}
	}
	return f.eval(ctx, args, emit)
}

// ResolveTableFunc picks the overload of a set-returning function.
func ResolveTableFunc(name string, args []types.Type) (*TableFunc, []types.Type, error) {
	tfs := lib.tables[name]
	fs := make([]*Func, len(tfs))
	for i, t := range tfs {
		fs[i] = &Func{Name: t.Name, Params: t.Params, Ret: t.Ret}
	}
	c, err := resolve(fs, args, false)
	if err != nil {
		return nil, nil, funcError(err, name, args)
	}
	var chosen *TableFunc
	for i, f := range fs {
		if f == c.fn {
			chosen = tfs[i]
		}
	}
	f, targets, _ := finish(c, args)
	inst := *chosen
	inst.Params, inst.Ret = targets, f.Ret
	return &inst, targets, nil
}

func addTable(fs ...*TableFunc) {
	for _, f := range fs {
		lib.tables[f.Name] = append(lib.tables[f.Name], f)
	}
}

func errStepZero() error {
	return pgerr.New(pgerr.InvalidParameterValue, "step size cannot equal zero")
}

// seriesInt is generate_series over integers: inclusive bounds, stepping
// until the next value would pass stop or overflow.
func seriesInt(f types.Family) func(*EvalContext, []types.Datum, func(types.Row) bool) error {
	return func(_ *EvalContext, a []types.Datum, emit func(types.Row) bool) error {
		start, stop, step := a[0].Int(), a[1].Int(), int64(1)
		if len(a) > 2 {
			step = a[2].Int()
		}
		if step == 0 {
			return errStepZero()
		}
		row := make(types.Row, 1)
		for v := start; step > 0 && v <= stop || step < 0 && v >= stop; {
			row[0] = types.NewInt(f, v)
			if !emit(row) {
				return nil
			}
			next := v + step
			if (step > 0) != (next > v) {
				break
			}
			if lo, hi := types.IntRange(f); next < lo || next > hi {
				break
			}
			v = next
		}
		return nil
	}
}

func seriesNumeric(_ *EvalContext, a []types.Datum, emit func(types.Row) bool) error {
	start, stop := a[0].Decimal(), a[1].Decimal()
	step := apd.New(1, 0)
	if len(a) > 2 {
		step = a[2].Decimal()
	}
	for _, d := range []*apd.Decimal{start, stop, step} {
		if d.Form == apd.NaN {
			return pgerr.New(pgerr.InvalidParameterValue, "%s value cannot be NaN", map[*apd.Decimal]string{start: "start", stop: "stop", step: "step size"}[d])
		}
	}
	if step.IsZero() {
		return errStepZero()
	}
	row := make(types.Row, 1)
	v := new(apd.Decimal).Set(start)
	for (step.Sign() > 0 && v.Cmp(stop) <= 0) || (step.Sign() < 0 && v.Cmp(stop) >= 0) {
		out := new(apd.Decimal).Set(v)
		row[0] = types.NewNumeric(out)
		if !emit(row) {
			return nil
		}
		next := new(apd.Decimal)
		if _, err := exactCtx.Add(next, v, step); err != nil {
			return errNumericOverflow()
		}
		v = next
	}
	return nil
}

func seriesTimestamp(f types.Family) func(*EvalContext, []types.Datum, func(types.Row) bool) error {
	return func(ctx *EvalContext, a []types.Datum, emit func(types.Row) bool) error {
		start, stop, step := a[0].Int(), a[1].Int(), a[2].Interval()
		if step == (types.IntervalValue{}) {
			return errStepZero()
		}
		days, micros := types.IntervalSpan(step)
		positive := days > 0 || days == 0 && micros > 0
		loc := tsLoc(ctx, f)
		row := make(types.Row, 1)
		// Each value is the previous one plus step, as PostgreSQL steps
		// with repeated timestamp + interval; an overflow ends the series.
		for v := start; positive && v <= stop || !positive && v >= stop; {
			row[0] = types.NewInt(f, v)
			if !emit(row) {
				return nil
			}
			next, err := addInterval(v, step, loc)
			if err != nil || next == v {
				return nil
			}
			v = next
		}
		return nil
	}
}

func unnest(_ *EvalContext, a []types.Datum, emit func(types.Row) bool) error {
	row := make(types.Row, 1)
	for _, e := range a[0].Array().Elems {
		row[0] = e
		if !emit(row) {
			return nil
		}
	}
	return nil
}

func jsonElements(asText bool) func(*EvalContext, []types.Datum, func(types.Row) bool) error {
	return func(_ *EvalContext, a []types.Datum, emit func(types.Row) bool) error {
		v, err := parseJSONDatum(a[0])
		if err != nil {
			return err
		}
		switch v.Kind {
		case types.JSONArray:
		case types.JSONObject:
			return pgerr.New(pgerr.InvalidParameterValue, "cannot extract elements from an object")
		default:
			return pgerr.New(pgerr.InvalidParameterValue, "cannot extract elements from a scalar")
		}
		row := make(types.Row, 1)
		for _, e := range v.Elems {
			if asText {
				row[0] = jsonAsText(e)
			} else {
				row[0] = jsonDatum(e, a[0].Kind())
			}
			if !emit(row) {
				return nil
			}
		}
		return nil
	}
}

func jsonEach(asText, keysOnly bool) func(*EvalContext, []types.Datum, func(types.Row) bool) error {
	return func(_ *EvalContext, a []types.Datum, emit func(types.Row) bool) error {
		v, err := parseJSONDatum(a[0])
		if err != nil {
			return err
		}
		if v.Kind != types.JSONObject {
			what := "a scalar"
			if v.Kind == types.JSONArray {
				what = "an array"
			}
			if keysOnly {
				return pgerr.New(pgerr.InvalidParameterValue, "cannot call jsonb_object_keys on %s", what)
			}
			return pgerr.New(pgerr.InvalidParameterValue, "cannot deconstruct %s as an object", what)
		}
		n := 2
		if keysOnly {
			n = 1
		}
		row := make(types.Row, n)
		for _, p := range v.Pairs {
			row[0] = types.NewText(p.Key)
			if !keysOnly {
				if asText {
					row[1] = jsonAsText(p.Value)
				} else {
					row[1] = jsonDatum(p.Value, a[0].Kind())
				}
			}
			if !emit(row) {
				return nil
			}
		}
		return nil
	}
}

func fixedCols(cols ...Column) func([]types.Type) []Column {
	return func([]types.Type) []Column { return cols }
}

func init() {
	series := func(t types.Type, params []types.Type, eval func(*EvalContext, []types.Datum, func(types.Row) bool) error) *TableFunc {
		return &TableFunc{Name: "generate_series", Params: params, Ret: t, eval: eval,
			cols: fixedCols(Column{Name: "generate_series", Type: t})}
	}
	for _, t := range []types.Type{int4T, int8T} {
		addTable(series(t, ts(t, t), seriesInt(t.Family)), series(t, ts(t, t, t), seriesInt(t.Family)))
	}
	addTable(
		series(numT, ts(numT, numT), seriesNumeric), series(numT, ts(numT, numT, numT), seriesNumeric),
		series(tsT, ts(tsT, tsT, ivT), seriesTimestamp(types.Timestamp)),
		&TableFunc{Name: "generate_series", Params: ts(tstzT, tstzT, ivT), Ret: tstzT, Volatility: Stable,
			eval: seriesTimestamp(types.TimestampTZ), cols: fixedCols(Column{Name: "generate_series", Type: tstzT})},
		&TableFunc{Name: "unnest", Params: ts(AnyArray), Ret: AnyElement, eval: unnest,
			cols: func(a []types.Type) []Column { return []Column{{Name: "unnest", Type: a[0].ElemType()}} }},
	)
	for _, f := range []types.Type{jsonbT, jsonT} {
		p := f.Family.String()
		addTable(
			&TableFunc{Name: p + "_array_elements", Params: ts(f), Ret: f, eval: jsonElements(false), cols: fixedCols(Column{Name: "value", Type: f}), named: true},
			&TableFunc{Name: p + "_array_elements_text", Params: ts(f), Ret: textT, eval: jsonElements(true), cols: fixedCols(Column{Name: "value", Type: textT}), named: true},
			&TableFunc{Name: p + "_each", Params: ts(f), Ret: textT, eval: jsonEach(false, false), cols: fixedCols(Column{Name: "key", Type: textT}, Column{Name: "value", Type: f})},
			&TableFunc{Name: p + "_each_text", Params: ts(f), Ret: textT, eval: jsonEach(true, false), cols: fixedCols(Column{Name: "key", Type: textT}, Column{Name: "value", Type: textT})},
			&TableFunc{Name: p + "_object_keys", Params: ts(f), Ret: textT, eval: jsonEach(false, true), cols: fixedCols(Column{Name: p + "_object_keys", Type: textT})},
		)
	}
	matches := func(_ *EvalContext, a []types.Datum, emit func(types.Row) bool) error {
		f := regexFlags{}
		if len(a) > 2 {
			var err error
			if f, err = parseRegexFlags(a[2].Str(), true, "regexp_matches"); err != nil {
				return err
			}
		}
		re, err := compileRegex(a[1].Str(), f)
		if err != nil {
			return err
		}
		n := 1
		if f.global {
			n = -1
		}
		row := make(types.Row, 1)
		for _, m := range re.FindAllStringSubmatchIndex(a[0].Str(), n) {
			row[0] = matchArray(a[0].Str(), m)
			if !emit(row) {
				return nil
			}
		}
		return nil
	}
	for _, p := range [][]types.Type{ts(textT, textT), ts(textT, textT, textT)} {
		addTable(&TableFunc{Name: "regexp_matches", Params: p, Ret: textArr, eval: matches, cols: fixedCols(Column{Name: "regexp_matches", Type: textArr})})
	}
}

func init() {
	splitRows := func(ctx *EvalContext, a []types.Datum, emit func(types.Row) bool) error {
		arr, err := stringToArray(ctx, a)
		if err != nil || arr.IsNull() {
			return err
		}
		return unnest(ctx, []types.Datum{arr}, emit)
	}
	for _, p := range [][]types.Type{ts(textT, textT), ts(textT, textT, textT)} {
		addTable(&TableFunc{Name: "string_to_table", Params: p, Ret: textT, eval: splitRows,
			cols: fixedCols(Column{Name: "string_to_table", Type: textT})})
	}
}
