package planner

import (
	"math"
	"slices"

	"github.com/streamdb/streamdb/dataflow"
	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/planner/scalar"
	"github.com/streamdb/streamdb/types"
)

// A temporal filter is a WHERE or HAVING condition that compares
// mz_now() with an expression of the row, as in Materialize:
//
//	WHERE mz_now() <= ts + INTERVAL '1 hour'    the last hour's rows
//	WHERE mz_now() >= valid_from AND mz_now() < valid_to
//
// Ad hoc, mz_now() is the timestamp the query reads at and the filter an
// ordinary one. In a maintained view the condition says, for each row,
// the times at which it belongs to the view: a union of intervals, from
// comparisons combined with AND and OR (conditions without mz_now() hold
// at all times or never). The dataflow's TemporalFilter emits a row when
// the tick's time enters one of its intervals and retracts it when the
// time leaves it, with no input at all: the engine runs a tick when the
// next of these times comes.

// temporalFilter decides a maintained filter: a condition that reads
// mz_now() becomes a temporal filter, after a plain filter of its
// conjuncts that do not.
func temporalFilter(f *Filter) Node {
	if !scalar.HasMzNow(f.Pred) {
		return f
	}
	var plain, timed []scalar.Expr
	for _, c := range scalar.Conjuncts(f.Pred) {
		if scalar.HasMzNow(c) {
			timed = append(timed, c)
		} else {
			plain = append(plain, c)
		}
	}
	in := f.Input
	if len(plain) > 0 {
		in = &Filter{Input: in, Pred: scalar.NewAnd(plain)}
	}
	return &Filter{Input: in, Pred: scalar.NewAnd(timed), Temporal: true}
}

// narrowTemporal moves the projection p of a temporal filter's columns
// below the filter, when p reads fewer columns than the filter's input
// has: the filter holds every row it has scheduled to retract, and a
// row of the last hour need not keep the columns nobody reads. The
// filter's own columns are kept beside p's.
func narrowTemporal(p *Project) (Node, bool) {
	f, ok := p.Input.(*Filter)
	if !ok || !f.Temporal {
		return p, false
	}
	var used scalar.ColSet
	for _, e := range p.Exprs {
		for _, c := range scalar.ColumnsUsed(e) {
			used.Add(c)
		}
	}
	for _, c := range scalar.ColumnsUsed(f.Pred) {
		used.Add(c)
	}
	in := f.Input.Columns()
	keep := used.Ordered()
	if len(keep) >= len(in) {
		return p, false
	}
	m := make([]int, len(in))
	for i := range m {
		m[i] = -1
	}
	exprs := make([]scalar.Expr, len(keep))
	cols := make([]Column, len(keep))
	for i, c := range keep {
		m[c] = i
		exprs[i] = &scalar.ColRef{Idx: c, Typ: in[c].Type}
		cols[i] = in[c]
	}
	narrow := &Filter{Input: &Project{Input: f.Input, Exprs: exprs, Cols: cols}, Pred: scalar.RemapColumns(f.Pred, m), Temporal: true}
	out := make([]scalar.Expr, len(p.Exprs))
	for i, e := range p.Exprs {
		out[i] = scalar.RemapColumns(e, m)
	}
	return &Project{Input: narrow, Exprs: out, Cols: p.Cols}, true
}

// spansFunc computes a condition's validity over a row.
type spansFunc func(ctx *scalar.EvalContext, row types.Row, dst []dataflow.TimeSpan) ([]dataflow.TimeSpan, error)

// lowerTemporal lowers a temporal filter.
func lowerTemporal(lc *LowerContext, f *Filter) (dataflow.Node, error) {
	in, err := Lower(lc, f.Input)
	if err != nil {
		return in, err
	}
	fn, err := compileValidity(f.Pred)
	if err != nil {
		return in, err
	}
	ctx := lc.Eval
	return lc.Graph.TemporalFilter(in, func(r types.Row, dst []dataflow.TimeSpan) ([]dataflow.TimeSpan, error) {
		return fn(ctx, r, dst)
	}), nil
}

// errTemporal is the error of a condition whose use of mz_now() cannot
// become a temporal filter.
func errTemporal(e scalar.Expr) error {
	return pgerr.New(pgerr.FeatureNotSupported, "mz_now() in a view must be compared directly with an expression of the row: %s", e).
		WithHint("Write conditions such as mz_now() <= ts + INTERVAL '1 hour', combined with AND and OR.")
}

