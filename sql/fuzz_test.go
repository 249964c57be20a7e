package sql

import (
	"testing"

	"github.com/streamdb/streamdb/catalog"
	"github.com/streamdb/streamdb/dataflow"
	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/planner"
	"github.com/streamdb/streamdb/planner/scalar"
	"github.com/streamdb/streamdb/types"
)

// fuzzCatalog is a small fixed catalog for the SQL-to-plan fuzzer.
func fuzzCatalog() *catalog.Catalog {
	cat := catalog.New()
	cat.Add(&catalog.Object{ID: catalog.FirstUserID, Kind: catalog.KindTable, Schema: catalog.DefaultSchema, Name: "t", PrimaryKey: []int{0}, Columns: []catalog.ColumnDef{
		{Name: "a", Type: types.TypeInt4, NotNull: true}, {Name: "b", Type: types.TypeText}, {Name: "c", Type: types.TypeNumeric},
		{Name: "d", Type: types.TypeTimestampTZ}, {Name: "e", Type: types.TypeJSONB},
	}})
	cat.Add(&catalog.Object{ID: catalog.FirstUserID + 1, Kind: catalog.KindTable, Schema: catalog.DefaultSchema, Name: "u", Columns: []catalog.ColumnDef{
		{Name: "a", Type: types.TypeInt8}, {Name: "f", Type: types.TypeFloat8}, {Name: "g", Type: types.TypeBool},
	}})
	return cat
}

// FuzzBindSQL feeds arbitrary text through parsing, binding, optimisation
// and lowering: every outcome must be a plan or an error, never a panic,
// and never an internal error (XX000), which only a bug raises.
func FuzzBindSQL(f *testing.F) {
	for _, s := range []string{
		"SELECT a, b FROM t WHERE a > 1 ORDER BY b LIMIT 3",
		"SELECT t.a, count(*) FROM t JOIN u ON t.a = u.a GROUP BY ROLLUP (t.a)",
		"SELECT * FROM t WHERE a IN (SELECT a FROM u WHERE u.f > t.c)",
		"SELECT b, row_number() OVER (PARTITION BY a ORDER BY d) FROM t",
		"SELECT (SELECT max(f) FROM u WHERE u.a = t.a), e->'x' FROM t",
		"SELECT DISTINCT ON (a) a, b FROM t ORDER BY a, b DESC",
		"SELECT a FROM t UNION SELECT a FROM u EXCEPT SELECT 1",
		"SELECT * FROM t, LATERAL (SELECT * FROM u WHERE u.a = t.a LIMIT 1) x",
		"SELECT generate_series(1, 3), now() - d FROM t",
		"INSERT INTO t VALUES (1, 'x')",
		"UPDATE t SET b = b || 'y' WHERE a = 2",
		"SELECT lag(b, a, 'z') OVER (ORDER BY a), ntile(a) OVER (), nth_value(c, NULL) OVER () FROM t",
		"SELECT CASE WHEN a = 0 THEN 0 ELSE (SELECT max(f) / t.a FROM u) END FROM t WHERE c / 0 > NULL",
	} {
		f.Add(s)
	}
	cat := fuzzCatalog()
	sess := &session{info: sessionInfo{user: "fuzz", current: "fuzz", database: "fuzz", settings: newSettings("fuzz")}}
	f.Fuzz(func(t *testing.T, sql string) {
		raws, err := parseQuery(sql)
		if err != nil {
			return
		}
		for i := range raws {
			raw := &raws[i]
			if raw.node == nil || raw.node.GetSelectStmt() == nil {
				if raw.node != nil {
					_, _ = sess.bindStatement(cat, raw, nil)
				}
				continue
			}
			internal := func(stage string, err error) {
				if err != nil && pgerr.CodeOf(err) == pgerr.InternalError {
					t.Fatalf("%s of %q: internal error: %v", stage, sql, err)
				}
			}
			b := newBinder(cat, &sess.info, nil)
			bq, err := b.selectStmt(raw.node.GetSelectStmt(), nil)
			if err != nil {
				internal("binding", err)
				continue
			}
			q, err := planner.OptimizeQuery(bq.q)
			if err != nil {
				internal("optimising", err)
				continue
			}
			g := dataflow.NewGraph()
			params := make([]types.Datum, len(b.params))
			lc := &planner.LowerContext{Graph: g, Eval: &scalar.EvalContext{Params: params}, Get: func(*planner.Get) (dataflow.Node, error) {
				return g.Input().Node(), nil
			}}
			pq := planner.PhysicalQuery(q, planner.OneTick)
			_, err = planner.Lower(lc, pq.Root)
			internal("lowering", err)
			_ = planner.Explain(pq)
			_ = planner.ExplainDataflow(q)
		}
	})
}
