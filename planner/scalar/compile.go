package scalar

import (
	"fmt"

	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/types"
)

// Compile turns e into an Evaluator. The node switch runs here, once; the
// returned closures only evaluate. Unknown node kinds (the planner's
// subquery nodes, which must be rewritten away first) are an internal
// error.
func Compile(e Expr) (Evaluator, error) {
	switch e := e.(type) {
	case *ColRef:
		idx := e.Idx
		return func(_ *EvalContext, row types.Row) (types.Datum, error) {
			if idx >= len(row) {
				return types.Null, pgerr.New(pgerr.InternalError, "column #%d out of range for a row of %d columns", idx, len(row))
			}
			return row[idx], nil
		}, nil
	case *Const:
		v := e.Val
		return func(*EvalContext, types.Row) (types.Datum, error) { return v, nil }, nil
	case *Param:
		idx := e.Idx
		return func(ctx *EvalContext, _ types.Row) (types.Datum, error) {
			if ctx == nil || idx >= len(ctx.Params) {
				return types.Null, pgerr.New(pgerr.UndefinedParameter, "there is no parameter $%d", idx+1)
			}
			return ctx.Params[idx], nil
		}, nil
	case *Cast:
		return compileCast(e)
	case *Call:
		return compileCall(e)
	case *And:
		return compileAnd(e)
	case *Or:
		return compileOr(e)
	case *Not:
		return compileNot(e)
	case *IsNull:
		return compileIsNull(e)
	case *IsTruth:
		return compileIsTruth(e)
	case *IsUnknown:
		return compileIsUnknown(e)
	case *IsDistinctFrom:
		return compileIsDistinct(e)
	case *Case:
		return compileCase(e)
	case *Coalesce:
		return compileCoalesce(e)
	case *NullIf:
		return compileNullIf(e)
	case *Greatest:
		return compileExtreme(e.Args, 1)
	case *Least:
		return compileExtreme(e.Args, -1)
	case *In:
		return compileIn(e)
	case *ArrayExpr:
		return compileArray(e)
	case *Subscript:
		return compileSubscript(e)
	case *Slice:
		return compileSlice(e)
	case *RowExpr:
		return compileRow(e)
	case *FieldSelect:
		return compileFieldSelect(e)
	case *AnyAll:
		return compileAnyAll(e)
	case *Pinned:
		return compilePinned(e)
	}
	return nil, pgerr.New(pgerr.InternalError, "cannot compile expression node %T", e)
}

func compileAll(es []Expr) ([]Evaluator, error) {
	evs := make([]Evaluator, len(es))
	for i, e := range es {
		ev, err := Compile(e)
		if err != nil {
			return nil, err
		}
		evs[i] = ev
	}
	return evs, nil
}

func compileCast(e *Cast) (Evaluator, error) {
	arg, err := Compile(e.Arg)
	if err != nil {
		return nil, err
	}
	from, to := e.Arg.Type(), e.To
	if from == to {
		return arg, nil
	}
	kind := e.Kind
	if kind == 0 {
		kind = types.CastExplicit
	}
	if relabel(from, to) {
		f := to.Family
		return func(ctx *EvalContext, row types.Row) (types.Datum, error) {
			d, err := arg(ctx, row)
			return d.WithKind(f), err
		}, nil
	}
	return func(ctx *EvalContext, row types.Row) (types.Datum, error) {
		d, err := arg(ctx, row)
		if err != nil || d.IsNull() {
			return d, err
		}
		return types.CastIn(d, from, to, kind, ctx.textConfig())
	}, nil
}

// relabel reports whether a cast only changes the Datum's family: integer
// widening, and between text and varchar without a length limit.
func relabel(from, to types.Type) bool {
	if to.Mod >= 0 {
		return false
	}
	switch {
	case from.Family.IsInteger() && to.Family.IsInteger():
		return to.Family >= from.Family
	case from.Family == types.Text || from.Family == types.Varchar:
		return to.Family == types.Text || to.Family == types.Varchar
	}
	return false
}

