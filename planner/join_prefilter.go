package planner

import (
	"github.com/streamdb/streamdb/planner/scalar"
	"github.com/streamdb/streamdb/types"
)

// A join's output row is the width of both inputs, and the operators
// right above a join often drop most of them: its residual (Nexmark q4,
// q6 and q9 keep a bid made while its auction was open) and a top-k that
// keeps an auction's highest bid. A prefilter runs those tests on the
// matched pair first, with only the columns they read copied into a
// scratch row, and the row is built only for a pair that passes. A test
// may run there only when it cannot fail: an error of a dropped row
// would be lost, where a filter on the built row reports it.

// prefilter is the tests a join's matches must pass before their rows
// are built, and the columns of the output row they read.
type prefilter struct {
	cols []int
	keep func(types.Row) bool
}

// add adds a test reading cols of the output row.
func (p *prefilter) add(cols []int, keep func(types.Row) bool) {
	p.cols = append(p.cols, cols...)
	if prev := p.keep; prev != nil {
		p.keep = func(row types.Row) bool { return prev(row) && keep(row) }
		return
	}
	p.keep = keep
}

// output wraps a join's Output so that it returns nil for a match that
// fails a test, or returns output itself when there is none. lw is the
// width of the left rows, width that of the output rows.
func (p *prefilter) output(output func(a, b types.Row) types.Row, lw, width int) func(a, b types.Row) types.Row {
	if p.keep == nil {
		return output
	}
	scratch := make(types.Row, width)
	cols, keep := p.cols, p.keep
	return func(a, b types.Row) types.Row {
		for _, c := range cols {
			if c < lw {
				scratch[c] = a[c]
			} else {
				scratch[c] = b[c-lw]
			}
		}
		if !keep(scratch) {
			return nil
		}
		return output(a, b)
	}
}

// cannotFail reports whether evaluating e never raises an error: column
// references and constants, compared with one another at one scalar
// type and combined with AND, OR, NOT and IS NULL (a BETWEEN of
// timestamps).
func cannotFail(e scalar.Expr) bool {
	switch x := e.(type) {
	case *scalar.ColRef, *scalar.Const:
		return true
	case *scalar.And:
		return allCannotFail(x.Args)
	case *scalar.Or:
		return allCannotFail(x.Args)
	case *scalar.Not:
		return cannotFail(x.Arg)
	case *scalar.IsNull:
		return cannotFail(x.Arg)
	case *scalar.Call:
		switch x.Fn.Name {
		case "=", "<>", "<", "<=", ">", ">=":
			return len(x.Args) == 2 && x.Args[0].Type() == x.Args[1].Type() &&
				comparesWithoutError(x.Args[0].Type().Family) && allCannotFail(x.Args)
		}
	}
	return false
}

// comparesWithoutError reports whether the comparison operators of a
// family are total: types.Compare, which returns no error.
func comparesWithoutError(f types.Family) bool {
	switch f {
	case types.Bool, types.Int2, types.Int4, types.Int8, types.Float4, types.Float8, types.Numeric,
		types.Text, types.Varchar, types.Date, types.Time, types.Timestamp, types.TimestampTZ, types.Interval:
		return true
	}
	return false
}

func allCannotFail(es []scalar.Expr) bool {
	for _, e := range es {
		if !cannotFail(e) {
			return false
		}
	}
	return true
}
