package postgres

import (
	"context"
	"math/rand/v2"
	"regexp"
	"slices"

	"github.com/jackc/pgx/v5"
	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/sources"
	"github.com/streamdb/streamdb/types"
)

// slotName is what a replication slot name may be: PostgreSQL allows
// lower-case letters, digits and underscores, 63 of them; streamdb keeps
// room for its temporary slots' suffix.
var slotName = regexp.MustCompile(`^[a-z0-9_]{1,48}$`)

// validate checks what can be checked without connecting.
func (c *Config) validate() error {
	if err := c.Connection.validate(); err != nil {
		return err
	}
	if c.Publication == "" {
		return pgerr.New(pgerr.InvalidParameterValue, "POSTGRES source requires a PUBLICATION")
	}
	if !slotName.MatchString(c.Slot) {
		return pgerr.New(pgerr.InvalidParameterValue, "invalid replication slot name %q", c.Slot).
			WithHint("A slot name has 1 to 48 lower-case letters, digits and underscores.")
	}
	n := 0
	if c.AllTables {
		n++
	}
	if len(c.Tables) > 0 {
		n++
	}
	if len(c.Schemas) > 0 {
		n++
	}
	if n != 1 {
		return pgerr.New(pgerr.SyntaxError, "POSTGRES source requires exactly one of FOR ALL TABLES, FOR TABLES (…) and FOR SCHEMAS (…)")
	}
	return nil
}

