package pgcatalog

import (
	"time"
)

// streamdb's own system relations, which PostgreSQL does not have. They
// live in pg_catalog, as pg_stat_activity does, so that a query finds
// them by their unqualified name; their OIDs lie in a range PostgreSQL
// 15 leaves unused.

// ViewError is one distinct error a materialized view is in: a row of
// streamdb_view_errors.
type ViewError struct {
	View    string
	Code    string
	Message string
	// Count is the number of rows that fail so.
	Count int64
	// Since is when streamdb first saw the view in this error; zero when
	// unknown.
	Since time.Time
	// Input names the relation of Example, an input row that fails so
	// (empty when none was found), in the text form of a record.
	Input, Example string
	// Source, Partition and Offset tell where Example came from when a
	// source carried it (Source empty otherwise).
	Source, Partition string
	Offset            int64
}

func init() {
	defineStreamdb("streamdb_view_errors", 12990, []Column{
		{"view", tText}, {"code", tText}, {"error", tText}, {"count", tInt8}, {"since", tTimestampTZ},
		{"input", tText}, {"example", tText}, {"source", tText}, {"partition", tText}, {"offset", tInt8},
	}, func(b *rowSet, src Source) {
		for _, ve := range src.ViewErrors() {
			var since, input, example, source, partition, offset any
			if !ve.Since.IsZero() {
				since = ve.Since
			}
			if ve.Example != "" {
				input, example = ve.Input, ve.Example
			}
			if ve.Source != "" {
				source, partition, offset = ve.Source, ve.Partition, ve.Offset
			}
			b.add("view", ve.View, "code", ve.Code, "error", ve.Message, "count", ve.Count, "since", since,
				"input", input, "example", example, "source", source, "partition", partition, "offset", offset)
		}
	})
}

// defineStreamdb registers a streamdb relation in pg_catalog.
func defineStreamdb(name string, oid uint32, cols []Column, gen func(b *rowSet, src Source)) {
	qn := "pg_catalog." + name
	pgColumns[qn] = cols
	relOIDs[qn] = oid
	define("pg_catalog", name, true, gen)
	tableNames[qn].Streamdb = true
}
