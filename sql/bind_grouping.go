package sql

import (
	"strconv"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/planner"
	"github.com/streamdb/streamdb/planner/scalar"
	"github.com/streamdb/streamdb/types"
)

// groupingRef stands for a GROUPING(...) call of the query level until the
// select list is rewritten over the aggregation's output.
type groupingRef struct{ idx int }

func (e *groupingRef) Type() types.Type                       { return types.TypeInt4 }
func (e *groupingRef) String() string                         { return "grouping" + strconv.Itoa(e.idx) }
func (e *groupingRef) Children() []scalar.Expr                { return nil }
func (e *groupingRef) WithChildren([]scalar.Expr) scalar.Expr { return e }

// groupingFunc binds GROUPING(args): its arguments must be GROUP BY keys;
// its value, a bit mask of the arguments not grouped in the row's grouping
// set, is computed per set when the aggregation is planned.
func (b *binder) groupingFunc(gf *pg_query.GroupingFunc, c *exprCtx) (scalar.Expr, error) {
	pos := loc(gf.Location)
	if c.agg == nil || c.agg.nested {
		what := c.what
		if what == "" {
			what = "this context"
		}
		return nil, pgerr.New(pgerr.GroupingError, "grouping operations are not allowed in %s", what).WithPosition(pos)
	}
	if len(gf.Args) > 31 {
		return nil, pgerr.New(pgerr.TooManyArguments, "GROUPING must have fewer than 32 arguments").WithPosition(pos)
	}
	var args []scalar.Expr
	for _, a := range gf.Args {
		e, err := b.expr(a, &exprCtx{s: c.s, what: "GROUPING"})
		if err != nil {
			return nil, err
		}
		args = append(args, e)
	}
	c.agg.groupings = append(c.agg.groupings, groupingCall{args: args, pos: pos})
	return &groupingRef{idx: len(c.agg.groupings) - 1}, nil
}

// groupingCall is a bound GROUPING(...) call.
type groupingCall struct {
	args []scalar.Expr
	pos  int
}

// aggregate plans the aggregation of a query level: one Aggregate for a
// plain GROUP BY, or one per grouping set, each padded with NULLs for the
// keys it does not group by, united. The output row is the keys, then the
// aggregates, then one column per GROUPING call.
func (b *binder) aggregate(input planner.Node, keys []scalar.Expr, sets [][]int, agg *aggCollector) (planner.Node, error) {
	masks := make([][]int, len(agg.groupings))
	for i, g := range agg.groupings {
		for _, a := range g.args {
			k := findExpr(keys, a)
			if k < 0 {
				return nil, pgerr.New(pgerr.GroupingError, "arguments to GROUPING must be grouping expressions of the associated query level").WithPosition(g.pos)
			}
			masks[i] = append(masks[i], k)
		}
	}
	cols := make([]planner.Column, 0, len(keys)+len(agg.calls)+len(masks))
	for _, k := range keys {
		cols = append(cols, planner.Column{Name: "?column?", Type: k.Type()})
	}
	for _, a := range agg.calls {
		cols = append(cols, planner.Column{Name: a.Func.Name, Type: a.Typ})
	}
	for range masks {
		cols = append(cols, planner.Column{Name: "grouping", Type: types.TypeInt4})
	}
	if sets == nil {
		var node planner.Node = &planner.Aggregate{Input: input, Keys: keys, Aggs: agg.calls, Cols: cols[:len(keys)+len(agg.calls)]}
		if len(masks) == 0 {
			return node, nil
		}
		// With a plain GROUP BY every key is grouped: GROUPING is 0.
		return groupingProject(node, keys, allKeys(len(keys)), len(agg.calls), masks, cols), nil
	}
	var out planner.Node
	for _, set := range sets {
		setKeys := make([]scalar.Expr, len(set))
		setCols := make([]planner.Column, 0, len(set)+len(agg.calls))
		for i, k := range set {
			setKeys[i] = keys[k]
			setCols = append(setCols, cols[k])
		}
		setCols = append(setCols, cols[len(keys):len(keys)+len(agg.calls)]...)
		part := groupingProject(&planner.Aggregate{Input: input, Keys: setKeys, Aggs: agg.calls, Cols: setCols}, keys, set, len(agg.calls), masks, cols)
		if out == nil {
			out = part
		} else {
			out = &planner.SetOp{Kind: planner.Union, All: true, Left: out, Right: part}
		}
	}
	return out, nil
}

func allKeys(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// groupingProject lays one grouping set's aggregate out as the full key
// list (NULL for keys outside the set), the aggregates, and the GROUPING
// values of the set.
func groupingProject(node planner.Node, keys []scalar.Expr, set []int, nAggs int, masks [][]int, cols []planner.Column) planner.Node {
	exprs := make([]scalar.Expr, 0, len(cols))
	for i, k := range keys {
		pos := -1
		for j, s := range set {
			if s == i {
				pos = j
			}
		}
		if pos < 0 {
			exprs = append(exprs, scalar.NullOf(k.Type()))
		} else {
			exprs = append(exprs, &scalar.ColRef{Idx: pos, Typ: k.Type()})
		}
	}
	for j := 0; j < nAggs; j++ {
		exprs = append(exprs, &scalar.ColRef{Idx: len(set) + j, Typ: cols[len(keys)+j].Type})
	}
	for _, m := range masks {
		v := int32(0)
		for _, k := range m {
			v <<= 1
			grouped := false
			for _, s := range set {
				if s == k {
					grouped = true
				}
			}
			if !grouped {
				v |= 1
			}
		}
		exprs = append(exprs, scalar.NewConst(types.NewInt4(v), types.TypeInt4))
	}
	return &planner.Project{Input: node, Exprs: exprs, Cols: cols}
}
