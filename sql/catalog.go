package sql

import (
	"slices"
	"strings"

	"github.com/tidwall/btree"

	"github.com/streamdb/streamdb/planner"
	"github.com/streamdb/streamdb/sql/pgerr"
	"github.com/streamdb/streamdb/sql/types"
)

// ObjectKind is the kind of a catalog object.
type ObjectKind uint8

// Object kinds.
const (
	KindTable ObjectKind = iota + 1
	KindView
	KindMaterializedView
	KindIndex
	// KindSource is an external input; a single-output source is also the
	// relation holding its data.
	KindSource
	// KindSubsource is a relation a source maintains: one output of a
	// multi-output source, or a source's progress or errors relation.
	KindSubsource
	KindConnection
	KindSecret
	KindSequence
)

func (k ObjectKind) String() string {
	switch k {
	case KindTable:
		return "table"
	case KindView:
		return "view"
	case KindMaterializedView:
		return "materialized view"
	case KindIndex:
		return "index"
	case KindSource:
		return "source"
	case KindSubsource:
		return "subsource"
	case KindConnection:
		return "connection"
	case KindSecret:
		return "secret"
	case KindSequence:
		return "sequence"
	}
	return "object"
}

// stored reports whether the kind keeps its rows in a durable collection
// (a table, or a relation a source fills).
func (k ObjectKind) stored() bool {
	return k == KindTable || k == KindSource || k == KindSubsource
}

// defaultSchema is the one schema user objects live in.
const defaultSchema = "public"

// ColumnDef is a column of a table, view or index.
type ColumnDef struct {
	Name    string     `json:"name"`
	Type    types.Type `json:"type"`
	NotNull bool       `json:"not_null,omitempty"`
	// Default is the DEFAULT expression's SQL text, empty when absent.
	Default string `json:"default,omitempty"`
}

// CheckDef is a CHECK constraint: its name and its expression's SQL.
type CheckDef struct {
	Name string `json:"name"`
	Expr string `json:"expr"`
}

// Object is a catalog entry. Objects are immutable once published in a
// Catalog; changes create a new Object.
type Object struct {
	ID      uint64      `json:"id"`
	Kind    ObjectKind  `json:"kind"`
	Schema  string      `json:"schema"`
	Name    string      `json:"name"`
	Columns []ColumnDef `json:"columns"`
	// PrimaryKey holds the primary key's column positions, in key order.
	PrimaryKey []int `json:"primary_key,omitempty"`
	// Checks are the table's CHECK constraints.
	Checks []CheckDef `json:"checks,omitempty"`
	// Sequence holds a sequence's parameters; On is the table owning
	// it, if a serial or identity column created it.
	Sequence *SequenceDef `json:"sequence,omitempty"`
	// Unique marks a unique index.
	Unique bool `json:"unique,omitempty"`
	// SQL is the statement that created the object, replayed on start.
	SQL string `json:"sql"`
	// On is the object an index indexes; KeyCols its key columns.
	On      uint64 `json:"on,omitempty"`
	KeyCols []int  `json:"key_cols,omitempty"`
	// DependsOn lists the objects this one reads.
	DependsOn []uint64 `json:"depends_on,omitempty"`
	// Source is the source that fills a subsource; Role says with what
	// ("data", "progress" or "errors") and Output which output of the
	// source it is for data.
	Source uint64 `json:"source,omitempty"`
	Role   string `json:"role,omitempty"`
	Output int    `json:"output,omitempty"`
	// Appends marks a source relation whose rows are a multiset without
	// key (an append-only output): rows are stored under a generated row
	// id (under their key encoding followed by it in stores written
	// before).
	Appends bool `json:"appends,omitempty"`
	// Cold marks an append relation that never retracts: its rows are
	// kept only in the store, read from there by the queries and
	// dataflows that need them, so that a source's data is not bounded
	// by memory. Relations created before this existed stay in memory.
	Cold bool `json:"cold,omitempty"`
	// Secret is a secret's value.
	Secret string `json:"secret,omitempty"`
	// StartTimestamp is the absolute time, in Unix milliseconds, that a
	// Kafka source's relative START TIMESTAMP meant when it was created;
	// recovery reads from it rather than from a time relative to the
	// restart.
	StartTimestamp int64 `json:"start_timestamp,omitempty"`

	// plan is the bound, optimised plan of a view or materialized view,
	// built when the object enters the catalog.
	plan planner.Node
}

// hasRows reports whether the object keeps rows in a durable collection.
func (o *Object) hasRows() bool { return o.Kind.stored() && len(o.Columns) > 0 }

// planColumns returns the object's columns as plan columns.
func (o *Object) planColumns() []planner.Column {
	cols := make([]planner.Column, len(o.Columns))
	for i, c := range o.Columns {
		cols[i] = planner.Column{Name: c.Name, Type: c.Type}
	}
	return cols
}

