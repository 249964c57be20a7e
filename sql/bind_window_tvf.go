package sql

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/planner"
	"github.com/streamdb/streamdb/planner/scalar"
	"github.com/streamdb/streamdb/types"
)

// The window table functions of RisingWave and Flink, in FROM:
//
//	TUMBLE(rel, ts, size [, offset])
//	HOP(rel, ts, hop, size [, offset])
//	SESSION(rel, ts, gap [, key, ...])
//
// Each returns the rows of rel (a table, view, source or WITH query) with
// two more columns, window_start and window_end, of ts's type (timestamp
// or timestamptz). Windows are aligned to the Unix epoch plus offset; a
// row whose ts is NULL belongs to no window. They are exactly the
// formulations PostgreSQL can run, and are planned as such:
//
//	TUMBLE: SELECT *, date_bin(size, ts, origin) AS window_start,
//	               date_bin(size, ts, origin) + size AS window_end
//	        FROM rel WHERE ts IS NOT NULL
//	HOP:    SELECT *, s AS window_start, s + size AS window_end
//	        FROM rel, generate_series(date_bin(hop, ts - size, origin) + hop, ts, hop) s
//	SESSION: per key, rows less than gap apart form a session, from its
//	        first ts to its last ts plus gap (lag, a running sum and
//	        min/max over the sessions say the same in SQL)
//
// where origin is the epoch ('1970-01-01 00:00:00+00') plus offset. Sizes
// are fixed lengths: a day is 24 hours, as date_bin has it, and months
// are refused.

// windowTVFs are the window table functions by name.
var windowTVFs = map[string]bool{"tumble": true, "hop": true, "session": true}

// windowFunction binds a window table function in FROM.
func (b *binder) windowFunction(rf *pg_query.RangeFunction, fc *pg_query.FuncCall, name string, parent *scope) (*fromItem, error) {
	pos := loc(fc.Location)
	usage := map[string]string{
		"tumble":  "TUMBLE(relation, time column, size [, offset])",
		"hop":     "HOP(relation, time column, hop, size [, offset])",
		"session": "SESSION(relation, time column, gap [, key column, ...])",
	}[name]
	arity := map[string][2]int{"tumble": {3, 4}, "hop": {4, 5}, "session": {3, 1 << 20}}[name]
	if len(fc.Args) < arity[0] || len(fc.Args) > arity[1] || rf.Ordinality {
		return nil, pgerr.New(pgerr.UndefinedFunction, "%s takes %s", name, usage).WithPosition(pos)
	}
	relRef := fc.Args[0].GetColumnRef()
	if relRef == nil || len(relRef.Fields) != 1 || relRef.Fields[0].GetString_() == nil {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "the first argument of %s must name a table, view, source or WITH query", name).
			WithHint("Use %s.", usage).WithPosition(pos)
	}
	rel, err := b.rangeVar(&pg_query.RangeVar{Relname: relRef.Fields[0].GetString_().Sval, Inh: true, Location: relRef.Location}, parent)
	if err != nil {
		return nil, err
	}
	relScope := newScope(nil)
	relScope.cols = rel.cols
	col := func(n *pg_query.Node, what string) (int, types.Type, error) {
		e, err := b.expr(n, &exprCtx{s: relScope, what: "functions in FROM"})
		if err != nil {
			return 0, types.Type{}, err
		}
		c, ok := e.(*scalar.ColRef)
		if !ok {
			return 0, types.Type{}, pgerr.New(pgerr.FeatureNotSupported, "the %s of %s must be a column of %s", what, name, relRef.Fields[0].GetString_().Sval).WithPosition(pos)
		}
		return c.Idx, c.Typ, nil
	}
	ts, tt, err := col(fc.Args[1], "time argument")
	if err != nil {
		return nil, err
	}
	if tt.Family != types.Timestamp && tt.Family != types.TimestampTZ {
		return nil, pgerr.New(pgerr.DatatypeMismatch, "the time column of %s must be timestamp or timestamp with time zone, not %s", name, tt).WithPosition(pos)
	}
	length := func(i int, what string) (int64, error) { return b.windowLength(fc.Args[i], name, what, pos) }
	var node planner.Node
	switch name {
	case "tumble":
		size, err := length(2, "size")
		if err != nil {
			return nil, err
		}
		offset, err := b.windowOffset(fc.Args, 3, name, pos)
		if err != nil {
			return nil, err
		}
		node, err = tumble(rel.node, ts, tt, size, offset)
		if err != nil {
			return nil, err
		}
	case "hop":
		hop, err := length(2, "hop")
		if err != nil {
			return nil, err
		}
		size, err := length(3, "size")
		if err != nil {
			return nil, err
		}
		offset, err := b.windowOffset(fc.Args, 4, name, pos)
		if err != nil {
			return nil, err
		}
		node, err = hopWindows(rel.node, ts, tt, hop, size, offset)
		if err != nil {
			return nil, err
		}
	default:
		gap, err := length(2, "gap")
		if err != nil {
			return nil, err
		}
		var keys []int
		for _, a := range fc.Args[3:] {
			k, _, err := col(a, "key arguments")
			if err != nil {
				return nil, err
			}
			keys = append(keys, k)
		}
		node = &planner.Session{Input: rel.node, TS: ts, Gap: gap, Keys: keys, Cols: windowCols(tt)}
	}
	table := name
	if rf.Alias != nil {
		table = rf.Alias.Aliasname
	}
	fi := &fromItem{node: node, tables: []string{table}}
	var names []string
	if rf.Alias != nil {
		names = nameList(rf.Alias.Colnames)
	}
	i := 0
	for _, c := range rel.cols {
		if c.hidden {
			continue
		}
		c.table = table
		if i < len(names) {
			c.name = names[i]
		}
		fi.cols = append(fi.cols, c)
		i++
	}
	width := len(rel.node.Columns())
	for j, wc := range windowCols(tt) {
		n := wc.Name
		if i < len(names) {
			n = names[i]
		}
		i++
		fi.cols = append(fi.cols, scopeCol{table: table, name: n, idx: width + j, typ: tt})
	}
	if len(names) > i {
		return nil, pgerr.New(pgerr.InvalidColumnReference, "table %q has %d columns available but %d columns specified", table, i, len(names))
	}
	return fi, nil
}

