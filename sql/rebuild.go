package sql

import (
	"fmt"
	"log/slog"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/streamdb/streamdb/catalog"
	"github.com/streamdb/streamdb/engine"
	"github.com/streamdb/streamdb/internal/egress"
	"github.com/streamdb/streamdb/planner"
	"github.com/streamdb/streamdb/sinks"
	"github.com/streamdb/streamdb/sources"
	"github.com/streamdb/streamdb/sql/parser"
)

// binderHooks rebuilds, for the engine's recovery, what only the SQL
// front end can build from a stored statement: a view's plan and a
// source's runtime.
type binderHooks struct {
	log *slog.Logger
	// egress is the server's egress policy, which a source's dials obey.
	egress *egress.Policy
}

var _ engine.Binder = binderHooks{}

// PlanView binds a stored view definition against the catalog loaded so
// far, as the view saw it when it was created: without the columns a
// source added to its relations since (catalog.Catalog.AsOf).
func (h binderHooks) PlanView(cat *catalog.Catalog, o *catalog.Object) (planner.Node, error) {
	sel, aliases, err := viewDefinition(o.SQL)
	if err != nil {
		return nil, err
	}
	def, err := viewObject(cat.AsOf(o.ID), o.Kind, o.Name, o.SQL, &pg_query.Node{Node: &pg_query.Node_SelectStmt{SelectStmt: sel}}, aliases, nil)
	if err != nil {
		return nil, err
	}
	return def.Plan, nil
}

// OpenSource builds a stored source, reading from the absolute start
// time its creation fixed rather than from one relative to the restart.
func (h binderHooks) OpenSource(cat *catalog.Catalog, o *catalog.Object) (sources.Source, error) {
	st, ok, err := parser.Parse(o.SQL)
	if err != nil || !ok {
		return nil, fmt.Errorf("stored source cannot be parsed: %v", err)
	}
	cs, ok := st.(*parser.CreateSource)
	if !ok {
		return nil, fmt.Errorf("stored source is not a CREATE SOURCE statement")
	}
	if cs.Postgres != nil {
		return openPostgres(cat, o, h.log, h.egress)
	}
	spec, err := buildSource(cat, cs, o.StartTimestamp, h.log, h.egress)
	if err != nil {
		return nil, err
	}
	return spec.src, nil
}

// OpenSink builds a stored sink, which resumes after the progress it
// committed to Kafka.
func (h binderHooks) OpenSink(cat *catalog.Catalog, o *catalog.Object, instance string) (sinks.Sink, error) {
	st, ok, err := parser.Parse(o.SQL)
	if err != nil || !ok {
		return nil, fmt.Errorf("stored sink cannot be parsed: %v", err)
	}
	cs, ok := st.(*parser.CreateSink)
	if !ok {
		return nil, fmt.Errorf("stored sink is not a CREATE SINK statement")
	}
	spec, err := buildSink(cat, cs, o.ID, instance, h.log, h.egress)
	if err != nil {
		return nil, err
	}
	return spec.sink, nil
}