// Catalog is a version of the catalog. The coordinator owns one mutable
// Catalog and publishes frozen copies to readers; DDL builds the next
// version on a clone. Its maps are copy-on-write B-trees, so cloning and
// freezing cost O(1) and a change copies only the paths it touches, however
// many objects there are.
type Catalog struct {
	Version uint64
	byID    *btree.Map[uint64, *Object]
	byName  *btree.Map[string, *Object] // schema.name
	// dependents maps an object to the ids of the objects that read it
	// (and of its indexes), sorted. Slices are replaced, never mutated.
	dependents *btree.Map[uint64, []uint64]
	// NextID is the id the next created object receives.
	NextID uint64
}

func newCatalog() *Catalog {
	return &Catalog{
		byID:       new(btree.Map[uint64, *Object]),
		byName:     new(btree.Map[string, *Object]),
		dependents: new(btree.Map[uint64, []uint64]),
		NextID:     firstUserID,
	}
}

// firstUserID leaves room below it for built-in objects.
const firstUserID = 20000

func qualify(schema, name string) string { return schema + "." + name }

// ByID returns the object with the given id.
func (c *Catalog) ByID(id uint64) (*Object, bool) { return c.byID.Get(id) }

// Lookup finds an object by optional schema and name.
func (c *Catalog) Lookup(schema, name string) (*Object, bool) {
	if schema == "" {
		schema = defaultSchema
	}
	return c.byName.Get(qualify(schema, name))
}

// Objects returns every object of the given kind in name order (all kinds
// for 0).
func (c *Catalog) Objects(kind ObjectKind) []*Object {
	var out []*Object
	c.byName.Scan(func(_ string, o *Object) bool {
		if kind == 0 || o.Kind == kind {
			out = append(out, o)
		}
		return true
	})
	return out
}

// Dependents returns the objects that depend directly on id, in id order.
func (c *Catalog) Dependents(id uint64) []*Object {
	ids, _ := c.dependents.Get(id)
	out := make([]*Object, 0, len(ids))
	for _, d := range ids {
		if o, ok := c.byID.Get(d); ok {
			out = append(out, o)
		}
	}
	return out
}

// clone returns a mutable copy for building the next version.
func (c *Catalog) clone() *Catalog {
	return &Catalog{
		Version:    c.Version + 1,
		byID:       c.byID.Copy(),
		byName:     c.byName.Copy(),
		dependents: c.dependents.Copy(),
		NextID:     c.NextID,
	}
}

// frozen returns a copy for readers; the receiver stays mutable.
func (c *Catalog) frozen() *Catalog {
	f := c.clone()
	f.Version = c.Version
	return f
}

// readsOf lists the objects o depends on for the dependents index.
func readsOf(o *Object) []uint64 {
	reads := append([]uint64(nil), o.DependsOn...)
	for _, id := range []uint64{o.On, o.Source} {
		if id != 0 && !slices.Contains(reads, id) {
			reads = append(reads, id)
		}
	}
	return reads
}

func (c *Catalog) add(o *Object) {
	c.byID.Set(o.ID, o)
	c.byName.Set(qualify(o.Schema, o.Name), o)
	for _, r := range readsOf(o) {
		old, _ := c.dependents.Get(r)
		next := append(slices.Clone(old), o.ID)
		slices.Sort(next)
		c.dependents.Set(r, slices.Compact(next))
	}
	if o.ID >= c.NextID {
		c.NextID = o.ID + 1
	}
}

func (c *Catalog) remove(o *Object) {
	c.byID.Delete(o.ID)
	c.byName.Delete(qualify(o.Schema, o.Name))
	c.dependents.Delete(o.ID)
	for _, r := range readsOf(o) {
		old, ok := c.dependents.Get(r)
		if !ok {
			continue
		}
		next := slices.DeleteFunc(slices.Clone(old), func(id uint64) bool { return id == o.ID })
		if len(next) == 0 {
			c.dependents.Delete(r)
		} else {
			c.dependents.Set(r, next)
		}
	}
}

// errUndefinedObject returns PostgreSQL's error for a missing relation of
// the given kind.
func errUndefinedObject(kind ObjectKind, name string) error {
	switch kind {
	case KindIndex:
		return pgerr.New(pgerr.UndefinedObject, "index %q does not exist", name)
	case KindView:
		return pgerr.New(pgerr.UndefinedTable, "view %q does not exist", name)
	case KindMaterializedView:
		return pgerr.New(pgerr.UndefinedTable, "materialized view %q does not exist", name)
	case KindTable:
		return pgerr.New(pgerr.UndefinedTable, "table %q does not exist", name)
	}
	return pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", name)
}

// errWrongKind is PostgreSQL's error for a DROP naming an object of
// another kind.
func errWrongKind(name string, want, have ObjectKind) error {
	article := "a"
	if want == KindIndex {
		article = "an"
	}
	haveArticle := "a"
	if have == KindIndex {
		haveArticle = "an"
	}
	return pgerr.New(pgerr.WrongObjectType, "%q is not %s %s", name, article, want).
		WithHint("Use DROP %s to remove %s %s.", strings.ToUpper(have.String()), haveArticle, have)
}

// article returns "a" or "an" for a kind's name.
func article(k ObjectKind) string {
	if k == KindIndex {
		return "an"
	}
	return "a"
}