// windowCols are the columns a window function appends.
func windowCols(t types.Type) []planner.Column {
	return []planner.Column{{Name: "window_start", Type: t}, {Name: "window_end", Type: t}}
}

// windowLength reads a window's size, hop or gap: a constant interval of
// fixed, positive length, in microseconds.
func (b *binder) windowLength(n *pg_query.Node, fn, what string, pos int) (int64, error) {
	iv, err := b.constInterval(n, fn, what, pos)
	if err != nil {
		return 0, err
	}
	us := int64(iv.Days)*usPerDay + iv.Micros
	if us <= 0 {
		return 0, pgerr.New(pgerr.InvalidParameterValue, "the %s of %s must be greater than zero", what, fn).WithPosition(pos)
	}
	return us, nil
}

// windowOffset reads the optional offset argument at index i.
func (b *binder) windowOffset(args []*pg_query.Node, i int, fn string, pos int) (int64, error) {
	if len(args) <= i {
		return 0, nil
	}
	iv, err := b.constInterval(args[i], fn, "offset", pos)
	if err != nil {
		return 0, err
	}
	return int64(iv.Days)*usPerDay + iv.Micros, nil
}

const usPerDay = 86_400_000_000

// constInterval binds a constant interval without months.
func (b *binder) constInterval(n *pg_query.Node, fn, what string, pos int) (types.IntervalValue, error) {
	e, err := b.expr(n, &exprCtx{s: newScope(nil), what: "functions in FROM"})
	if err != nil {
		return types.IntervalValue{}, err
	}
	if e, err = b.coerce(e, types.TypeInterval, coerceImplicit, pos); err != nil {
		return types.IntervalValue{}, err
	}
	if scalar.MaxVolatility(e) != scalar.Immutable {
		return types.IntervalValue{}, pgerr.New(pgerr.FeatureNotSupported, "the %s of %s must be a constant interval", what, fn).WithPosition(pos)
	}
	d, err := scalar.Eval(nil, e, nil)
	if err != nil {
		return types.IntervalValue{}, err
	}
	if d.IsNull() {
		return types.IntervalValue{}, pgerr.New(pgerr.NullValueNotAllowed, "the %s of %s must not be NULL", what, fn).WithPosition(pos)
	}
	iv := d.Interval()
	if iv.Months != 0 {
		return types.IntervalValue{}, pgerr.New(pgerr.FeatureNotSupported, "the %s of %s cannot contain months or years", what, fn).
			WithDetail("Windows are of fixed length, as date_bin's bins are.").WithPosition(pos)
	}
	return iv, nil
}