// compileValidity compiles a condition into the times it holds at:
// AND intersects its arguments' intervals, OR unites them, a comparison
// of mz_now() gives one interval, and any other condition all of time
// when true.
func compileValidity(e scalar.Expr) (spansFunc, error) {
	if !scalar.HasMzNow(e) {
		p, err := scalar.CompilePredicate(e)
		if err != nil {
			return nil, err
		}
		return func(ctx *scalar.EvalContext, row types.Row, dst []dataflow.TimeSpan) ([]dataflow.TimeSpan, error) {
			ok, err := p(ctx, row)
			if err != nil || !ok {
				return dst, err
			}
			return append(dst, dataflow.TimeSpan{From: dataflow.MinTime, To: dataflow.MaxTime}), nil
		}, nil
	}
	switch x := e.(type) {
	case *scalar.And, *scalar.Or:
		_, and := x.(*scalar.And)
		args := x.Children()
		fns := make([]spansFunc, len(args))
		for i, a := range args {
			fn, err := compileValidity(a)
			if err != nil {
				return nil, err
			}
			fns[i] = fn
		}
		var a, b []dataflow.TimeSpan
		return func(ctx *scalar.EvalContext, row types.Row, dst []dataflow.TimeSpan) ([]dataflow.TimeSpan, error) {
			var err error
			if a, err = fns[0](ctx, row, a[:0]); err != nil {
				return dst, err
			}
			for _, fn := range fns[1:] {
				if b, err = fn(ctx, row, b[:0]); err != nil {
					return dst, err
				}
				if and {
					a = intersectSpans(a, b)
				} else {
					a = uniteSpans(a, b)
				}
			}
			return append(dst, a...), nil
		}, nil
	case *scalar.Call:
		return compileComparison(x)
	}
	return nil, errTemporal(e)
}

// compileComparison compiles mz_now() <op> x (or x <op> mz_now()) into
// the interval of times that satisfy it. Times are microseconds; the
// engine's ticks, milliseconds apart, compare as whole microseconds.
func compileComparison(c *scalar.Call) (spansFunc, error) {
	if !c.Fn.Op || len(c.Args) != 2 {
		return nil, errTemporal(c)
	}
	op := c.Fn.Name
	other := c.Args[1]
	switch {
	case scalar.IsMzNow(c.Args[0]) && !scalar.HasMzNow(c.Args[1]):
	case scalar.IsMzNow(c.Args[1]) && !scalar.HasMzNow(c.Args[0]):
		other = c.Args[0]
		op = map[string]string{"<": ">", "<=": ">=", ">": "<", ">=": "<=", "=": "="}[op]
	default:
		return nil, errTemporal(c)
	}
	if other.Type().Family != types.TimestampTZ {
		return nil, errTemporal(c)
	}
	span := map[string]func(v int64) dataflow.TimeSpan{
		"<=": func(v int64) dataflow.TimeSpan { return dataflow.TimeSpan{From: dataflow.MinTime, To: after(v)} },
		"<":  func(v int64) dataflow.TimeSpan { return dataflow.TimeSpan{From: dataflow.MinTime, To: v} },
		">=": func(v int64) dataflow.TimeSpan { return dataflow.TimeSpan{From: v, To: dataflow.MaxTime} },
		">":  func(v int64) dataflow.TimeSpan { return dataflow.TimeSpan{From: after(v), To: dataflow.MaxTime} },
		"=":  func(v int64) dataflow.TimeSpan { return dataflow.TimeSpan{From: v, To: after(v)} },
	}[op]
	if span == nil {
		return nil, errTemporal(c)
	}
	ev, err := scalar.Compile(other)
	if err != nil {
		return nil, err
	}
	return func(ctx *scalar.EvalContext, row types.Row, dst []dataflow.TimeSpan) ([]dataflow.TimeSpan, error) {
		d, err := ev(ctx, row)
		if err != nil || d.IsNull() {
			return dst, err
		}
		if s := span(d.Int()); s.From < s.To {
			dst = append(dst, s)
		}
		return dst, nil
	}, nil
}

// after returns the time just after v, infinity staying infinity.
func after(v int64) int64 {
	if v == math.MaxInt64 {
		return v
	}
	return v + 1
}

// intersectSpans intersects two sorted lists of disjoint intervals into a.
func intersectSpans(a, b []dataflow.TimeSpan) []dataflow.TimeSpan {
	var out []dataflow.TimeSpan
	for i, j := 0, 0; i < len(a) && j < len(b); {
		lo, hi := max(a[i].From, b[j].From), min(a[i].To, b[j].To)
		if lo < hi {
			out = append(out, dataflow.TimeSpan{From: lo, To: hi})
		}
		if a[i].To < b[j].To {
			i++
		} else {
			j++
		}
	}
	return append(a[:0], out...)
}

// uniteSpans unites two sorted lists of disjoint intervals into a.
func uniteSpans(a, b []dataflow.TimeSpan) []dataflow.TimeSpan {
	all := append(slices.Clone(a), b...)
	slices.SortFunc(all, func(x, y dataflow.TimeSpan) int {
		switch {
		case x.From < y.From:
			return -1
		case x.From > y.From:
			return 1
		}
		return 0
	})
	out := a[:0]
	for _, s := range all {
		if n := len(out); n > 0 && s.From <= out[n-1].To {
			out[n-1].To = max(out[n-1].To, s.To)
			continue
		}
		out = append(out, s)
	}
	return out
}
