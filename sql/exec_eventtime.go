package sql

import (
	"fmt"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/streamdb/streamdb/catalog"
	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/planner"
	"github.com/streamdb/streamdb/planner/scalar"
	"github.com/streamdb/streamdb/sql/parser"
	"github.com/streamdb/streamdb/types"
)

// Event time in DDL: a table or source declares a watermark (WATERMARK
// FOR ts AS ts - INTERVAL '5 seconds'), whose late rows are dropped and
// counted or routed to an errors relation (WITH (LATE DATA =
// 'dead-letter')); a table may be APPEND ONLY; a materialized view may
// EMIT ON WINDOW CLOSE. See engine/watermark.go for what a watermark
// does to writes, and planner/watermark.go for what it lets views forget.

// bindCreateTableEventTime binds a CREATE TABLE with event-time clauses:
// the statement without them is PostgreSQL's.
func (s *session) bindCreateTableEventTime(cat *catalog.Catalog, raw *rawStatement, st *parser.CreateTable) (*boundStmt, error) {
	raws, err := parsePG(st.Table.Text, raw.offset)
	if err != nil {
		return nil, err
	}
	if len(raws) != 1 || raws[0].node.GetCreateStmt() == nil {
		return nil, pgerr.New(pgerr.SyntaxError, "WATERMARK, APPEND ONLY and LATE DATA belong to CREATE TABLE")
	}
	return s.bindCreateTableWith(cat, raw, raws[0].node.GetCreateStmt(), st)
}

// bindCreateMatViewEventTime binds CREATE MATERIALIZED VIEW … EMIT ON
// WINDOW CLOSE: raw's text, stored, keeps the clause (see viewObject).
func (s *session) bindCreateMatViewEventTime(cat *catalog.Catalog, raw *rawStatement, st *parser.CreateMaterializedView) (*boundStmt, error) {
	raws, err := parsePG(st.View.Text, raw.offset)
	if err != nil {
		return nil, err
	}
	if len(raws) != 1 || raws[0].node.GetCreateTableAsStmt() == nil || raws[0].node.GetCreateTableAsStmt().Objtype != pg_query.ObjectType_OBJECT_MATVIEW {
		return nil, pgerr.New(pgerr.SyntaxError, "EMIT ON WINDOW CLOSE belongs to CREATE MATERIALIZED VIEW")
	}
	// The statement is the text it was parsed from, with the clause.
	whole := *raw
	whole.node, whole.base = raws[0].node, raws[0].base
	return s.bindCreateTableAs(cat, &whole, raws[0].node.GetCreateTableAsStmt())
}

// tableEventTime sets a new table's event-time properties from its
// clauses, and its stored statement to one that says its policy for
// late rows (SHOW CREATE shows it). It runs once the table's key is
// known.
func (s *session) tableEventTime(b *binder, obj *catalog.Object, st *parser.CreateTable) error {
	// An APPEND ONLY table without a key keeps its rows in the store
	// alone, as a source's append-only relation does: its size is not
	// bounded by memory.
	obj.AppendOnly = st.AppendOnly
	obj.Cold = st.AppendOnly && len(obj.PrimaryKey) == 0
	if st.LateData != nil && st.Watermark == nil {
		return pgerr.New(pgerr.InvalidTableDefinition, "LATE DATA needs a WATERMARK: a table without one has no late rows")
	}
	if st.Watermark == nil {
		obj.SQL = st.String()
		return nil
	}
	def, err := b.watermarkDef(obj, st.Watermark)
	if err != nil {
		return err
	}
	obj.Watermark = def
	norm := *st
	norm.LateData = &parser.StringLit{Value: parser.LateData(st.LateData)}
	obj.LateData = norm.LateData.Value
	obj.SQL = norm.String()
	return nil
}

// watermarkDef binds WATERMARK FOR col AS expr over a relation's columns:
// expr is the column itself or the column minus (or plus) a constant
// interval of fixed length, the lag.
func (b *binder) watermarkDef(obj *catalog.Object, w *parser.Watermark) (*catalog.WatermarkDef, error) {
	col := columnIndex(obj, w.Column.Value)
	if col < 0 {
		return nil, pgerr.New(pgerr.UndefinedColumn, "column %q named in WATERMARK does not exist", w.Column.Value)
	}
	if f := obj.Columns[col].Type.Family; f != types.Timestamp && f != types.TimestampTZ {
		return nil, pgerr.New(pgerr.DatatypeMismatch, "the WATERMARK column %q must be timestamp or timestamp with time zone, not %s", w.Column.Value, obj.Columns[col].Type)
	}
	raws, err := parseQuery("SELECT " + w.Expr.Text)
	if err != nil {
		return nil, err
	}
	sel := raws[0].node.GetSelectStmt()
	if len(raws) != 1 || sel == nil || len(sel.TargetList) != 1 || sel.FromClause != nil || sel.WhereClause != nil {
		return nil, pgerr.New(pgerr.SyntaxError, "the WATERMARK expression must be one expression")
	}
	e, err := b.expr(sel.TargetList[0].GetResTarget().Val, &exprCtx{s: tableScope(obj, ""), what: "WATERMARK expressions"})
	if err != nil {
		return nil, err
	}
	unsupported := func() error {
		return pgerr.New(pgerr.FeatureNotSupported, "WATERMARK FOR %s AS %s is not supported", w.Column.Value, w.Expr.Text).
			WithHint("The watermark expression is the column minus a constant interval: WATERMARK FOR %[1]s AS %[1]s - INTERVAL '5 seconds'.", w.Column.Value)
	}
	var lag int64
	switch x := e.(type) {
	case *scalar.ColRef:
		if x.Idx != col {
			return nil, unsupported()
		}
	case *scalar.Call:
		c, ok := x.Args[0].(*scalar.ColRef)
		if len(x.Args) != 2 || (x.Fn.Name != "-" && x.Fn.Name != "+") || !ok || c.Idx != col || scalar.MaxVolatility(x.Args[1]) == scalar.Volatile {
			return nil, unsupported()
		}
		d, err := scalar.Eval(nil, x.Args[1], nil)
		if err != nil || d.IsNull() || d.Kind() != types.Interval || d.Interval().Months != 0 {
			return nil, unsupported()
		}
		iv := d.Interval()
		lag = int64(iv.Days)*usPerDay + iv.Micros
		if x.Fn.Name == "+" {
			lag = -lag
		}
	default:
		return nil, unsupported()
	}
	return &catalog.WatermarkDef{Column: col, Lag: lag}, nil
}