// compileCall specialises the common arities so that the argument scratch
// slice is filled without a loop, and checks strictness generically.
func compileCall(e *Call) (Evaluator, error) {
	fn := e.Fn
	if fn == nil || fn.Impl == nil {
		return nil, pgerr.New(pgerr.InternalError, "call of unresolved function")
	}
	impl := fn.Impl
	if fn.prepare != nil {
		if p := fn.prepare(e.Args); p != nil {
			impl = p
		}
	}
	args, err := compileAll(e.Args)
	if err != nil {
		return nil, err
	}
	buf := make([]types.Datum, len(args))
	strictFn := fn.Strict
	switch len(args) {
	case 0:
		return func(ctx *EvalContext, _ types.Row) (types.Datum, error) { return impl(ctx, buf) }, nil
	case 1:
		a0 := args[0]
		return func(ctx *EvalContext, row types.Row) (types.Datum, error) {
			d, err := a0(ctx, row)
			if err != nil || (strictFn && d.IsNull()) {
				return types.Null, err
			}
			buf[0] = d
			return impl(ctx, buf)
		}, nil
	case 2:
		a0, a1 := args[0], args[1]
		// Both arguments are evaluated before the NULL check, as
		// PostgreSQL does: NULL + x / 0 fails.
		if bin := fn.binary; bin != nil && strictFn && fn.prepare == nil {
			if ev := compileBinaryConst(e.Args, a0, bin); ev != nil {
				return ev, nil
			}
			return func(ctx *EvalContext, row types.Row) (types.Datum, error) {
				d0, err := a0(ctx, row)
				if err != nil {
					return types.Null, err
				}
				d1, err := a1(ctx, row)
				if err != nil || d0.IsNull() || d1.IsNull() {
					return types.Null, err
				}
				return bin(d0, d1)
			}, nil
		}
		return func(ctx *EvalContext, row types.Row) (types.Datum, error) {
			d0, err := a0(ctx, row)
			if err != nil {
				return types.Null, err
			}
			d1, err := a1(ctx, row)
			if err != nil || (strictFn && (d0.IsNull() || d1.IsNull())) {
				return types.Null, err
			}
			buf[0], buf[1] = d0, d1
			return impl(ctx, buf)
		}, nil
	}
	return func(ctx *EvalContext, row types.Row) (types.Datum, error) {
		null := false
		for i, a := range args {
			d, err := a(ctx, row)
			if err != nil {
				return types.Null, err
			}
			null = null || d.IsNull()
			buf[i] = d
		}
		if strictFn && null {
			return types.Null, nil
		}
		return impl(ctx, buf)
	}, nil
}

// compileBinaryConst compiles a strict binary call whose second operand
// is a constant (a column compared with a literal, x % 123 = 0) with the
// constant's value held in the closure, and a column first operand read
// in place: a filter's predicate is a few such calls per row, and each
// operand evaluated through a closure of its own was a third of its
// cost. It returns nil for other calls. a0 is the first operand's
// evaluator.
func compileBinaryConst(args []Expr, a0 Evaluator, bin Binary) Evaluator {
	c, ok := constValue(args[1])
	if !ok {
		return nil
	}
	if c.IsNull() {
		// Strict: the result is NULL once the first operand has been
		// evaluated (it may fail).
		return func(ctx *EvalContext, row types.Row) (types.Datum, error) {
			_, err := a0(ctx, row)
			return types.Null, err
		}
	}
	if col, ok := args[0].(*ColRef); ok {
		idx := col.Idx
		return func(_ *EvalContext, row types.Row) (types.Datum, error) {
			if idx >= len(row) {
				return types.Null, pgerr.New(pgerr.InternalError, "column #%d out of range for a row of %d columns", idx, len(row))
			}
			d := row[idx]
			if d.IsNull() {
				return types.Null, nil
			}
			return bin(d, c)
		}
	}
	return func(ctx *EvalContext, row types.Row) (types.Datum, error) {
		d, err := a0(ctx, row)
		if err != nil || d.IsNull() {
			return types.Null, err
		}
		return bin(d, c)
	}
}

// constValue returns the value of a constant operand: a Const, or a
// Const under casts that only relabel it (an integer literal widened to
// the other operand's type), which compileCast would apply to every row.
func constValue(e Expr) (types.Datum, bool) {
	switch e := e.(type) {
	case *Const:
		return e.Val, true
	case *Cast:
		if from := e.Arg.Type(); from == e.To || relabel(from, e.To) {
			if d, ok := constValue(e.Arg); ok {
				return d.WithKind(e.To.Family), true
			}
		}
	}
	return types.Null, false
}

// internalf reports a bug: a value of the wrong family reached a function.
func internalf(format string, args ...any) error {
	return pgerr.New(pgerr.InternalError, "%s", fmt.Sprintf(format, args...))
}
