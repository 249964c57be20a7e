package sql

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/streamdb/streamdb/catalog"
	"github.com/streamdb/streamdb/engine"
	"github.com/streamdb/streamdb/internal/egress"
	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/sources"
	"github.com/streamdb/streamdb/sources/postgres"
	"github.com/streamdb/streamdb/sql/parser"
)

// A PostgreSQL source (CREATE SOURCE … FROM POSTGRES) replicates upstream
// tables into subsources, one per table, described by upstream's catalog
// when the source is created (postgres.Discover). The catalog keeps what
// the source needs to run without asking upstream again: the CREATE
// SOURCE statement, with the replication slot's name filled in, and on
// each data subsource its upstream table (catalog.UpstreamTable) beside
// the relation's columns and key. Recovery and ALTER SOURCE rebuild the
// source from those (openPostgres) without connecting, so a restart does
// not wait for upstream.
//
// Discovery connects upstream, so it runs before the catalog change, not
// on the coordinator, whose tick loop must not wait for the network; the
// change then checks again what may have changed meanwhile.

// discoverTimeout bounds the upstream catalog reads of CREATE SOURCE and
// ALTER SOURCE … ADD SUBSOURCE.
const discoverTimeout = 30 * time.Second

// slotDropTimeout bounds how long DROP SOURCE waits for the source to stop
// and for upstream to drop its slot.
const slotDropTimeout = 30 * time.Second

// postgresConnection resolves a connection to what a source needs to
// reach upstream, its secrets read.
func postgresConnection(cat *catalog.Catalog, name parser.Name, egress *egress.Policy) (*catalog.Object, postgres.Connection, error) {
	o, st, err := connectionStatement(cat, name)
	if err != nil {
		return nil, postgres.Connection{}, err
	}
	pc := st.Postgres
	if pc == nil {
		return nil, postgres.Connection{}, pgerr.New(pgerr.WrongObjectType, "connection %q is not a PostgreSQL connection", o.Name)
	}
	c := postgres.Connection{Host: pc.Host.Value}
	if egress != nil {
		c.Dial = egress.Dial
	}
	if pc.Port != nil {
		c.Port = int(pc.Port.Value)
	}
	if c.User, err = secretValue(cat, pc.User); err != nil {
		return nil, c, err
	}
	if pc.Password != nil {
		if c.Password, err = secretByName(cat, pc.Password); err != nil {
			return nil, c, err
		}
	}
	if pc.Database != nil {
		c.Database = pc.Database.Value
	}
	if pc.SSLMode != nil {
		c.SSLMode = strings.ToLower(pc.SSLMode.Value)
	}
	return o, c, nil
}

// postgresConfig resolves a CREATE SOURCE … FROM POSTGRES statement.
func postgresConfig(cat *catalog.Catalog, st *parser.CreateSource, log *slog.Logger, egress *egress.Policy) (postgres.Config, *catalog.Object, error) {
	ps := st.Postgres
	connObj, conn, err := postgresConnection(cat, ps.Connection, egress)
	if err != nil {
		return postgres.Config{}, nil, err
	}
	name := st.Name[len(st.Name)-1].Value
	cfg := postgres.Config{Connection: conn, Publication: ps.Publication.Value, Logger: log.With("source", name)}
	if ps.Slot != nil {
		cfg.Slot = ps.Slot.Value
	}
	switch ps.Tables.Kind {
	case parser.ForAllTables:
		cfg.AllTables = true
	case parser.ForSchemas:
		for _, s := range ps.Tables.Schemas {
			cfg.Schemas = append(cfg.Schemas, s.Value)
		}
	case parser.ForTables:
		if cfg.Tables, err = tableRefs(ps.Tables.Tables, conn.Database); err != nil {
			return cfg, nil, err
		}
	}
	if cfg.TextColumns, err = columnRefs(ps.TextColumns, conn.Database); err != nil {
		return cfg, nil, err
	}
	return cfg, connObj, nil
}