// tableErrorsRelation is the relation a table with LATE DATA =
// 'dead-letter' routes its late rows to: <table>_errors, shaped as a
// source's errors relation, owned by the table.
func tableErrorsRelation(t *catalog.Object, id uint64) *catalog.Object {
	return &catalog.Object{ID: id, Kind: catalog.KindSubsource, Schema: catalog.DefaultSchema, Name: t.Name + "_errors",
		SQL: t.SQL, Source: t.ID, Role: "errors", Columns: catalog.ErrorsColumns, DependsOn: []uint64{t.ID}}
}

// refuseAppendOnly fails an UPDATE, DELETE or upsert of an APPEND ONLY
// table.
func refuseAppendOnly(obj *catalog.Object, what string) error {
	if !obj.AppendOnly {
		return nil
	}
	return pgerr.New(pgerr.ObjectNotInPrerequisiteState, "cannot %s table %q: it is APPEND ONLY", what, obj.Name).
		WithDetail("An APPEND ONLY table takes INSERT only.")
}

// emitsOnClose reports whether a stored view definition ends with EMIT
// ON WINDOW CLOSE.
func emitsOnClose(sqlText string) bool {
	st, ok, err := parser.Parse(sqlText)
	if err != nil || !ok {
		return false
	}
	mv, ok := st.(*parser.CreateMaterializedView)
	return ok && mv.EmitOnWindowClose
}

// emitOnClose puts a view's plan under EMIT ON WINDOW CLOSE, on the
// column a watermark bounds: window_end or window_start by preference.
func emitOnClose(plan planner.Node) (planner.Node, error) {
	wms := planner.Watermarks(plan)
	cols := plan.Columns()
	best := -1
	for _, name := range []string{"window_end", "window_start", ""} {
		for i, c := range cols {
			if wms[i] != nil && (name == "" || c.Name == name) {
				best = i
				break
			}
		}
		if best >= 0 {
			break
		}
	}
	if best < 0 {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "EMIT ON WINDOW CLOSE needs a window whose end a watermark decides").
			WithHint("Group by window_start or window_end of TUMBLE, HOP or SESSION over a table or source with a WATERMARK, and select them.")
	}
	return &planner.EmitOnClose{Input: plan, Col: best}, nil
}

// sourceEventTime checks and returns the watermark and late-row policy
// of a CREATE SOURCE over the relation it fills.
func sourceEventTime(b *binder, cs *parser.CreateSource, rel *catalog.Object, appendOnly bool) (*catalog.WatermarkDef, string, error) {
	var late *parser.StringLit
	if cs.Kafka != nil {
		late = cs.Kafka.LateData
	}
	if cs.Watermark == nil {
		if late != nil {
			return nil, "", pgerr.New(pgerr.InvalidObjectDefinition, "LATE DATA needs a WATERMARK: a source without one has no late rows")
		}
		return nil, "", nil
	}
	if !appendOnly {
		return nil, "", pgerr.New(pgerr.FeatureNotSupported, "a WATERMARK needs an append-only source (ENVELOPE NONE)").
			WithDetail("An upsert or Debezium source replaces rows, whose retractions a watermark would have to refuse.")
	}
	def, err := b.watermarkDef(rel, cs.Watermark)
	if err != nil {
		return nil, "", err
	}
	return def, parser.LateData(late), nil
}

// withLateData returns a CREATE SOURCE's text with its late-row policy
// spelled out, for SHOW CREATE.
func withLateData(cs *parser.CreateSource) string {
	if cs.Watermark == nil || cs.Kafka == nil || cs.Kafka.LateData != nil {
		return cs.String()
	}
	c := *cs
	k := *cs.Kafka
	k.LateData = &parser.StringLit{Value: parser.LateData(nil)}
	c.Kafka = &k
	return c.String()
}

// lateText renders a relation's late row count for SHOW SOURCES: empty
// when it has no watermark.
func lateText(n int64, ok bool) types.Datum {
	if !ok {
		return types.Null
	}
	return types.NewText(fmt.Sprint(n))
}
