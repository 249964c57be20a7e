package postgres

import (
	"context"
	"errors"
	"slices"
	"strconv"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/streamdb/streamdb/pgerr"
)

// minServerVersion is the oldest upstream release streamdb replicates
// from: 13 added pg_replication_slots.wal_status, which tells a slot
// invalidated by max_slot_wal_keep_size.
const minServerVersion = 130000

// This file holds the upstream catalog queries. Each runs on an ordinary
// connection; inside the snapshot's transaction they read the catalog as
// of the snapshot.

func asPgError(err error) (*pgconn.PgError, bool) {
	var pe *pgconn.PgError
	ok := errors.As(err, &pe)
	return pe, ok
}

// checkServer checks that the upstream can serve logical replication to
// the connected user, and returns its version number.
func checkServer(ctx context.Context, q *pgx.Conn) (int, error) {
	var (
		versionText, walLevel string
		canReplicate          bool
	)
	err := q.QueryRow(ctx, `SELECT current_setting('server_version_num'), current_setting('wal_level'),
		(SELECT rolreplication OR rolsuper FROM pg_catalog.pg_roles WHERE rolname = current_user)`).
		Scan(&versionText, &walLevel, &canReplicate)
	if err != nil {
		return 0, upstreamError("reading the upstream configuration", err)
	}
	version, _ := strconv.Atoi(versionText)
	switch {
	case version < minServerVersion:
		return 0, pgerr.New(pgerr.FeatureNotSupported, "upstream PostgreSQL version %d is not supported", version).
			WithHint("streamdb replicates from PostgreSQL 13 and later.")
	case walLevel != "logical":
		return 0, pgerr.New(pgerr.ObjectNotInPrerequisiteState, "upstream wal_level is %q, not \"logical\"", walLevel).
			WithHint("Set wal_level = logical in the upstream server's configuration and restart it.")
	case !canReplicate:
		return 0, pgerr.New(pgerr.InsufficientPrivilege, "upstream user %q may not replicate", q.Config().User).
			WithHint("ALTER ROLE %s REPLICATION, or connect as a role that has it.", q.Config().User)
	}
	return version, nil
}

// checkPublication checks that the publication exists and publishes every
// kind of change: a publication that leaves out deletes or truncations
// would let streamdb's copy drift from upstream without a sign.
func checkPublication(ctx context.Context, q *pgx.Conn, pub string) error {
	var ins, upd, del, trunc bool
	err := q.QueryRow(ctx, `SELECT pubinsert, pubupdate, pubdelete, pubtruncate FROM pg_catalog.pg_publication WHERE pubname = $1`, pub).
		Scan(&ins, &upd, &del, &trunc)
	if err == pgx.ErrNoRows {
		return pgerr.New(pgerr.UndefinedObject, "publication %q does not exist upstream", pub).
			WithHint("CREATE PUBLICATION %s FOR ALL TABLES (or FOR TABLE …) upstream.", quoteIdent(pub))
	}
	if err != nil {
		return upstreamError("reading the upstream publication", err)
	}
	if !ins || !upd || !del || !trunc {
		return pgerr.New(pgerr.ObjectNotInPrerequisiteState, "publication %q does not publish every kind of change", pub).
			WithHint("ALTER PUBLICATION %s SET (publish = 'insert, update, delete, truncate') upstream.", quoteIdent(pub))
	}
	return nil
}

// pubTable is a table a publication covers.
type pubTable struct {
	oid    uint32
	schema string
	name   string
	// attnames lists the published columns (a publication's column
	// list); nil publishes all.
	attnames []string
	// rowFilter is the publication's WHERE clause for the table, empty
	// when it has none.
	rowFilter string
}

// publicationTables returns the tables pub covers, sorted by schema and
// name.
func publicationTables(ctx context.Context, q *pgx.Conn, pub string, version int) ([]pubTable, error) {
	lists := "NULL::name[], NULL::text"
	if version >= 150000 {
		lists = "pt.attnames, pt.rowfilter"
	}
	rows, err := q.Query(ctx, `SELECT c.oid, pt.schemaname, pt.tablename, `+lists+`
		FROM pg_catalog.pg_publication_tables pt
		JOIN pg_catalog.pg_namespace n ON n.nspname = pt.schemaname
		JOIN pg_catalog.pg_class c ON c.relnamespace = n.oid AND c.relname = pt.tablename
		WHERE pt.pubname = $1 ORDER BY 2, 3`, pub)
	if err != nil {
		return nil, upstreamError("reading the upstream publication", err)
	}
	var out []pubTable
	for rows.Next() {
		var (
			t      pubTable
			filter *string
		)
		if err := rows.Scan(&t.oid, &t.schema, &t.name, &t.attnames, &filter); err != nil {
			return nil, upstreamError("reading the upstream publication", err)
		}
		if filter != nil {
			t.rowFilter = *filter
		}
		out = append(out, t)
	}
	if err := rows.Err(); err != nil {
		return nil, upstreamError("reading the upstream publication", err)
	}
	return out, nil
}

