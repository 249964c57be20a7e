package sql

import (
	"slices"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/planner"
	"github.com/streamdb/streamdb/planner/scalar"
	"github.com/streamdb/streamdb/sql/parser"
	"github.com/streamdb/streamdb/types"
)

// A view's result must not change with the settings of whoever reads it:
// a materialized view is maintained with no reader at all, and a plain
// view is read by sessions in other time zones. So a view is bound with
// the settings of the session that creates it (TimeZone, DateStyle,
// IntervalStyle), and every expression whose result depends on them
// (date_part over a timestamptz, a timestamptz cast to date or text,
// to_char, timestamptz plus an interval of days) is pinned to them
// (scalar.Pinned). The stored statement says so:
//
//   - date_trunc(f, ts) over a timestamptz becomes the explicit
//     date_trunc(f, ts, 'Europe/Paris'), PostgreSQL's own form, which
//     depends on no setting;
//   - anything else pinned puts the settings in the statement's options,
//     CREATE VIEW v WITH (timezone = 'Europe/Paris', datestyle = 'ISO,
//     MDY', intervalstyle = 'postgres') AS …, which the view is bound
//     with again on every start.
//
// SHOW CREATE shows the stored statement. The functions that read the
// clock are refused in views (mz_now() is how a view follows time), and
// so are those that read the session's catalog.

// viewSettingNames are the settings a view binds with, as its options
// name them.
var viewSettingNames = []struct{ option, setting string }{
	{"timezone", "TimeZone"}, {"datestyle", "DateStyle"}, {"intervalstyle", "IntervalStyle"},
}

// viewBinding is how a view definition binds: with settings, the
// creating session's or those its stored statement names. For a new
// view, base is the byte position of its statement in the text its parse
// locations count in (rawStatement.base); the binder records in zoneCalls
// the locations of the date_trunc calls it gave an explicit zone, and
// pinPlan whether it pinned an expression to the settings.
type viewBinding struct {
	settings  *settings
	base      int
	zoneCalls []int
	pinned    bool
}

// newViewBinding is the binding of a view a session creates: its
// settings, overridden by those the statement's options name.
func newViewBinding(s *settings, raw *rawStatement) *viewBinding {
	return &viewBinding{settings: applyViewOptions(s, raw.node), base: raw.base}
}

// storedViewBinding returns the binding of a stored view statement: the
// settings of its options over the defaults.
func storedViewBinding(sqlText string) *viewBinding {
	st := newSettings("streamdb")
	raws, err := parseQuery(sqlText)
	if err != nil || len(raws) != 1 {
		return &viewBinding{settings: st}
	}
	if mv, ok := raws[0].ours.(*parser.CreateMaterializedView); ok {
		return storedViewBinding(mv.View.Text)
	}
	return &viewBinding{settings: applyViewOptions(st, raws[0].node)}
}

// applyViewOptions returns st with the settings a view statement's
// options name.
func applyViewOptions(st *settings, node *pg_query.Node) *settings {
	for _, o := range viewOptions(node) {
		de := o.GetDefElem()
		if de == nil {
			continue
		}
		for _, n := range viewSettingNames {
			if strings.EqualFold(de.Defname, n.option) {
				if s, _, err := st.set(n.setting, defElemString(de), false); err == nil {
					st = s
				}
			}
		}
	}
	return st
}

// viewOptions returns the WITH options of a CREATE VIEW or CREATE
// MATERIALIZED VIEW statement.
func viewOptions(node *pg_query.Node) []*pg_query.Node {
	switch {
	case node == nil:
	case node.GetViewStmt() != nil:
		return node.GetViewStmt().Options
	case node.GetCreateTableAsStmt() != nil && node.GetCreateTableAsStmt().Into != nil:
		return node.GetCreateTableAsStmt().Into.Options
	}
	return nil
}

// pinnable reports whether a view may pin a stable function to its
// settings: one that reads neither the clock nor the session's catalog.
func pinnable(fn *scalar.Func) bool {
	return fn.Volatility == scalar.Stable && !fn.Session && !clockFuncs[fn.Name] && fn.Name != scalar.MzNowName
}

// pinPlan pins the expressions of a view's optimised plan that depend on
// the session's settings to vb's.
func pinPlan(plan planner.Node, vb *viewBinding) planner.Node {
	if vb == nil {
		return plan
	}
	text := vb.settings.textConfig()
	zone, _ := vb.settings.get("TimeZone")
	var pin func(e scalar.Expr) scalar.Expr
	pin = func(e scalar.Expr) scalar.Expr {
		switch x := e.(type) {
		case *scalar.Pinned:
			return e
		case *scalar.Call:
			if pinnable(x.Fn) && !fixedArithmetic(x) {
				vb.pinned = true
				return &scalar.Pinned{Arg: x, Text: text, Zone: zone}
			}
		case *scalar.Cast:
			if scalar.CastDependsOnSettings(x) {
				vb.pinned = true
				return &scalar.Pinned{Arg: x, Text: text, Zone: zone}
			}
		}
		kids := e.Children()
		if len(kids) == 0 {
			return e
		}
		out := make([]scalar.Expr, len(kids))
		changed := false
		for i, k := range kids {
			out[i] = pin(k)
			changed = changed || out[i] != k
		}
		if !changed {
			return e
		}
		return e.WithChildren(out)
	}
	return planner.RewriteNodes(plan, func(n planner.Node) planner.Node { return planner.MapExprs(n, pin) })
}

