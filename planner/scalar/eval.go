package scalar

import (
	"time"

	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/types"
)

// EvalContext carries what evaluation needs beyond the row: parameter
// values, the statement's clock and the session's text settings. One is
// built per statement (or per tick for maintained views) and shared by all
// evaluators of a plan.
type EvalContext struct {
	// Params are the values of $1, $2, ….
	Params []types.Datum
	// TxnTime is now(), current_timestamp and transaction_timestamp().
	TxnTime time.Time
	// StmtTime is statement_timestamp(); TxnTime when zero.
	StmtTime time.Time
	// ReadTime is mz_now(): the timestamp the statement reads at (the
	// snapshot's tick); the current time when zero.
	ReadTime time.Time
	// Text holds TimeZone (for timestamptz arithmetic and output),
	// DateStyle, IntervalStyle and the float output settings; nil means
	// types.DefaultTextConfig(). Its Names resolves reg* values.
	Text *types.TextConfig
	// Session serves the functions that read or change the session and
	// its catalog (current_setting, set_config, pg_get_viewdef…); nil
	// where there is no session, as in maintained views, which may not
	// call them.
	Session Session
}

var defaultText = types.DefaultTextConfig()

// textConfig returns the session's text settings.
func (c *EvalContext) textConfig() *types.TextConfig {
	if c == nil || c.Text == nil {
		return defaultText
	}
	return c.Text
}

// location returns the session TimeZone.
func (c *EvalContext) location() *time.Location {
	if cfg := c.textConfig(); cfg.Location != nil {
		return cfg.Location
	}
	return time.UTC
}

// Evaluator computes an expression over one input row.
type Evaluator func(ctx *EvalContext, row types.Row) (types.Datum, error)

// Predicate evaluates a boolean expression as a filter: NULL counts as
// false.
type Predicate func(ctx *EvalContext, row types.Row) (bool, error)

// CompilePredicate compiles a boolean expression into a Predicate.
func CompilePredicate(e Expr) (Predicate, error) {
	if e.Type().Family != types.Bool {
		return nil, pgerr.New(pgerr.DatatypeMismatch, "argument of WHERE must be type boolean, not type %s", typeName(e.Type()))
	}
	if a, ok := e.(*And); ok {
		ps := make([]Predicate, len(a.Args))
		for i, arg := range a.Args {
			p, err := CompilePredicate(arg)
			if err != nil {
				return nil, err
			}
			ps[i] = p
		}
		return func(ctx *EvalContext, row types.Row) (bool, error) {
			for _, p := range ps {
				if ok, err := p(ctx, row); !ok || err != nil {
					return false, err
				}
			}
			return true, nil
		}, nil
	}
	ev, err := Compile(e)
	if err != nil {
		return nil, err
	}
	return func(ctx *EvalContext, row types.Row) (bool, error) {
		d, err := ev(ctx, row)
		return d.Kind() == types.Bool && d.Bool(), err
	}, nil
}

// Eval compiles and evaluates e once, for constant expressions and tests.
func Eval(ctx *EvalContext, e Expr, row types.Row) (types.Datum, error) {
	ev, err := Compile(e)
	if err != nil {
		return types.Null, err
	}
	return ev(ctx, row)
}
