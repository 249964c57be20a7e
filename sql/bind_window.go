package sql

import (
	"fmt"
	"strconv"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/planner"
	"github.com/streamdb/streamdb/planner/scalar"
	"github.com/streamdb/streamdb/types"
)

// winRef stands for a window function's result until the select list is
// rewritten over the Window node's output.
type winRef struct {
	idx int
	typ types.Type
}

func (e *winRef) Type() types.Type                       { return e.typ }
func (e *winRef) String() string                         { return "win" + strconv.Itoa(e.idx) }
func (e *winRef) Children() []scalar.Expr                { return nil }
func (e *winRef) WithChildren([]scalar.Expr) scalar.Expr { return e }

// boundWindowCall is a window function call with its window, bound over
// the query's input (or, in an aggregating query, rewritten over the
// aggregate's output).
type boundWindowCall struct {
	call      planner.WindowCall
	partition []scalar.Expr
	order     []planner.SortKey
}

// rewrite applies fn to every expression of the call.
func (w *boundWindowCall) rewrite(fn func(scalar.Expr) (scalar.Expr, error)) error {
	var err error
	for i := range w.call.Args {
		if w.call.Args[i], err = fn(w.call.Args[i]); err != nil {
			return err
		}
	}
	if w.call.Filter != nil {
		if w.call.Filter, err = fn(w.call.Filter); err != nil {
			return err
		}
	}
	for i := range w.partition {
		if w.partition[i], err = fn(w.partition[i]); err != nil {
			return err
		}
	}
	for i := range w.order {
		if w.order[i].Expr, err = fn(w.order[i].Expr); err != nil {
			return err
		}
	}
	for _, b := range []*planner.FrameBound{&w.call.Frame.Start, &w.call.Frame.End} {
		if b.Offset != nil {
			if b.Offset, err = fn(b.Offset); err != nil {
				return err
			}
		}
	}
	return nil
}

// winCollector gathers the window function calls of one query level.
type winCollector struct {
	calls []boundWindowCall
	defs  map[string]*pg_query.WindowDef
}

// Frame option bits of PostgreSQL's WindowDef.frameOptions.
const (
	frameNonDefault      = 0x00001
	frameRange           = 0x00002
	frameRows            = 0x00004
	frameGroups          = 0x00008
	frameStartUnbPrec    = 0x00020
	frameEndUnbFollowing = 0x00100
	frameStartCurrentRow = 0x00200
	frameEndCurrentRow   = 0x00400
	frameStartOffPrec    = 0x00800
	frameEndOffPrec      = 0x01000
	frameStartOffFoll    = 0x02000
	frameEndOffFoll      = 0x04000
	frameExcludeCurrent  = 0x08000
	frameExcludeGroup    = 0x10000
	frameExcludeTies     = 0x20000
)