// explicitZone gives a view's date_trunc over a timestamptz an explicit
// time zone, the binding's: in the plan, the three-argument form, and
// for the stored statement the call's location (see storeView). call is
// the bound two-argument call and fc its parse node.
func (b *binder) explicitZone(call *scalar.Call, fc *pg_query.FuncCall) (scalar.Expr, error) {
	if !b.inView || b.view == nil || call.Fn.Name != "date_trunc" || len(call.Args) != 2 || call.Args[1].Type().Family != types.TimestampTZ {
		return call, nil
	}
	zone, _ := b.view.settings.get("TimeZone")
	fn, _, err := scalar.ResolveFunc("date_trunc", []types.Type{types.TypeText, types.TypeTimestampTZ, types.TypeText})
	if err != nil {
		return nil, err
	}
	b.view.zoneCalls = append(b.view.zoneCalls, int(fc.Location))
	return &scalar.Call{Fn: fn, Args: []scalar.Expr{call.Args[0], call.Args[1], scalar.NewConst(types.NewText(zone), types.TypeText)}}, nil
}

// storeView returns the statement to store for a new view bound as vb:
// the statement as written, with the explicit zone of each date_trunc vb
// rewrote and, when vb pinned an expression, the settings among the
// view's options (those it names stay as they are). The text is spliced,
// not printed from its parse tree, so the rest reads as written.
func storeView(sqlText string, vb *viewBinding) string {
	zone, _ := vb.settings.get("TimeZone")
	calls := slices.Clone(vb.zoneCalls)
	slices.SortFunc(calls, func(a, b int) int { return b - a })
	for _, loc := range calls {
		at := parser.CloseParen(sqlText, loc-vb.base)
		if at < 0 {
			continue
		}
		sqlText = sqlText[:at] + ", " + parser.QuoteString(zone) + sqlText[at:]
	}
	if !vb.pinned {
		return sqlText
	}
	as, closing, ok := parser.ViewOptions(sqlText)
	if !ok {
		return sqlText
	}
	var named map[string]bool
	if raws, err := parseQuery(sqlText); err == nil && len(raws) == 1 {
		named = map[string]bool{}
		for _, o := range viewOptions(raws[0].node) {
			if de := o.GetDefElem(); de != nil {
				named[strings.ToLower(de.Defname)] = true
			}
		}
	}
	var opts []string
	for _, n := range viewSettingNames {
		if named[n.option] {
			continue
		}
		v, _ := vb.settings.get(n.setting)
		opts = append(opts, n.option+" = "+parser.QuoteString(v))
	}
	if len(opts) == 0 {
		return sqlText
	}
	if closing >= 0 {
		return sqlText[:closing] + ", " + strings.Join(opts, ", ") + sqlText[closing:]
	}
	return sqlText[:as] + "WITH (" + strings.Join(opts, ", ") + ") " + sqlText[as:]
}

// fixedArithmetic reports whether a call is a timestamptz plus or minus
// a constant interval without days or months, which depends on no
// setting (a day is not always 24 hours in a time zone; an hour is).
func fixedArithmetic(c *scalar.Call) bool {
	return (c.Fn.Name == "+" || c.Fn.Name == "-") && fixedStep(c.Args) ||
		c.Fn.Name == "+" && len(c.Args) == 2 && fixedStep(c.Args[:1])
}

// fixedStep reports whether the last argument of a set-returning call is
// a constant interval without days or months: generate_series over
// timestamptz with such a step depends on no setting.
func fixedStep(args []scalar.Expr) bool {
	if len(args) == 0 {
		return false
	}
	c, ok := args[len(args)-1].(*scalar.Const)
	if !ok || c.Val.IsNull() || c.Val.Kind() != types.Interval {
		return false
	}
	iv := c.Val.Interval()
	return iv.Months == 0 && iv.Days == 0
}

// viewTableFunc checks a set-returning function a view calls: one whose
// rows depend on the session's settings (generate_series over
// timestamptz stepping by days or months) is pinned to the view's.
func (b *binder) viewTableFunc(tf *scalar.TableFunc, name string, args []scalar.Expr, pos int) (*scalar.TableFunc, error) {
	if !b.inView || tf.Volatility == scalar.Immutable || fixedStep(args) {
		return tf, nil
	}
	if tf.Volatility == scalar.Stable && b.view != nil {
		b.view.pinned = true
		return tf.PinnedTo(b.view.settings.textConfig()), nil
	}
	return nil, pgerr.New(pgerr.FeatureNotSupported, "calls to %s are not allowed in materialized views", name).WithPosition(pos)
}
