package scalar

import (
	"sync/atomic"

	"github.com/streamdb/streamdb/types"
)

// Pinned evaluates Arg under the text settings a view was created with
// (TimeZone, DateStyle, IntervalStyle and the rest of types.TextConfig),
// whatever the settings of the session that reads the view or of the
// tick that maintains it: a view's date_part('hour', ts) over a
// timestamptz, or its ts::date, means what it meant where it was created
// (PostgreSQL would evaluate it in the reader's TimeZone, and a
// maintained view has no reader). Zone names the TimeZone, for EXPLAIN.
// A pinned expression is as foldable as its arguments: its result no
// longer depends on the session.
type Pinned struct {
	Arg  Expr
	Text *types.TextConfig
	Zone string
}

func (e *Pinned) Type() types.Type { return e.Arg.Type() }
func (e *Pinned) String() string   { return "(" + e.Arg.String() + " pinned to " + e.Zone + ")" }
func (e *Pinned) Children() []Expr { return []Expr{e.Arg} }

func (e *Pinned) WithChildren(c []Expr) Expr {
	n := *e
	n.Arg = c[0]
	return &n
}

// pinnedContext is an evaluation context derived from another with the
// pinned settings; compilePinned keeps the last one it made.
type pinnedContext struct {
	from *EvalContext
	ctx  EvalContext
}

func compilePinned(e *Pinned) (Evaluator, error) {
	arg, err := Compile(e.Arg)
	if err != nil {
		return nil, err
	}
	text := e.Text
	var last atomic.Pointer[pinnedContext]
	return func(ctx *EvalContext, row types.Row) (types.Datum, error) {
		p := last.Load()
		if p == nil || p.from != ctx {
			p = &pinnedContext{from: ctx}
			if ctx != nil {
				p.ctx = *ctx
			}
			p.ctx.Text = text
			last.Store(p)
		}
		return arg(&p.ctx, row)
	}, nil
}

// PinnedTo returns f evaluated with the settings text instead of the
// session's, which makes it immutable: a view pins a set-returning
// function whose rows depend on the TimeZone (generate_series over
// timestamptz stepping by days or months) to its creator's settings, as
// Pinned does for a scalar expression.
func (f *TableFunc) PinnedTo(text *types.TextConfig) *TableFunc {
	inst := *f
	inner := f.eval
	inst.Volatility = Immutable
	inst.eval = func(ctx *EvalContext, args []types.Datum, emit func(types.Row) bool) error {
		var pc EvalContext
		if ctx != nil {
			pc = *ctx
		}
		pc.Text = text
		return inner(&pc, args, emit)
	}
	return &inst
}
