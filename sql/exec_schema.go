package sql

import (
	"context"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/streamdb/streamdb/catalog"
	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/pgwire"
	"github.com/streamdb/streamdb/types"
)

// bindCreateSchema binds CREATE SCHEMA. streamdb has the schemas
// public, pg_catalog and information_schema only: creating one of them
// is PostgreSQL's "already exists" (skipped with a notice under IF NOT
// EXISTS, as dbt sends it before every run); any other is refused.
func (s *session) bindCreateSchema(cs *pg_query.CreateSchemaStmt) (*boundStmt, error) {
	name, ifNotExists := cs.Schemaname, cs.IfNotExists
	if name == "" {
		name = s.info.current
	}
	if len(cs.SchemaElts) > 0 {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "CREATE SCHEMA with elements is not supported")
	}
	return independent(nil, func(ctx context.Context, s *session, _ []types.Datum) (pgwire.Result, error) {
		switch name {
		case catalog.DefaultSchema, "pg_catalog", "information_schema":
		default:
			return nil, pgerr.New(pgerr.FeatureNotSupported, "CREATE SCHEMA %s is not supported: streamdb keeps every object in the schema public", quoteIdentifier(name))
		}
		if !ifNotExists {
			return nil, pgerr.New(pgerr.DuplicateSchema, "schema %q already exists", name)
		}
		s.notice(pgerr.New(pgerr.DuplicateSchema, "schema %q already exists, skipping", name))
		return commandResult("CREATE SCHEMA"), nil
	}), nil
}

// bindRefresh binds REFRESH MATERIALIZED VIEW: streamdb's materialized
// views are always current, so a refresh has nothing to do and says so.
func (s *session) bindRefresh(cat *catalog.Catalog, rs *pg_query.RefreshMatViewStmt) (*boundStmt, error) {
	rv := rs.Relation
	o, ok := cat.Lookup(rv.Schemaname, rv.Relname)
	if !ok {
		return nil, pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", rv.Relname).WithPosition(loc(rv.Location))
	}
	if o.Kind != catalog.KindMaterializedView {
		return nil, pgerr.New(pgerr.WrongObjectType, "%q is not a materialized view", o.Name)
	}
	if rs.SkipData {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "REFRESH MATERIALIZED VIEW WITH NO DATA is not supported: materialized views are always current")
	}
	name, id := o.Name, o.ID
	return &boundStmt{run: func(ctx context.Context, s *session, _ []types.Datum) (pgwire.Result, error) {
		cat := s.e.snapshot().Catalog()
		if o, ok := cat.ByID(id); ok {
			if err := requireOwner(cat, s.info.role, o); err != nil {
				return nil, err
			}
		}
		s.notice(pgerr.New(pgerr.SuccessfulCompletion, "materialized view %q is always current: REFRESH has nothing to do", name))
		return commandResult("REFRESH MATERIALIZED VIEW"), nil
	}}, nil
}