func (b *binder) windowCall(fc *pg_query.FuncCall, name string, c *exprCtx) (scalar.Expr, error) {
	pos := loc(fc.Location)
	if c.win == nil {
		what := c.what
		if what == "" {
			what = "this context"
		}
		return nil, pgerr.New(pgerr.WindowingError, "window functions are not allowed in %s", what).WithPosition(pos)
	}
	if fc.AggDistinct {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "DISTINCT is not implemented for window functions").WithPosition(pos)
	}
	if len(fc.AggOrder) > 0 {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "aggregate ORDER BY is not implemented for window functions").WithPosition(pos)
	}
	def, err := c.win.resolveDef(fc.Over)
	if err != nil {
		return nil, withPosition(err, pos)
	}
	inner := &exprCtx{s: c.s, agg: c.agg, what: "window function arguments"}
	var args []scalar.Expr
	argTypes := []types.Type{}
	if !fc.AggStar {
		for _, an := range fc.Args {
			a, err := b.expr(an, inner)
			if err != nil {
				return nil, err
			}
			args = append(args, a)
			argTypes = append(argTypes, a.Type())
		}
	}
	var wc boundWindowCall
	if scalar.IsAggregate(name) || fc.AggStar {
		agg, targets, err := scalar.ResolveAggregate(name, argTypes, false)
		if err != nil {
			return nil, withPosition(err, pos)
		}
		if err := starless(fc, agg, name, pos); err != nil {
			return nil, err
		}
		for i := range args {
			if args[i], err = b.coerce(args[i], targets[i], coerceImplicit, pos); err != nil {
				return nil, err
			}
		}
		wc.call = planner.WindowCall{Agg: agg, Args: args, Typ: agg.Ret}
		if fc.AggFilter != nil {
			f, err := b.expr(fc.AggFilter, &exprCtx{s: c.s, what: "FILTER"})
			if err != nil {
				return nil, err
			}
			if wc.call.Filter, err = b.coerceBool(f, "FILTER", pos); err != nil {
				return nil, err
			}
		}
	} else {
		if fc.AggFilter != nil {
			return nil, pgerr.New(pgerr.FeatureNotSupported, "FILTER is not implemented for non-aggregate window functions").WithPosition(pos)
		}
		wf, targets, err := scalar.ResolveWindowFunc(name, argTypes)
		if err != nil {
			return nil, withPosition(err, pos)
		}
		for i := range args {
			if args[i], err = b.coerce(args[i], targets[i], coerceImplicit, pos); err != nil {
				return nil, err
			}
		}
		wc.call = planner.WindowCall{Func: wf, Args: args, Typ: wf.Ret}
	}
	for _, pn := range def.PartitionClause {
		e, err := b.expr(pn, &exprCtx{s: c.s, agg: c.agg, what: "window PARTITION BY"})
		if err != nil {
			return nil, err
		}
		wc.partition = append(wc.partition, e)
	}
	for _, on := range def.OrderClause {
		sb := on.GetSortBy()
		e, err := b.expr(sb.Node, &exprCtx{s: c.s, agg: c.agg, what: "window ORDER BY"})
		if err != nil {
			return nil, err
		}
		wc.order = append(wc.order, sortKey(e, sb))
	}
	if wc.call.Frame, err = b.frame(def, wc.order, c.s); err != nil {
		return nil, withPosition(err, pos)
	}
	sig := wc.signature()
	for i := range c.win.calls {
		if c.win.calls[i].signature() == sig {
			// The same call again (DISTINCT ON or ORDER BY repeating a
			// select-list item) is the same value.
			return &winRef{idx: i, typ: wc.call.Typ}, nil
		}
	}
	c.win.calls = append(c.win.calls, wc)
	return &winRef{idx: len(c.win.calls) - 1, typ: wc.call.Typ}, nil
}

// signature identifies a call by everything that decides its value.
func (w *boundWindowCall) signature() string {
	var sb strings.Builder
	c := &w.call
	if c.Func != nil {
		sb.WriteString(c.Func.Name)
	} else {
		sb.WriteString(c.Agg.Name)
	}
	sb.WriteString("(")
	for _, a := range c.Args {
		sb.WriteString(a.String() + " " + a.Type().String() + ",")
	}
	if c.Filter != nil {
		sb.WriteString(") filter (" + c.Filter.String())
	}
	sb.WriteString(") partition (")
	for _, p := range w.partition {
		sb.WriteString(p.String() + ",")
	}
	sb.WriteString(") order (")
	for _, o := range w.order {
		fmt.Fprintf(&sb, "%s %v %v,", o.Expr, o.Desc, o.NullsFirst)
	}
	f := c.Frame
	fmt.Fprintf(&sb, ") frame %d %d %d %d", f.Mode, f.Start.Kind, f.End.Kind, f.Exclude)
	for _, o := range []scalar.Expr{f.Start.Offset, f.End.Offset} {
		if o != nil {
			sb.WriteString(" " + o.String())
		}
	}
	return sb.String()
}

