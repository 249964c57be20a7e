package postgres

import (
	"context"
	"fmt"
	"slices"

	"github.com/jackc/pgx/v5"
	"github.com/streamdb/streamdb/sources"
	"github.com/streamdb/streamdb/types"
)

// table is a replicated table at run time.
type table struct {
	def Table
	out int // index of its output
	// qname is the upstream table's qualified name, for messages.
	qname string
	// cols is the output's layout as the batches being built see it:
	// Output's columns at Open, extended by the ADD COLUMNs seen since.
	// committed is the layout the engine has, as of the last committed
	// batch; a session starts from it, since a failed session's batches
	// and their AddColumns are lost.
	cols      []sources.Column
	committed []sources.Column
	// key is the output's key; nil for an append output.
	key []int

	// rel is the table's latest Relation message in this session:
	// pgoutput sends one before the table's first change in each
	// session and again after its layout changes. relCols is its column
	// count once reconciled with the output, zero until then.
	rel     *relation
	relCols int
}

func newTable(def Table, out int) *table {
	return &table{
		def:       def,
		out:       out,
		qname:     qualified(def.Schema, def.Name),
		cols:      slices.Clone(def.Output.Columns),
		committed: slices.Clone(def.Output.Columns),
		key:       def.Output.Key,
	}
}

func (t *table) isText(col string) bool { return slices.Contains(t.def.TextColumns, col) }

// shapeChange is what reconciling an upstream layout with the output's
// found: columns to add (with the value rows stored before take), or why
// the table cannot go on.
type shapeChange struct {
	added []sources.Column
	fills []types.Datum
	stall string
}

// reconcile compares the layout upstream sends (a Relation message, or the
// catalog as the snapshot sees it) with the output's. Columns added at the
// end are new columns of the output; anything else — a column dropped,
// renamed or retyped, or a replica identity that no longer carries the
// output's key — stalls the table, since going on would misalign or lose
// data. q answers catalog questions about added columns.
func (t *table) reconcile(ctx context.Context, q *pgx.Conn, tr *typeResolver, rel *relation) (shapeChange, error) {
	var sc shapeChange
	fix := fmt.Sprintf("recreate the subsource to resnapshot it (ALTER SOURCE … DROP SUBSOURCE %s, then ADD SUBSOURCE %s)",
		maybeQuote(t.def.Output.Name), t.qname)
	for i, c := range t.cols {
		if i >= len(rel.cols) || rel.cols[i].name != c.Name {
			sc.stall = fmt.Sprintf("column %q of upstream table %s was dropped or renamed; %s", c.Name, t.qname, fix)
			return sc, nil
		}
		rc := rel.cols[i]
		if t.isText(c.Name) {
			continue
		}
		u, err := tr.resolve(ctx, q, rc.oid, rc.typmod)
		if err != nil {
			return sc, err
		}
		if u.unsupported != "" || u.typ != c.Type {
			now := u.unsupported
			if now == "" {
				now = u.typ.String()
			}
			sc.stall = fmt.Sprintf("column %q of upstream table %s changed type from %s to %s; %s", c.Name, t.qname, c.Type, now, fix)
			return sc, nil
		}
	}
	switch {
	case t.key == nil && rel.identity != 'f':
		sc.stall = fmt.Sprintf("upstream table %s is no longer REPLICA IDENTITY FULL, so its deletes no longer identify rows; %s", t.qname, fix)
		return sc, nil
	case t.key != nil && rel.identity != 'f':
		for _, k := range t.key {
			if !rel.cols[k].key {
				sc.stall = fmt.Sprintf("the replica identity of upstream table %s no longer includes column %q, so its deletes no longer identify rows; %s", t.qname, t.cols[k].Name, fix)
				return sc, nil
			}
		}
	}
	for _, rc := range rel.cols[len(t.cols):] {
		col, fill, stall, err := t.addedColumn(ctx, q, tr, rc)
		if err != nil || stall != "" {
			sc.stall = stall
			return sc, err
		}
		sc.added = append(sc.added, col)
		sc.fills = append(sc.fills, fill)
	}
	return sc, nil
}

// addedColumn describes a column added upstream, and the value it holds in
// the rows that existed before: PostgreSQL stores a constant default as
// the column's missing value and rewrites nothing, but a volatile default
// rewrites the table, a change logical replication does not carry, so
// such a column stalls the table.
func (t *table) addedColumn(ctx context.Context, q *pgx.Conn, tr *typeResolver, rc relColumn) (sources.Column, types.Datum, string, error) {
	fix := fmt.Sprintf("recreate the subsource (ALTER SOURCE … DROP SUBSOURCE %s, then ADD SUBSOURCE %s)", maybeQuote(t.def.Output.Name), t.qname)
	typ := types.TypeText
	if !t.isText(rc.name) {
		u, err := tr.resolve(ctx, q, rc.oid, rc.typmod)
		if err != nil {
			return sources.Column{}, types.Null, "", err
		}
		if u.unsupported != "" {
			return sources.Column{}, types.Null, fmt.Sprintf("column %q added to upstream table %s has type %s, which streamdb does not support; list it in TEXT COLUMNS and %s",
				rc.name, t.qname, u.unsupported, fix), nil
		}
		typ = u.typ
	}
	var (
		notNull, hasMissing, hasDefault bool
		missing                         *string
	)
	err := q.QueryRow(ctx, `SELECT a.attnotnull OR ty.typnotnull, a.atthasmissing, a.attmissingval::text, a.atthasdef
		FROM pg_catalog.pg_attribute a JOIN pg_catalog.pg_type ty ON ty.oid = a.atttypid
		WHERE a.attrelid = $1 AND a.attname = $2 AND NOT a.attisdropped`, t.def.OID, rc.name).
		Scan(&notNull, &hasMissing, &missing, &hasDefault)
	if err == pgx.ErrNoRows {
		return sources.Column{}, types.Null, fmt.Sprintf("column %q added to upstream table %s was dropped before streamdb read its definition; %s", rc.name, t.qname, fix), nil
	}
	if err != nil {
		return sources.Column{}, types.Null, "", upstreamError("reading the upstream catalog", err)
	}
	col := sources.Column{Name: rc.name, Type: typ, NotNull: notNull}
	switch {
	case hasMissing && missing != nil:
		// attmissingval is a one-element array of the column's type.
		arr, err := types.ParseText(*missing, types.ArrayOf(typ), nil)
		if err != nil || len(arr.Array().Elems) != 1 {
			return sources.Column{}, types.Null, fmt.Sprintf("the default of column %q added to upstream table %s cannot be read (%v); %s", rc.name, t.qname, err, fix), nil
		}
		return col, arr.Array().Elems[0], "", nil
	case hasDefault:
		return sources.Column{}, types.Null, fmt.Sprintf("column %q was added to upstream table %s with a volatile default, which rewrote its rows without replicating them; %s", rc.name, t.qname, fix), nil
	}
	return col, types.Null, "", nil
}