// catalogTable is a table's layout read from the upstream catalog: its
// published columns as a Relation message would list them, and which of
// them form its primary key and its replica identity index.
type catalogTable struct {
	rel      relation
	notNull  []bool
	pk       []int // indexes into rel.cols
	identIdx []int
	// partitioned marks a partitioned table, read with its partitions
	// (a publication publishing through the root).
	partitioned bool
	// missing marks a table that no longer exists.
	missing bool
}

// readTable reads a table's layout, keeping only the published columns
// (all when attnames is nil). Dropped and generated columns are left out,
// as pgoutput leaves them out.
func readTable(ctx context.Context, q *pgx.Conn, oid uint32, attnames []string) (catalogTable, error) {
	var t catalogTable
	var identity, kind string
	err := q.QueryRow(ctx, `SELECT n.nspname, c.relname, c.relreplident::text, c.relkind::text FROM pg_catalog.pg_class c
		JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE c.oid = $1`, oid).
		Scan(&t.rel.namespace, &t.rel.name, &identity, &kind)
	if err == pgx.ErrNoRows {
		t.missing = true
		return t, nil
	}
	if err != nil {
		return t, upstreamError("reading the upstream catalog", err)
	}
	t.rel.relid = oid
	t.rel.identity = identity[0]
	t.partitioned = kind == "p"
	rows, err := q.Query(ctx, `SELECT a.attname, a.atttypid, a.atttypmod, a.attnotnull OR ty.typnotnull,
			coalesce(a.attnum = ANY(pk.indkey), false), coalesce(a.attnum = ANY(ri.indkey), false)
		FROM pg_catalog.pg_attribute a
		JOIN pg_catalog.pg_type ty ON ty.oid = a.atttypid
		LEFT JOIN pg_catalog.pg_index pk ON pk.indrelid = a.attrelid AND pk.indisprimary
		LEFT JOIN pg_catalog.pg_index ri ON ri.indrelid = a.attrelid AND ri.indisreplident
		WHERE a.attrelid = $1 AND a.attnum > 0 AND NOT a.attisdropped AND a.attgenerated = ''
		ORDER BY a.attnum`, oid)
	if err != nil {
		return t, upstreamError("reading the upstream catalog", err)
	}
	var pkPartial, identPartial bool
	for rows.Next() {
		var (
			c             relColumn
			notNull       bool
			inPK, inIdent bool
		)
		if err := rows.Scan(&c.name, &c.oid, &c.typmod, &notNull, &inPK, &inIdent); err != nil {
			return t, upstreamError("reading the upstream catalog", err)
		}
		if attnames != nil && !slices.Contains(attnames, c.name) {
			// A key with a column left out of the publication does not
			// identify rows in what is published.
			pkPartial = pkPartial || inPK
			identPartial = identPartial || inIdent
			continue
		}
		switch t.rel.identity {
		case 'f':
			c.key = true
		case 'd':
			c.key = inPK
		case 'i':
			c.key = inIdent
		}
		if inPK {
			t.pk = append(t.pk, len(t.rel.cols))
		}
		if inIdent {
			t.identIdx = append(t.identIdx, len(t.rel.cols))
		}
		t.rel.cols = append(t.rel.cols, c)
		t.notNull = append(t.notNull, notNull)
	}
	if err := rows.Err(); err != nil {
		return t, upstreamError("reading the upstream catalog", err)
	}
	if pkPartial {
		t.pk = nil
	}
	if identPartial {
		t.identIdx = nil
	}
	return t, nil
}

// quoteIdent quotes an identifier for SQL.
func quoteIdent(s string) string {
	b := []byte{'"'}
	for i := 0; i < len(s); i++ {
		if s[i] == '"' {
			b = append(b, '"')
		}
		b = append(b, s[i])
	}
	return string(append(b, '"'))
}

// quoteLiteral quotes a string literal for SQL (standard_conforming_strings
// is on since PostgreSQL 9.1).
func quoteLiteral(s string) string {
	b := []byte{'\''}
	for i := 0; i < len(s); i++ {
		if s[i] == '\'' {
			b = append(b, '\'')
		}
		b = append(b, s[i])
	}
	return string(append(b, '\''))
}
