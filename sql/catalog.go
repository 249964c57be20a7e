package sql

import (
	"sort"
	"strings"

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
	}
	return "object"
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
	// Unique marks a unique index.
	Unique bool `json:"unique,omitempty"`
	// SQL is the statement that created the object, replayed on start.
	SQL string `json:"sql"`
	// Query is the defining SELECT of a view or materialized view.
	Query string `json:"query,omitempty"`
	// On is the object an index indexes; KeyCols its key columns.
	On      uint64 `json:"on,omitempty"`
	KeyCols []int  `json:"key_cols,omitempty"`
	// DependsOn lists the objects this one reads.
	DependsOn []uint64 `json:"depends_on,omitempty"`

	// plan is the bound, optimised plan of a view or materialized view,
	// built when the object enters the catalog.
	plan planner.Node
}

// planColumns returns the object's columns as plan columns.
func (o *Object) planColumns() []planner.Column {
	cols := make([]planner.Column, len(o.Columns))
	for i, c := range o.Columns {
		cols[i] = planner.Column{Name: c.Name, Type: c.Type}
	}
	return cols
}

// Catalog is an immutable snapshot of every object. DDL produces a new
// Catalog with a higher Version; sessions cache bound statements per
// version.
type Catalog struct {
	Version uint64
	byID    map[uint64]*Object
	byName  map[string]*Object // schema.name
	// NextID is the id the next created object receives.
	NextID uint64
}

func newCatalog() *Catalog {
	return &Catalog{byID: map[uint64]*Object{}, byName: map[string]*Object{}, NextID: firstUserID}
}

// firstUserID leaves room below it for built-in objects.
const firstUserID = 20000

func qualify(schema, name string) string { return schema + "." + name }

// ByID returns the object with the given id.
func (c *Catalog) ByID(id uint64) (*Object, bool) {
	o, ok := c.byID[id]
	return o, ok
}

// Lookup finds an object by optional schema and name.
func (c *Catalog) Lookup(schema, name string) (*Object, bool) {
	if schema == "" {
		schema = defaultSchema
	}
	o, ok := c.byName[qualify(schema, name)]
	return o, ok
}

// Objects returns every object of the given kind in name order (all kinds
// for 0).
func (c *Catalog) Objects(kind ObjectKind) []*Object {
	var out []*Object
	for _, o := range c.byID {
		if kind == 0 || o.Kind == kind {
			out = append(out, o)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Name != out[j].Name {
			return out[i].Name < out[j].Name
		}
		return out[i].ID < out[j].ID
	})
	return out
}

// Dependents returns the objects that depend directly on id.
func (c *Catalog) Dependents(id uint64) []*Object {
	var out []*Object
	for _, o := range c.byID {
		if o.On == id {
			out = append(out, o)
			continue
		}
		for _, d := range o.DependsOn {
			if d == id {
				out = append(out, o)
				break
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// clone returns a mutable copy for building the next version.
func (c *Catalog) clone() *Catalog {
	n := &Catalog{
		Version: c.Version + 1,
		byID:    make(map[uint64]*Object, len(c.byID)+1),
		byName:  make(map[string]*Object, len(c.byName)+1),
		NextID:  c.NextID,
	}
	for k, v := range c.byID {
		n.byID[k] = v
	}
	for k, v := range c.byName {
		n.byName[k] = v
	}
	return n
}

func (c *Catalog) add(o *Object) {
	c.byID[o.ID] = o
	c.byName[qualify(o.Schema, o.Name)] = o
	if o.ID >= c.NextID {
		c.NextID = o.ID + 1
	}
}

func (c *Catalog) remove(o *Object) {
	delete(c.byID, o.ID)
	delete(c.byName, qualify(o.Schema, o.Name))
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
