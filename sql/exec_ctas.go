package sql

import (
	"context"
	"strconv"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/streamdb/streamdb/catalog"
	"github.com/streamdb/streamdb/engine"
	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/pgwire"
	"github.com/streamdb/streamdb/types"
)

// bindCreateTableAsSelect binds CREATE TABLE … AS SELECT. The query runs
// on the coordinator inside the catalog change, the way a materialized
// view's first contents are computed, and its rows fill the new table in
// the same durable batch: the table appears with its rows or not at all.
// Unlike a materialized view, the table does not follow its query.
func (s *session) bindCreateTableAsSelect(raw *rawStatement, ct *pg_query.CreateTableAsStmt) (*boundStmt, error) {
	into := ct.Into
	if into.Rel.Relpersistence == "t" {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "temporary tables are not supported")
	}
	name, aliases, ifNotExists, skipData := into.Rel.Relname, nameList(into.ColNames), ct.IfNotExists, into.SkipData
	return &boundStmt{run: func(ctx context.Context, s *session, _ []types.Datum) (pgwire.Result, error) {
		if err := s.ddlAllowed("CREATE TABLE AS"); err != nil {
			return nil, err
		}
		if err := requireCreate(s.e.snapshot().Catalog(), s.info.role); err != nil {
			return nil, err
		}
		var n int
		err := s.submitDDL(ctx, func(ctx context.Context, tx *engine.DDL, notice func(*pgerr.Error)) error {
			n = 0
			if taken, err := tx.NameTaken(name, ifNotExists, notice); taken || err != nil {
				return err
			}
			q, err := viewObject(tx.Catalog(), catalog.KindMaterializedView, name, raw.text, ct.Query, aliases)
			if err != nil {
				return err
			}
			if err := checkRead(tx.Catalog(), s.info.role, q.DependsOn); err != nil {
				return err
			}
			for _, c := range q.Columns {
				if err := storableType(c.Name, c.Type); err != nil {
					return err
				}
			}
			obj := &catalog.Object{Kind: catalog.KindTable, Schema: catalog.DefaultSchema, Name: name, SQL: raw.text, Columns: q.Columns, ID: tx.NextID()}
			n, err = tx.CreateTableAs(ctx, obj, q.Plan, skipData)
			return err
		})
		if err != nil {
			return nil, err
		}
		return commandResult("SELECT " + strconv.Itoa(n)), nil
	}}, nil
}