// resolveDef merges a call's OVER clause with the named window it refers to.
func (w *winCollector) resolveDef(over *pg_query.WindowDef) (*pg_query.WindowDef, error) {
	name := over.Refname
	if name == "" && len(over.PartitionClause) == 0 && len(over.OrderClause) == 0 && over.FrameOptions&frameNonDefault == 0 {
		name = over.Name
	}
	if name == "" {
		return over, nil
	}
	ref, ok := w.defs[name]
	if !ok {
		return nil, pgerr.New(pgerr.UndefinedObject, "window %q does not exist", name)
	}
	merged := pg_query.WindowDef{
		PartitionClause: ref.PartitionClause, OrderClause: ref.OrderClause,
		FrameOptions: ref.FrameOptions, StartOffset: ref.StartOffset, EndOffset: ref.EndOffset,
	}
	if len(over.OrderClause) > 0 {
		merged.OrderClause = over.OrderClause
	}
	if over.FrameOptions&frameNonDefault != 0 {
		merged.FrameOptions, merged.StartOffset, merged.EndOffset = over.FrameOptions, over.StartOffset, over.EndOffset
	}
	return &merged, nil
}

// frame decodes a window's frame clause. Offsets are constants: bound in
// the query's scope, so that a column is refused as PostgreSQL refuses
// it, and cast to bigint for ROWS and GROUPS or, for RANGE, to the offset
// type of the in_range function of the window's one ORDER BY column.
func (b *binder) frame(def *pg_query.WindowDef, order []planner.SortKey, s *scope) (planner.Frame, error) {
	opts := def.FrameOptions
	if opts&frameNonDefault == 0 {
		return planner.DefaultFrame, nil
	}
	var f planner.Frame
	mode := "RANGE"
	switch {
	case opts&frameRows != 0:
		f.Mode, mode = planner.FrameRows, "ROWS"
	case opts&frameGroups != 0:
		f.Mode, mode = planner.FrameGroups, "GROUPS"
	default:
		f.Mode = planner.FrameRange
	}
	switch {
	case opts&frameExcludeCurrent != 0:
		f.Exclude = planner.ExcludeCurrentRow
	case opts&frameExcludeGroup != 0:
		f.Exclude = planner.ExcludeGroup
	case opts&frameExcludeTies != 0:
		f.Exclude = planner.ExcludeTies
	}
	hasOffset := opts&(frameStartOffPrec|frameStartOffFoll|frameEndOffPrec|frameEndOffFoll) != 0
	switch {
	case f.Mode == planner.FrameRange && hasOffset && len(order) != 1:
		return f, pgerr.New(pgerr.WindowingError, "RANGE with offset PRECEDING/FOLLOWING requires exactly one ORDER BY column")
	case f.Mode == planner.FrameGroups && len(order) == 0:
		return f, pgerr.New(pgerr.WindowingError, "GROUPS mode requires an ORDER BY clause")
	}
	offset := func(n *pg_query.Node) (scalar.Expr, error) {
		e, err := b.expr(n, &exprCtx{s: s, what: "window " + mode})
		if err != nil {
			return nil, err
		}
		if hasVariables(e) {
			return nil, pgerr.New(pgerr.InvalidColumnReference, "argument of %s must not contain variables", mode)
		}
		if f.Mode != planner.FrameRange {
			return b.coerce(e, types.TypeInt8, coerceImplicit, 0)
		}
		t, err := scalar.ResolveInRange(order[0].Expr.Type(), e.Type())
		if err != nil {
			return nil, err
		}
		return b.coerce(e, t, coerceImplicit, 0)
	}
	var err error
	switch {
	case opts&frameStartUnbPrec != 0:
		f.Start.Kind = planner.UnboundedPreceding
	case opts&frameStartCurrentRow != 0:
		f.Start.Kind = planner.CurrentRow
	case opts&frameStartOffPrec != 0:
		f.Start.Kind = planner.OffsetPreceding
		f.Start.Offset, err = offset(def.StartOffset)
	case opts&frameStartOffFoll != 0:
		f.Start.Kind = planner.OffsetFollowing
		f.Start.Offset, err = offset(def.StartOffset)
	}
	if err != nil {
		return f, err
	}
	switch {
	case opts&frameEndUnbFollowing != 0:
		f.End.Kind = planner.UnboundedFollowing
	case opts&frameEndOffPrec != 0:
		f.End.Kind = planner.OffsetPreceding
		f.End.Offset, err = offset(def.EndOffset)
	case opts&frameEndOffFoll != 0:
		f.End.Kind = planner.OffsetFollowing
		f.End.Offset, err = offset(def.EndOffset)
	default:
		f.End.Kind = planner.CurrentRow
	}
	return f, err
}

