package sql

import (
	"testing"

	"github.com/streamdb/streamdb/dataflow"
	"github.com/streamdb/streamdb/planner"
	"github.com/streamdb/streamdb/planner/scalar"
	"github.com/streamdb/streamdb/types"
)

// BenchmarkPlanSelect measures the per-query overhead on the
// sqllogictest runner's critical path: parse, bind, optimise, lower to a
// dataflow and run it for one tick over a small input.
func BenchmarkPlanSelect(b *testing.B) {
	cat := fuzzCatalog()
	sess := &session{info: sessionInfo{user: "bench", current: "bench", database: "bench", settings: newSettings("bench")}}
	const sql = "SELECT a + 1, b FROM t WHERE a > 3 AND b <> 'x' AND EXISTS (SELECT 1 FROM u WHERE u.a = t.a) ORDER BY 1 LIMIT 10"
	rows := dataflow.Batch{}
	for i := 0; i < 30; i++ {
		rows = append(rows, dataflow.Update{Row: types.Row{types.NewInt4(int32(i)), types.NewText("y"), types.Null, types.Null, types.Null}, Diff: 1})
	}
	b.ReportAllocs()
	for b.Loop() {
		raws, err := parseQuery(sql)
		if err != nil {
			b.Fatal(err)
		}
		bq, err := newBinder(cat, &sess.info, nil).selectStmt(raws[0].node.GetSelectStmt(), nil)
		if err != nil {
			b.Fatal(err)
		}
		q, err := planner.OptimizeQuery(bq.q)
		if err != nil {
			b.Fatal(err)
		}
		g := dataflow.NewGraph()
		lc := &planner.LowerContext{Graph: g, Eval: &scalar.EvalContext{}, Get: func(get *planner.Get) (dataflow.Node, error) {
			in := g.Input()
			if get.Name == "t" {
				in.Push(append(dataflow.Batch(nil), rows...))
			}
			return in.Node(), nil
		}}
		root, err := planner.Lower(lc, planner.PhysicalQuery(q, planner.OneTick).Root)
		if err != nil {
			b.Fatal(err)
		}
		g.Collect(root)
		if err := g.Step(b.Context()); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "queries/s")
}
