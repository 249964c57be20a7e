package scalar

import (
	"strings"

	"github.com/streamdb/streamdb/types"
)

// RowsFrom is ROWS FROM (f(...), g(...), ...): the functions' rows side
// by side, the i-th row of each in the i-th row of the result, a function
// with fewer rows padded with NULLs. fns are resolved functions; the
// result takes their arguments one after the other. Each function is
// strict on its own arguments only: a NULL argument empties its own
// columns, not the others'.
func RowsFrom(fns []*TableFunc) *TableFunc {
	names := make([]string, len(fns))
	var params []types.Type
	vol := Immutable
	for i, f := range fns {
		names[i] = f.Name
		params = append(params, f.Params...)
		vol = max(vol, f.Volatility)
	}
	// widths[i] is the number of columns of function i.
	widths := make([]int, len(fns))
	for i, f := range fns {
		widths[i] = len(f.Columns(f.Params))
	}
	cols := func([]types.Type) []Column {
		var out []Column
		for _, f := range fns {
			out = append(out, f.Columns(f.Params)...)
		}
		return out
	}
	eval := func(ctx *EvalContext, args []types.Datum, emit func(types.Row) bool) error {
		rows := make([][]types.Row, len(fns))
		at, n := 0, 0
		for i, f := range fns {
			err := f.Eval(ctx, args[at:at+len(f.Params)], func(r types.Row) bool {
				rows[i] = append(rows[i], r.Copy())
				return true
			})
			if err != nil {
				return err
			}
			at += len(f.Params)
			n = max(n, len(rows[i]))
		}
		width := 0
		for _, w := range widths {
			width += w
		}
		out := make(types.Row, width)
		for r := range n {
			o := out[:0]
			for i, w := range widths {
				if r < len(rows[i]) {
					o = append(o, rows[i][r]...)
				} else {
					for range w {
						o = append(o, types.Null)
					}
				}
			}
			if !emit(o) {
				return nil
			}
		}
		return nil
	}
	return &TableFunc{Name: "rows from(" + strings.Join(names, ", ") + ")", Params: params, Ret: fns[0].Ret,
		Volatility: vol, cols: cols, eval: eval, takesNulls: true}
}

// SingleRow presents a resolved scalar function, called with arguments of
// types params, as a table function of one row, its value: a function
// that does not return a set inside ROWS FROM. A strict function with a
// NULL argument gives a row of NULL.
func SingleRow(fn *Func, params []types.Type) *TableFunc {
	eval := func(ctx *EvalContext, args []types.Datum, emit func(types.Row) bool) error {
		if fn.Strict {
			for _, a := range args {
				if a.IsNull() {
					emit(types.Row{types.Null})
					return nil
				}
			}
		}
		d, err := fn.Impl(ctx, args)
		if err != nil {
			return err
		}
		emit(types.Row{d})
		return nil
	}
	return &TableFunc{Name: fn.Name, Params: params, Ret: fn.Ret, Volatility: fn.Volatility,
		cols: fixedCols(Column{Name: fn.Name, Type: fn.Ret}), eval: eval, takesNulls: true}
}
