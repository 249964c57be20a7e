package sql

import (
	"context"
	"strconv"

	pg_query "github.com/pganalyze/pg_query_go/v6"

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
		var n int
		err := s.submitDDL(ctx, func(tx *ddlTx, notice func(*pgerr.Error)) error {
			n = 0
			if taken, err := tx.nameTaken(name, ifNotExists, notice); taken || err != nil {
				return err
			}
			q, err := viewObject(tx.cat, KindMaterializedView, name, raw.text, ct.Query, aliases)
			if err != nil {
				return err
			}
			for _, c := range q.Columns {
				if err := storableType(c.Name, c.Type); err != nil {
					return err
				}
			}
			var rows []types.Row
			if !skipData {
				f, err := tx.c.buildViewFlow(q, q.plan)
				if err != nil {
					return err
				}
				if err := tx.c.hydrate(tx.ctx, f); err != nil {
					return err
				}
				if rows, err = f.snapshot().Rows(); err != nil {
					return err
				}
			}
			obj := &Object{Kind: KindTable, Schema: defaultSchema, Name: name, SQL: raw.text, Columns: q.Columns, ID: tx.nextID()}
			if err := tx.create(obj); err != nil {
				return err
			}
			t := tx.newTables[len(tx.newTables)-1]
			var buf []byte
			for _, row := range rows {
				key := rowIDKey(t.nextRowID)
				t.nextRowID++
				buf = types.AppendRow(buf[:0], row)
				t.put(key, string(buf))
				tx.batch.Put(obj.ID, []byte(key), buf)
			}
			n = len(rows)
			return nil
		})
		if err != nil {
			return nil, err
		}
		return commandResult("SELECT " + strconv.Itoa(n)), nil
	}}, nil
}