// intervalConst is an interval of us microseconds.
func intervalConst(us int64) scalar.Expr {
	return scalar.NewConst(types.NewInterval(types.IntervalValue{Micros: us}), types.TypeInterval)
}

// timeConst is the time us microseconds after the epoch, of type t.
func timeConst(t types.Type, us int64) scalar.Expr {
	if t.Family == types.TimestampTZ {
		return scalar.NewConst(types.NewTimestampTZ(us), t)
	}
	return scalar.NewConst(types.NewTimestamp(us), t)
}

// call builds a call of a resolved function or operator.
func call(name string, args ...scalar.Expr) (scalar.Expr, error) {
	ts := make([]types.Type, len(args))
	for i, a := range args {
		ts[i] = a.Type()
	}
	var fn *scalar.Func
	var err error
	if len(args) == 2 && (name == "+" || name == "-") {
		fn, _, err = scalar.ResolveBinaryOp(name, ts[0], ts[1])
	} else {
		fn, _, err = scalar.ResolveFunc(name, ts)
	}
	if err != nil {
		return nil, err
	}
	return &scalar.Call{Fn: fn, Args: args}, nil
}

// notNullTime filters out the rows of rel whose time column is NULL.
func notNullTime(rel planner.Node, ts int, t types.Type) planner.Node {
	return &planner.Filter{Input: rel, Pred: &scalar.IsNull{Arg: &scalar.ColRef{Idx: ts, Typ: t}, Not: true}}
}

// passColumns returns column references to every column of n.
func passColumns(n planner.Node) ([]scalar.Expr, []planner.Column) {
	cols := n.Columns()
	exprs := make([]scalar.Expr, len(cols))
	for i, c := range cols {
		exprs[i] = &scalar.ColRef{Idx: i, Typ: c.Type}
	}
	return exprs, append([]planner.Column(nil), cols...)
}

// tumble plans TUMBLE as its date_bin formulation.
func tumble(rel planner.Node, ts int, t types.Type, size, offset int64) (planner.Node, error) {
	start, err := call("date_bin", intervalConst(size), &scalar.ColRef{Idx: ts, Typ: t}, timeConst(t, offset))
	if err != nil {
		return nil, err
	}
	end, err := call("+", start, intervalConst(size))
	if err != nil {
		return nil, err
	}
	exprs, cols := passColumns(rel)
	return &planner.Project{Input: notNullTime(rel, ts, t), Exprs: append(exprs, start, end), Cols: append(cols, windowCols(t)...)}, nil
}

// hopWindows plans HOP as its generate_series formulation: the windows
// of a row are those whose start lies in (ts - size, ts].
func hopWindows(rel planner.Node, ts int, t types.Type, hop, size, offset int64) (planner.Node, error) {
	col := &scalar.ColRef{Idx: ts, Typ: t}
	back, err := call("-", col, intervalConst(size))
	if err != nil {
		return nil, err
	}
	bin, err := call("date_bin", intervalConst(hop), back, timeConst(t, offset))
	if err != nil {
		return nil, err
	}
	first, err := call("+", bin, intervalConst(hop))
	if err != nil {
		return nil, err
	}
	args := []scalar.Expr{first, col, intervalConst(hop)}
	argTypes := []types.Type{t, t, types.TypeInterval}
	tf, _, err := scalar.ResolveTableFunc("generate_series", argTypes)
	if err != nil {
		return nil, err
	}
	series := &planner.FlatMap{Input: notNullTime(rel, ts, t), Func: tf, Args: args, Cols: []planner.Column{{Name: "window_start", Type: t}}}
	exprs, cols := passColumns(rel)
	width := len(cols)
	start := &scalar.ColRef{Idx: width, Typ: t}
	end, err := call("+", start, intervalConst(size))
	if err != nil {
		return nil, err
	}
	return &planner.Project{Input: series, Exprs: append(exprs, start, end), Cols: append(cols, windowCols(t)...)}, nil
}