// tableRefs resolves FOR TABLES (or ADD SUBSOURCE) names: [[database.]
// schema.]table, each AS a relation name of ours.
func tableRefs(refs []parser.TableRef, database string) ([]postgres.TableRef, error) {
	var out []postgres.TableRef
	for _, r := range refs {
		n := r.Name
		if len(n) == 3 {
			if n[0].Value != database {
				return nil, pgerr.New(pgerr.FeatureNotSupported, "table %s is in database %q, not the connection's database %q", n, n[0].Value, database)
			}
			n = n[1:]
		}
		ref := postgres.TableRef{Name: n[len(n)-1].Value}
		if len(n) == 2 {
			ref.Schema = n[0].Value
		}
		if r.Alias != nil {
			a := r.Alias
			if len(a) > 1 && a[len(a)-2].Value != catalog.DefaultSchema {
				return nil, pgerr.New(pgerr.InvalidSchemaName, "schema %q does not exist", a[len(a)-2].Value)
			}
			ref.As = a[len(a)-1].Value
		}
		out = append(out, ref)
	}
	return out, nil
}

// columnRefs resolves TEXT COLUMNS names: [[database.]schema.]table.column.
func columnRefs(names []parser.Name, database string) ([]postgres.ColumnRef, error) {
	var out []postgres.ColumnRef
	for _, n := range names {
		switch len(n) {
		case 1:
			return nil, pgerr.New(pgerr.InvalidParameterValue, "TEXT COLUMNS entry %s must name a table and a column", n).
				WithHint("Write table.column.")
		case 4:
			if n[0].Value != database {
				return nil, pgerr.New(pgerr.FeatureNotSupported, "column %s is in database %q, not the connection's database %q", n, n[0].Value, database)
			}
			n = n[1:]
		}
		ref := postgres.ColumnRef{Table: n[len(n)-2].Value, Column: n[len(n)-1].Value}
		if len(n) == 3 {
			ref.Schema = n[0].Value
		}
		out = append(out, ref)
	}
	return out, nil
}

