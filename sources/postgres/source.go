package postgres

import (
	"context"
	"log/slog"
	"slices"

	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/sources"
)

// Source replicates upstream tables through a logical replication slot.
type Source struct {
	cfg     Config
	tables  []Table
	outputs []sources.Output
	log     *slog.Logger
	status  statusBoard
}

var _ sources.Source = (*Source)(nil)

// New discovers the tables cfg selects (see Discover) and returns the
// source replicating them: CREATE SOURCE's constructor. The engine keeps
// the returned source's Tables to rebuild it with Open after a restart.
func New(ctx context.Context, cfg Config) (*Source, error) {
	tables, err := Discover(ctx, cfg)
	if err != nil {
		return nil, err
	}
	return Open(cfg, tables)
}

// Open returns the source replicating tables, which Discover described
// and the engine kept, without connecting upstream: a restart must not
// depend on upstream being reachable (Run reports it stalled until it
// is). Each table's Output must be its relation's current layout,
// including the columns AddColumns added. The outputs are the tables'
// Outputs in order. A table whose ID the committed position does not
// know (one added by ALTER SOURCE … ADD SUBSOURCE) is snapshotted when
// Run starts; a table left out (DROP SUBSOURCE) is forgotten. cfg's
// table selection and TEXT COLUMNS are not consulted: tables says it all.
func Open(cfg Config, tables []Table) (*Source, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	if len(tables) == 0 {
		return nil, pgerr.New(pgerr.InvalidParameterValue, "POSTGRES source has no tables")
	}
	ids := make(map[uint64]bool)
	names := make(map[string]bool)
	s := &Source{cfg: cfg.withDefaults()}
	for _, t := range tables {
		switch {
		case t.ID == 0 || ids[t.ID]:
			return nil, pgerr.New(pgerr.InvalidParameterValue, "table %s has a missing or repeated ID", qualified(t.Schema, t.Name))
		case names[t.Output.Name]:
			return nil, pgerr.New(pgerr.DuplicateTable, "relation %q is listed twice", t.Output.Name)
		case len(t.Output.Columns) == 0:
			return nil, pgerr.New(pgerr.InvalidParameterValue, "table %s has no columns", qualified(t.Schema, t.Name))
		}
		for _, k := range t.Output.Key {
			if k < 0 || k >= len(t.Output.Columns) {
				return nil, pgerr.New(pgerr.InvalidParameterValue, "table %s has a key column out of range", qualified(t.Schema, t.Name))
			}
		}
		ids[t.ID], names[t.Output.Name] = true, true
		t.TextColumns = slices.Clone(t.TextColumns)
		t.Output.Columns = slices.Clone(t.Output.Columns)
		t.Output.Key = slices.Clone(t.Output.Key)
		s.tables = append(s.tables, t)
		s.outputs = append(s.outputs, t.Output)
	}
	s.log = s.cfg.Logger.With("source_kind", "postgres", "slot", cfg.Slot)
	s.status.init(s.tables)
	return s, nil
}

// Outputs returns one output per table, in Tables order.
func (s *Source) Outputs() []sources.Output { return s.outputs }

// Tables returns the replicated tables as the source was given them.
func (s *Source) Tables() []Table { return slices.Clone(s.tables) }