// hasVariables reports whether e reads a column of this query or of an
// enclosing one.
func hasVariables(e scalar.Expr) bool {
	found := false
	scalar.Walk(e, func(x scalar.Expr) bool {
		switch x.(type) {
		case *scalar.ColRef, *planner.OuterRef:
			found = true
		}
		return !found
	})
	return found
}

// windows plans the window calls of a query over node: calls that share a
// window share one Window node. The partition and order expressions are
// first computed as extra columns, then every winRef in targets becomes a
// reference to its result column.
func (b *binder) windows(node planner.Node, win *winCollector, targets []scalar.Expr) (planner.Node, error) {
	base := node.Columns()
	var extra []scalar.Expr
	colOf := func(e scalar.Expr) int {
		if cr, ok := e.(*scalar.ColRef); ok {
			return cr.Idx
		}
		if i := findExpr(extra, e); i >= 0 {
			return len(base) + i
		}
		extra = append(extra, e)
		return len(base) + len(extra) - 1
	}
	type group struct {
		partition []int
		order     []planner.SortKey
		calls     []int
		sig       string
	}
	var groups []*group
	for i := range win.calls {
		wc := &win.calls[i]
		g := &group{}
		for _, p := range wc.partition {
			g.partition = append(g.partition, colOf(p))
			g.sig += "p" + strconv.Itoa(g.partition[len(g.partition)-1]) + ","
		}
		for _, o := range wc.order {
			idx := colOf(o.Expr)
			g.order = append(g.order, planner.SortKey{Expr: &scalar.ColRef{Idx: idx, Typ: o.Expr.Type()}, Desc: o.Desc, NullsFirst: o.NullsFirst})
			g.sig += "o" + strconv.Itoa(idx) + strconv.FormatBool(o.Desc) + strconv.FormatBool(o.NullsFirst) + ","
		}
		found := false
		for _, other := range groups {
			if other.sig == g.sig {
				other.calls = append(other.calls, i)
				found = true
				break
			}
		}
		if !found {
			g.calls = []int{i}
			groups = append(groups, g)
		}
	}
	if len(extra) > 0 {
		exprs := make([]scalar.Expr, 0, len(base)+len(extra))
		cols := append([]planner.Column(nil), base...)
		for i, c := range base {
			exprs = append(exprs, &scalar.ColRef{Idx: i, Typ: c.Type})
		}
		for _, e := range extra {
			exprs = append(exprs, e)
			cols = append(cols, planner.Column{Name: "?column?", Type: e.Type()})
		}
		node = &planner.Project{Input: node, Exprs: exprs, Cols: cols}
	}
	resultCol := make([]int, len(win.calls))
	for _, g := range groups {
		w := &planner.Window{Input: node, PartitionBy: g.partition, Order: g.order}
		width := len(node.Columns())
		for j, ci := range g.calls {
			wc := win.calls[ci]
			w.Calls = append(w.Calls, wc.call)
			name := "?column?"
			if wc.call.Func != nil {
				name = wc.call.Func.Name
			} else if wc.call.Agg != nil {
				name = wc.call.Agg.Name
			}
			w.Cols = append(w.Cols, planner.Column{Name: name, Type: wc.call.Typ})
			resultCol[ci] = width + j
		}
		node = w
	}
	for i, t := range targets {
		targets[i] = scalar.Rewrite(t, func(e scalar.Expr) scalar.Expr {
			if r, ok := e.(*winRef); ok {
				return &scalar.ColRef{Idx: resultCol[r.idx], Typ: r.typ}
			}
			return e
		})
	}
	return node, nil
}

// windowDefs indexes the WINDOW clause by name.
func windowDefs(list []*pg_query.Node) map[string]*pg_query.WindowDef {
	defs := map[string]*pg_query.WindowDef{}
	for _, n := range list {
		if d := n.GetWindowDef(); d != nil {
			defs[d.Name] = d
		}
	}
	return defs
}