// newSlotName names a new source's replication slot after the source,
// with a random suffix: two streamdb instances replicating one upstream
// must not take each other's slot, as a source on its first start drops
// a slot of its name that it finds.
func newSlotName(source string) string {
	var b strings.Builder
	b.WriteString("streamdb_")
	for _, r := range strings.ToLower(source) {
		if b.Len() >= 39 {
			break
		}
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	fmt.Fprintf(&b, "_%08x", rand.Uint32())
	return b.String()
}

// upstreamOf is what the catalog keeps of a table on its subsource.
func upstreamOf(t postgres.Table) *catalog.UpstreamTable {
	return &catalog.UpstreamTable{Schema: t.Schema, Name: t.Name, OID: t.OID, ID: t.ID, TextColumns: t.TextColumns}
}

// postgresTables returns the tables a source replicates, as its data
// subsources describe them, in output order.
func postgresTables(cat *catalog.Catalog, src *catalog.Object) ([]postgres.Table, error) {
	var subs []*catalog.Object
	for _, d := range cat.Dependents(src.ID) {
		if d.Kind == catalog.KindSubsource && d.Source == src.ID && d.Role == "data" {
			subs = append(subs, d)
		}
	}
	slices.SortFunc(subs, func(a, b *catalog.Object) int { return a.Output - b.Output })
	tables := make([]postgres.Table, len(subs))
	for i, d := range subs {
		if d.Output != i || d.Upstream == nil {
			return nil, pgerr.New(pgerr.DataCorrupted, "subsource %q of source %q does not describe its upstream table", d.Name, src.Name)
		}
		u := d.Upstream
		out := sources.Output{Name: d.Name, Key: d.PrimaryKey, Retracts: d.Appends && !d.Cold}
		for _, c := range d.Columns {
			out.Columns = append(out.Columns, sources.Column{Name: c.Name, Type: c.Type, NotNull: c.NotNull})
		}
		tables[i] = postgres.Table{Schema: u.Schema, Name: u.Name, OID: u.OID, ID: u.ID, TextColumns: u.TextColumns, Output: out}
	}
	return tables, nil
}

// postgresStatement returns the stored CREATE SOURCE of a PostgreSQL
// source.
func postgresStatement(o *catalog.Object) (*parser.CreateSource, error) {
	st, ok, err := parser.Parse(o.SQL)
	if err != nil || !ok {
		return nil, pgerr.New(pgerr.DataCorrupted, "stored source %q cannot be parsed: %v", o.Name, err)
	}
	cs, ok := st.(*parser.CreateSource)
	if !ok || cs.Postgres == nil {
		return nil, pgerr.New(pgerr.WrongObjectType, "source %q is not a PostgreSQL source", o.Name)
	}
	return cs, nil
}

// openPostgres rebuilds a PostgreSQL source from the catalog, without
// connecting upstream.
func openPostgres(cat *catalog.Catalog, src *catalog.Object, log *slog.Logger, egress *egress.Policy) (*postgres.Source, error) {
	st, err := postgresStatement(src)
	if err != nil {
		return nil, err
	}
	cfg, _, err := postgresConfig(cat, st, log, egress)
	if err != nil {
		return nil, err
	}
	tables, err := postgresTables(cat, src)
	if err != nil {
		return nil, err
	}
	return postgres.Open(cfg, tables)
}

// createPostgresSource runs CREATE SOURCE … FROM POSTGRES: discovery
// upstream, then the catalog change.
func (s *session) createPostgresSource(ctx context.Context, raw *rawStatement, st *parser.CreateSource) error {
	name := st.Name[len(st.Name)-1].Value
	exists := func(cat *catalog.Catalog, notice func(*pgerr.Error)) (bool, error) {
		if _, ok := cat.Lookup(catalog.DefaultSchema, name); !ok {
			return false, nil
		}
		if st.IfNotExists {
			notice(pgerr.New(pgerr.DuplicateObject, "source %q already exists, skipping", name))
			return true, nil
		}
		return true, pgerr.New(pgerr.DuplicateObject, "source %q already exists", name)
	}
	if skip, err := exists(s.e.snapshot().Catalog(), s.notice); skip || err != nil {
		return err
	}
	cfg, connObj, err := postgresConfig(s.e.snapshot().Catalog(), st, s.e.log, s.e.egress)
	if err != nil {
		return err
	}
	stored := *st
	ps := *st.Postgres
	stored.Postgres = &ps
	if cfg.Slot == "" {
		cfg.Slot = newSlotName(name)
		ps.Slot = &parser.StringLit{Value: cfg.Slot}
	}
	dctx, cancel := context.WithTimeout(ctx, discoverTimeout)
	defer cancel()
	tables, err := postgres.Discover(dctx, cfg)
	if err != nil {
		return err
	}
	return s.submitDDL(ctx, func(ctx context.Context, tx *engine.DDL, notice func(*pgerr.Error)) error {
		if skip, err := exists(tx.Catalog(), notice); skip || err != nil {
			return err
		}
		if _, ok := tx.Catalog().ByID(connObj.ID); !ok {
			return pgerr.New(pgerr.UndefinedObject, "connection %q does not exist", connObj.Name)
		}
		src, err := postgres.Open(cfg, tables)
		if err != nil {
			return err
		}
		def := engine.SourceDef{Name: name, SQL: stored.String(), DependsOn: []uint64{connObj.ID}}
		for _, t := range tables {
			def.Relations = append(def.Relations, t.Output.Name)
			def.Upstream = append(def.Upstream, upstreamOf(t))
		}
		return tx.CreateSource(ctx, def, src)
	})
}

// postgresSource finds the PostgreSQL source an ALTER SOURCE names.
func postgresSource(cat *catalog.Catalog, n parser.Name) (*catalog.Object, *parser.CreateSource, error) {
	o, name, ok := resolveName(cat, n)
	if !ok {
		return nil, nil, pgerr.New(pgerr.UndefinedObject, "source %q does not exist", name)
	}
	if o.Kind != catalog.KindSource {
		return nil, nil, errWrongKind(name, catalog.KindSource, o.Kind)
	}
	st, err := postgresStatement(o)
	if err != nil {
		return nil, nil, err
	}
	return o, st, nil
}

func (s *session) bindAlterSource(st *parser.AlterSource) (*boundStmt, error) {
	if st.Reset {
		return s.bindResetSource(st)
	}
	return ddl("ALTER SOURCE", func(ctx context.Context, s *session) error {
		if _, name, ok := resolveName(s.e.snapshot().Catalog(), st.Name); !ok {
			if st.IfExists {
				s.notice(pgerr.New(pgerr.SuccessfulCompletion, "source %q does not exist, skipping", name))
				return nil
			}
		}
		if st.Add != nil {
			return s.addSubsources(ctx, st)
		}
		return s.dropSubsources(ctx, st)
	}), nil
}

// addSubsources runs ALTER SOURCE … ADD SUBSOURCE: discovery of the new
// tables upstream, then their subsources, and the source restarted with
// them, which snapshots them while it streams on.
func (s *session) addSubsources(ctx context.Context, st *parser.AlterSource) error {
	src, cs, err := postgresSource(s.e.snapshot().Catalog(), st.Name)
	if err != nil {
		return err
	}
	cfg, _, err := postgresConfig(s.e.snapshot().Catalog(), cs, s.e.log, s.e.egress)
	if err != nil {
		return err
	}
	cfg.AllTables, cfg.Schemas = false, nil
	if cfg.Tables, err = tableRefs(st.Add, cfg.Connection.Database); err != nil {
		return err
	}
	if cfg.TextColumns, err = columnRefs(st.TextColumns, cfg.Connection.Database); err != nil {
		return err
	}
	dctx, cancel := context.WithTimeout(ctx, discoverTimeout)
	defer cancel()
	added, err := postgres.Discover(dctx, cfg)
	if err != nil {
		return err
	}
	return s.submitDDL(ctx, func(ctx context.Context, tx *engine.DDL, notice func(*pgerr.Error)) error {
		cur, ok := tx.Catalog().ByID(src.ID)
		if !ok {
			return pgerr.New(pgerr.UndefinedObject, "source %q does not exist", src.Name)
		}
		tables, err := postgresTables(tx.Catalog(), cur)
		if err != nil {
			return err
		}
		for _, a := range added {
			for _, t := range tables {
				if t.Schema == a.Schema && t.Name == a.Name {
					return pgerr.New(pgerr.DuplicateObject, "table %s.%s is already replicated by subsource %q", t.Schema, t.Name, t.Output.Name)
				}
			}
			if err := tx.CreateSubsource(ctx, cur, a.Output.Name, len(tables), a.Output, upstreamOf(a)); err != nil {
				return err
			}
			tables = append(tables, a)
		}
		rt, err := postgres.Open(cfg, tables)
		if err != nil {
			return err
		}
		tx.ReplaceSource(cur, rt)
		return nil
	})
}

// dropSubsources runs ALTER SOURCE … DROP SUBSOURCE: the subsources go
// (with their dependents under CASCADE), the others are numbered again,
// and the source restarts without the tables dropped.
func (s *session) dropSubsources(ctx context.Context, st *parser.AlterSource) error {
	return s.submitDDL(ctx, func(ctx context.Context, tx *engine.DDL, notice func(*pgerr.Error)) error {
		src, cs, err := postgresSource(tx.Catalog(), st.Name)
		if err != nil {
			return err
		}
		for _, n := range st.Drop {
			o, name, ok := resolveName(tx.Catalog(), n)
			if !ok {
				if st.DropIfExists {
					notice(pgerr.New(pgerr.SuccessfulCompletion, "subsource %q does not exist, skipping", name))
					continue
				}
				return pgerr.New(pgerr.UndefinedObject, "subsource %q does not exist", name)
			}
			if o.Kind != catalog.KindSubsource || o.Source != src.ID || o.Role != "data" {
				return pgerr.New(pgerr.WrongObjectType, "%q is not a subsource of source %q", name, src.Name).
					WithHint("The progress and errors relations go with their source.")
			}
			if err := dropWithDependents(tx, o, st.Behavior == parser.DropCascade, notice); err != nil {
				return err
			}
		}
		var left []*catalog.Object
		for _, d := range tx.Catalog().Dependents(src.ID) {
			if d.Kind == catalog.KindSubsource && d.Source == src.ID && d.Role == "data" {
				left = append(left, d)
			}
		}
		if len(left) == 0 {
			return pgerr.New(pgerr.ObjectNotInPrerequisiteState, "source %q would replicate no table", src.Name).
				WithHint("DROP SOURCE %s drops the source.", parser.QuoteIdent(src.Name))
		}
		slices.SortFunc(left, func(a, b *catalog.Object) int { return a.Output - b.Output })
		for i, d := range left {
			if d.Output != i {
				n := *d
				n.Output = i
				if err := tx.Replace(d, &n); err != nil {
					return err
				}
			}
		}
		cfg, _, err := postgresConfig(tx.Catalog(), cs, s.e.log, s.e.egress)
		if err != nil {
			return err
		}
		tables, err := postgresTables(tx.Catalog(), src)
		if err != nil {
			return err
		}
		rt, err := postgres.Open(cfg, tables)
		if err != nil {
			return err
		}
		tx.ReplaceSource(src, rt)
		return nil
	})
}

// slotDrop is a replication slot DROP SOURCE drops upstream once the
// source has stopped streaming from it.
type slotDrop struct {
	source string
	conn   postgres.Connection
	slot   string
	done   <-chan struct{}
}

// droppedSlots returns the slots of the PostgreSQL sources a change
// dropped; before is the catalog as it was before the drops, where their
// connections are still found.
func droppedSlots(tx *engine.DDL, before *catalog.Catalog, egress *egress.Policy) []slotDrop {
	var out []slotDrop
	for _, d := range tx.DroppedObjects() {
		if d.Obj.Kind != catalog.KindSource {
			continue
		}
		st, err := postgresStatement(d.Obj)
		if err != nil || st.Postgres.Slot == nil {
			continue
		}
		_, conn, err := postgresConnection(before, st.Postgres.Connection, egress)
		if err != nil {
			continue
		}
		out = append(out, slotDrop{source: d.Obj.Name, conn: conn, slot: st.Postgres.Slot.Value, done: tx.SourceDone(d.Obj.ID)})
	}
	return out
}

// dropSlots drops the slots of dropped sources upstream, warning about
// those it cannot: the source is gone either way, and a slot left behind
// keeps upstream's WAL until someone drops it.
func (s *session) dropSlots(ctx context.Context, drops []slotDrop) {
	for _, d := range drops {
		warn := func(err error) {
			s.notice(&pgerr.Error{Severity: "WARNING", Code: pgerr.Warning,
				Message: fmt.Sprintf("replication slot %q of source %q was not dropped upstream: %v", d.slot, d.source, err),
				Hint:    fmt.Sprintf("It keeps upstream's WAL until dropped: SELECT pg_drop_replication_slot('%s') upstream.", d.slot)})
		}
		select {
		case <-d.done:
		case <-time.After(slotDropTimeout):
			warn(fmt.Errorf("the source did not stop within %s", slotDropTimeout))
			continue
		case <-ctx.Done():
			warn(ctx.Err())
			continue
		}
		dctx, cancel := context.WithTimeout(ctx, slotDropTimeout)
		err := postgres.DropSlot(dctx, d.conn, d.slot)
		cancel()
		if err != nil {
			warn(err)
			continue
		}
		s.e.log.Info("dropped replication slot upstream", "source", d.source, "slot", d.slot)
	}
}
