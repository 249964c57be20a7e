package planner

import (
	"strings"
	"testing"

	"github.com/streamdb/streamdb/planner/scalar"
	"github.com/streamdb/streamdb/types"
)

// TestPhysical checks the decisions Physical records, in both modes,
// through EXPLAIN, which shows them; and that it leaves its input plan
// as it was.
func TestPhysical(t *testing.T) {
	cols := []Column{{"k", types.TypeInt8}, {"v", types.TypeInt8}}
	table := &Get{ID: 1, Name: "t", Cols: cols, KeyCols: []int{0}}
	stream := &Get{ID: 2, Name: "s", Cols: cols, AppendOnly: true}
	col := func(i int) *scalar.ColRef { return &scalar.ColRef{Idx: i, Typ: types.TypeInt8} }
	on := scalar.NewConst(types.NewBool(true), types.TypeBool)
	join := func() *Join { return &Join{Kind: InnerJoin, Left: stream, Right: stream, On: on} }
	project := func(in Node) *Project {
		return &Project{Input: in, Exprs: []scalar.Expr{col(0), col(3)}, Cols: cols}
	}
	shared := join()
	limit := scalar.NewConst(types.NewInt8(1), types.TypeInt8)
	for _, tc := range []struct {
		name                string
		plan                Node
		maintained, oneTick string // EXPLAIN in each mode
	}{
		{
			name:       "lookup",
			plan:       &Filter{Input: table, Pred: &scalar.In{Arg: col(0), List: []scalar.Expr{scalar.NewConst(types.NewInt8(7), types.TypeInt8)}}},
			maintained: "Filter (#0 IN (7))\n  Get t",
			oneTick:    "Get t lookup=[7]",
		},
		{
			name:       "projection built by the join",
			plan:       project(join()),
			maintained: "Join inner output=[#0, #3]\n  Get s\n  Get s",
			oneTick:    "Join inner output=[#0, #3]\n  Get s\n  Get s",
		},
		{
			name:       "a join read twice builds no projection",
			plan:       &SetOp{Kind: Union, All: true, Left: project(shared), Right: project(shared)},
			maintained: "SetOp union all\n  Project #0, #3\n    Join inner\n      Get s\n      Get s\n  Project #0, #3\n    Join inner\n      Get s\n      Get s",
			oneTick:    "SetOp union all\n  Project #0, #3\n    Join inner\n      Get s\n      Get s\n  Project #0, #3\n    Join inner\n      Get s\n      Get s",
		},
		{
			name:       "top-k over a table",
			plan:       &TopK{Input: table, Order: []SortKey{{Expr: col(1)}}, Limit: limit},
			maintained: "TopK order_by=[#1] limit=1\n  Get t",
			oneTick:    "TopK order_by=[#1] limit=1 monotonic\n  Get t",
		},
		{
			name:       "top-k gating its join",
			plan:       &TopK{Input: join(), Group: []int{0}, Order: []SortKey{{Expr: col(1)}}, Limit: limit},
			maintained: "TopK group=[#0] order_by=[#1] limit=1 monotonic\n  Join inner gated by the top-k\n    Get s\n    Get s",
			oneTick:    "TopK group=[#0] order_by=[#1] limit=1 monotonic\n  Join inner gated by the top-k\n    Get s\n    Get s",
		},
	} {
		before := ExplainNode(tc.plan)
		for _, m := range []struct {
			mode Mode
			want string
		}{{Maintained, tc.maintained}, {OneTick, tc.oneTick}} {
			got := strings.TrimSuffix(ExplainNode(Physical(tc.plan, m.mode)), "\n")
			if got != m.want {
				t.Errorf("%s, mode %d:\n%s\nwant\n%s", tc.name, m.mode, got, m.want)
			}
		}
		if after := ExplainNode(tc.plan); after != before {
			t.Errorf("%s: Physical changed its input plan:\n%s\nwas\n%s", tc.name, after, before)
		}
	}
}
