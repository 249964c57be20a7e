package planner

import (
	"fmt"
	"strings"
	"testing"

	"github.com/streamdb/streamdb/planner/scalar"
	"github.com/streamdb/streamdb/types"
)

func TestLimitWindows(t *testing.T) {
	get := &Get{Name: "t", Cols: []Column{{"g", types.TypeInt8}, {"x", types.TypeInt8}, {"j", types.TypeJSONB}}}
	win := func(order int, calls ...scalar.WindowKind) *Window {
		w := &Window{Input: get, PartitionBy: []int{0}}
		if order >= 0 {
			w.Order = []SortKey{{Expr: &scalar.ColRef{Idx: order, Typ: get.Cols[order].Type}, Desc: true, NullsFirst: true}}
		}
		for _, k := range calls {
			name := map[scalar.WindowKind]string{scalar.WinRowNumber: "row_number", scalar.WinRank: "rank", scalar.WinPercentRank: "percent_rank"}[k]
			w.Calls = append(w.Calls, WindowCall{Func: &scalar.WindowFunc{Name: name, Kind: k}, Typ: types.TypeInt8})
			w.Cols = append(w.Cols, Column{name, types.TypeInt8})
		}
		return w
	}
	rn := &scalar.ColRef{Idx: 3, Typ: types.TypeInt8}
	cmp := func(op string, a, b scalar.Expr) scalar.Expr {
		fn, _, err := scalar.ResolveBinaryOp(op, a.Type(), b.Type())
		if err != nil {
			t.Fatal(err)
		}
		return &scalar.Call{Fn: fn, Args: []scalar.Expr{a, b}}
	}
	k := func(v int64) scalar.Expr { return scalar.NewConst(types.NewInt8(v), types.TypeInt8) }
	const limited = "Filter %s\n  Window partition_by=[#0] order_by=[#1 desc] calls=[%s]\n    TopK group=[#0] order_by=[#1 desc] limit=%s\n      Get t\n"
	for _, tc := range []struct {
		name string
		plan Node
		// want is the filter, the calls and the limit of the TopK put
		// below the window, or "" when the plan stays as it is.
		want string
	}{{
		name: "rn <= 1",
		plan: &Filter{Input: win(1, scalar.WinRowNumber), Pred: cmp("<=", rn, k(1))},
		want: "(#3 <= 1)|row_number()|1",
	}, {
		name: "rn < 3",
		plan: &Filter{Input: win(1, scalar.WinRowNumber), Pred: cmp("<", rn, k(3))},
		want: "(#3 < 3)|row_number()|2",
	}, {
		name: "rn = 2",
		plan: &Filter{Input: win(1, scalar.WinRowNumber), Pred: cmp("=", rn, k(2))},
		want: "(#3 = 2)|row_number()|2",
	}, {
		name: "2 >= rn",
		plan: &Filter{Input: win(1, scalar.WinRowNumber), Pred: cmp(">=", k(2), rn)},
		want: "(2 >= #3)|row_number()|2",
	}, {
		name: "rn < -5 keeps nothing",
		plan: &Filter{Input: win(1, scalar.WinRowNumber), Pred: cmp("<", rn, k(-5))},
		want: "(#3 < (-5))|row_number()|0",
	}, {
		name: "the tightest of two bounds",
		plan: &Filter{Input: win(1, scalar.WinRowNumber), Pred: scalar.NewAnd([]scalar.Expr{cmp("<=", rn, k(5)), cmp("<=", rn, k(2))})},
		want: "((#3 <= 5) AND (#3 <= 2))|row_number()|2",
	}, {
		name: "rank beside row_number",
		plan: &Filter{Input: win(1, scalar.WinRowNumber, scalar.WinRank), Pred: cmp("<=", rn, k(1))},
		want: "(#3 <= 1)|row_number(), rank()|1",
	}, {
		name: "rank alone: ties may pass the bound",
		plan: &Filter{Input: win(1, scalar.WinRank), Pred: cmp("<=", rn, k(1))},
	}, {
		name: "percent_rank reads the whole partition",
		plan: &Filter{Input: win(1, scalar.WinRowNumber, scalar.WinPercentRank), Pred: cmp("<=", rn, k(1))},
	}, {
		name: "lower bound",
		plan: &Filter{Input: win(1, scalar.WinRowNumber), Pred: cmp(">", rn, k(1))},
	}, {
		name: "bound by a column",
		plan: &Filter{Input: win(1, scalar.WinRowNumber), Pred: cmp("<=", rn, &scalar.ColRef{Idx: 1, Typ: types.TypeInt8})},
	}, {
		name: "no ORDER BY",
		plan: &Filter{Input: win(-1, scalar.WinRowNumber), Pred: cmp("<=", rn, k(1))},
	}, {
		name: "ORDER BY a type without an exact sort key",
		plan: &Filter{Input: win(2, scalar.WinRowNumber), Pred: cmp("<=", rn, k(1))},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			want := ExplainNode(tc.plan)
			if tc.want != "" {
				p := strings.Split(tc.want, "|")
				want = fmt.Sprintf(limited, p[0], p[1], p[2])
			}
			got := ExplainNode(limitWindows(tc.plan))
			if got != want {
				t.Errorf("got\n%swant\n%s", got, want)
			}
			if again := ExplainNode(limitWindows(limitWindows(tc.plan))); again != got {
				t.Errorf("not idempotent:\n%s", again)
			}
		})
	}
}