// Discover connects upstream, checks that the tables cfg selects can be
// replicated, and describes each of them: its columns with their types,
// NOT NULL and key, the way CREATE SOURCE makes them relations. It
// creates nothing upstream. Errors carry the SQLSTATE CREATE SOURCE
// fails with: 55000 for upstream settings to change (wal_level, the
// publication, replica identity), 0A000 for column types streamdb lacks
// (with a hint to list them in TEXT COLUMNS), 42P01 and 42703 for
// unknown tables and columns, 08000 when upstream is unreachable.
func Discover(ctx context.Context, cfg Config) ([]Table, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	conn, err := cfg.Connection.connectSQL(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close(context.Background())
	version, err := checkServer(ctx, conn)
	if err != nil {
		return nil, err
	}
	if err := checkPublication(ctx, conn, cfg.Publication); err != nil {
		return nil, err
	}
	published, err := publicationTables(ctx, conn, cfg.Publication, version)
	if err != nil {
		return nil, err
	}
	picked, names, err := selectTables(&cfg, published)
	if err != nil {
		return nil, err
	}
	text, err := textColumns(ctx, conn, &cfg, picked)
	if err != nil {
		return nil, err
	}
	tr := newTypeResolver()
	out := make([]Table, 0, len(picked))
	seen := make(map[string]pubTable)
	for i, pt := range picked {
		if prev, dup := seen[names[i]]; dup {
			return nil, pgerr.New(pgerr.DuplicateTable, "tables %s and %s would both become relation %q",
				qualified(prev.schema, prev.name), qualified(pt.schema, pt.name), names[i]).
				WithHint("Name them apart with FOR TABLES (… AS name).")
		}
		seen[names[i]] = pt
		t, err := describeTable(ctx, conn, tr, pt, text[i], names[i])
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

// selectTables applies the table selection to the published tables,
// returning them with their relation names.
func selectTables(cfg *Config, published []pubTable) ([]pubTable, []string, error) {
	var picked []pubTable
	var names []string
	switch {
	case cfg.AllTables:
		picked = published
		for _, t := range published {
			names = append(names, t.name)
		}
	case len(cfg.Schemas) > 0:
		for _, t := range published {
			if slices.Contains(cfg.Schemas, t.schema) {
				picked = append(picked, t)
				names = append(names, t.name)
			}
		}
	default:
		for _, ref := range cfg.Tables {
			schema := ref.Schema
			if schema == "" {
				schema = "public"
			}
			i := slices.IndexFunc(published, func(t pubTable) bool { return t.schema == schema && t.name == ref.Name })
			if i < 0 {
				return nil, nil, pgerr.New(pgerr.ObjectNotInPrerequisiteState, "publication %q does not cover table %s", cfg.Publication, qualified(schema, ref.Name)).
					WithHint("ALTER PUBLICATION %s ADD TABLE %s upstream, if the table exists.", quoteIdent(cfg.Publication), qualified(schema, ref.Name))
			}
			name := ref.As
			if name == "" {
				name = ref.Name
			}
			picked = append(picked, published[i])
			names = append(names, name)
		}
	}
	if len(picked) == 0 {
		return nil, nil, pgerr.New(pgerr.ObjectNotInPrerequisiteState, "publication %q covers no table to replicate", cfg.Publication)
	}
	return picked, names, nil
}

// textColumns resolves TEXT COLUMNS to the upstream column names of each
// picked table; a reference that names no column of a picked table is an
// error.
func textColumns(ctx context.Context, q *pgx.Conn, cfg *Config, picked []pubTable) ([][]string, error) {
	out := make([][]string, len(picked))
	for _, ref := range cfg.TextColumns {
		found := false
		for i, t := range picked {
			if t.name != ref.Table || ref.Schema != "" && ref.Schema != t.schema {
				continue
			}
			var exists bool
			err := q.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_attribute WHERE attrelid = $1 AND attname = $2 AND attnum > 0 AND NOT attisdropped)`,
				t.oid, ref.Column).Scan(&exists)
			if err != nil {
				return nil, upstreamError("reading the upstream catalog", err)
			}
			if !exists {
				return nil, pgerr.New(pgerr.UndefinedColumn, "column %q of relation %s does not exist", ref.Column, qualified(t.schema, t.name))
			}
			if !slices.Contains(out[i], ref.Column) {
				out[i] = append(out[i], ref.Column)
			}
			found = true
		}
		if !found {
			return nil, pgerr.New(pgerr.UndefinedTable, "TEXT COLUMNS refers to table %s, which the source does not replicate", qualified(ref.Schema, ref.Table))
		}
	}
	return out, nil
}

// describeTable builds a table's description from the upstream catalog.
func describeTable(ctx context.Context, q *pgx.Conn, tr *typeResolver, pt pubTable, text []string, name string) (Table, error) {
	ct, err := readTable(ctx, q, pt.oid, pt.attnames)
	if err != nil {
		return Table{}, err
	}
	qname := qualified(pt.schema, pt.name)
	if ct.missing {
		return Table{}, pgerr.New(pgerr.UndefinedTable, "relation %s does not exist", qname)
	}
	key, err := outputKey(&ct, qname)
	if err != nil {
		return Table{}, err
	}
	t := Table{Schema: pt.schema, Name: pt.name, OID: pt.oid, ID: randomID(), TextColumns: text,
		Output: sources.Output{Name: name, Key: key, Retracts: key == nil}}
	for i, c := range ct.rel.cols {
		col, err := outputColumn(ctx, q, tr, c, slices.Contains(text, c.name))
		if err != nil {
			return Table{}, err
		}
		if col.unsupported != "" {
			return Table{}, pgerr.New(pgerr.FeatureNotSupported, "column %q of table %s has type %s, which streamdb does not support", c.name, qname, col.unsupported).
				WithHint("List the column in TEXT COLUMNS (%s.%s) to replicate it as text.", quoteIdent(pt.name), quoteIdent(c.name))
		}
		t.Output.Columns = append(t.Output.Columns, sources.Column{Name: c.name, Type: col.typ, NotNull: ct.notNull[i] || slices.Contains(key, i)})
	}
	return t, nil
}

// outputKey picks the key of a table's output: the columns that identify
// a row in the deletes and updates pgoutput sends, which are the replica
// identity's. A table under REPLICA IDENTITY FULL sends whole old rows:
// keyed by its primary key if it has one, otherwise an append output
// that retracts the old rows (nil key).
func outputKey(ct *catalogTable, qname string) ([]int, error) {
	switch ct.rel.identity {
	case 'd':
		if len(ct.pk) > 0 {
			return ct.pk, nil
		}
		return nil, pgerr.New(pgerr.ObjectNotInPrerequisiteState, "table %s has no primary key and REPLICA IDENTITY DEFAULT, so its updates and deletes do not identify rows", qname).
			WithHint("Add a primary key, or ALTER TABLE %s REPLICA IDENTITY FULL upstream.", qname)
	case 'i':
		if len(ct.identIdx) > 0 {
			return ct.identIdx, nil
		}
	case 'f':
		return ct.pk, nil
	}
	return nil, pgerr.New(pgerr.ObjectNotInPrerequisiteState, "table %s has REPLICA IDENTITY NOTHING, so its updates and deletes do not identify rows", qname).
		WithHint("ALTER TABLE %s REPLICA IDENTITY FULL (or DEFAULT, with a primary key) upstream.", qname)
}

// outputColumn maps an upstream column to its streamdb type; a TEXT
// COLUMN is text whatever its upstream type.
func outputColumn(ctx context.Context, q *pgx.Conn, tr *typeResolver, c relColumn, text bool) (upstreamType, error) {
	if text {
		return upstreamType{typ: types.TypeText}, nil
	}
	return tr.resolve(ctx, q, c.oid, c.typmod)
}

// qualified is schema.name with each part quoted when it needs to be.
func qualified(schema, name string) string {
	if schema == "" {
		return maybeQuote(name)
	}
	return maybeQuote(schema) + "." + maybeQuote(name)
}

var plainIdent = regexp.MustCompile(`^[a-z_][a-z0-9_$]*$`)

func maybeQuote(s string) string {
	if plainIdent.MatchString(s) {
		return s
	}
	return quoteIdent(s)
}

// randomID draws a Table.ID (never zero).
func randomID() uint64 { return rand.Uint64() | 1 }
