package sql

import (
	"fmt"
	"math"

	"github.com/streamdb/streamdb/catalog"
	"github.com/streamdb/streamdb/pgwire"
	"github.com/streamdb/streamdb/sources/postgres"
	"github.com/streamdb/streamdb/sql/parser"
	"github.com/streamdb/streamdb/types"
)

// sourceListing is SHOW SOURCES: every source and subsource with its
// state, and for a PostgreSQL source the upstream position it has
// committed (confirmed to its slot) and how far it is behind upstream,
// in WAL bytes and in seconds since the oldest commit received but not
// yet applied. A PostgreSQL subsource shows its own table's state when
// that differs from the source's: a table being snapshotted, or one
// stalled on a schema change upstream.
func sourceListing() ([]pgwire.Column, func(e *Frontend, cat *catalog.Catalog) (listing, error), bool) {
	cols := append(textCols("name", "type", "status", "confirmed_lsn"),
		pgwire.Column{Name: "lag_bytes", Type: types.TypeInt8}, pgwire.Column{Name: "lag_seconds", Type: types.TypeFloat8})
	return cols, func(e *Frontend, cat *catalog.Catalog) (listing, error) {
		l := listing{cols: cols}
		pg := map[uint64]*postgres.Status{}
		for _, o := range cat.Objects(catalog.KindSource) {
			typ := sourceType(o)
			row := types.Row{types.NewText(o.Name), types.NewText(typ), types.NewText(e.eng.SourceStatus(o.ID)), types.Null, types.Null, types.Null}
			if src, ok := e.eng.Source(o.ID); ok {
				if ps, ok := src.(*postgres.Source); ok {
					st := ps.Status()
					pg[o.ID] = &st
					row[3] = types.NewText(st.ConfirmedLSN.String())
					row[4] = types.NewInt8(st.LagBytes)
					row[5] = types.NewFloat8(math.Round(st.Lag.Seconds()*1000) / 1000)
				}
			}
			l.rows = append(l.rows, row)
		}
		for _, o := range cat.Objects(catalog.KindSubsource) {
			status := e.eng.SourceStatus(o.Source)
			if st := pg[o.Source]; st != nil && o.Role == "data" && o.Output < len(st.Tables) {
				status = tableStatus(st.Tables[o.Output], status)
			}
			l.rows = append(l.rows, types.Row{types.NewText(o.Name), types.NewText("subsource"), types.NewText(status), types.Null, types.Null, types.Null})
		}
		return l, nil
	}, true
}

// sourceType is SHOW SOURCES' type of a source, from its statement.
func sourceType(o *catalog.Object) string {
	if st, ok, _ := parser.Parse(o.SQL); ok {
		if cs, ok := st.(*parser.CreateSource); ok {
			switch {
			case cs.Kafka != nil:
				return "kafka"
			case cs.Postgres != nil:
				return "postgres"
			}
		}
	}
	return "load-generator"
}

// tableStatus is the state of one table of a PostgreSQL source: its
// stall or its snapshot's progress, else the source's.
func tableStatus(t postgres.TableStatus, source string) string {
	switch {
	case t.Stalled != "":
		return "stalled: " + t.Stalled
	case t.Snapshotting && t.RowsTotal >= 0:
		return fmt.Sprintf("snapshotting: %d of ~%d rows", t.RowsDone, t.RowsTotal)
	case t.Snapshotting:
		return fmt.Sprintf("snapshotting: %d rows", t.RowsDone)
	}
	return source
}
