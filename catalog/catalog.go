package catalog

import (
	"iter"
	"slices"

	"github.com/tidwall/btree"
)

// DefaultSchema is the one schema user objects live in.
const DefaultSchema = "public"

// Catalog is a version of the catalog. The engine owns one mutable
// Catalog and publishes frozen copies to readers; DDL builds the next
// version on a clone. Its maps are copy-on-write B-trees, so cloning and
// freezing cost O(1) and a change copies only the paths it touches, however
// many objects there are.
type Catalog struct {
	Version uint64
	byID    *btree.Map[uint64, *Object]
	byName  *btree.Map[string, *Object] // schema.name
	// roles holds the roles by name: they have a namespace of their own.
	roles *btree.Map[string, *Object]
	// dependents maps an object to the ids of the objects that read it
	// (and of its indexes), sorted. Slices are replaced, never mutated.
	dependents *btree.Map[uint64, []uint64]
	// NextID is the id the next created object receives.
	NextID uint64
	// keyring opens sealed secrets (SecretValue); the engine sets it.
	keyring Keyring
}

// New returns an empty catalog.
func New() *Catalog {
	return &Catalog{
		byID:       new(btree.Map[uint64, *Object]),
		byName:     new(btree.Map[string, *Object]),
		roles:      new(btree.Map[string, *Object]),
		dependents: new(btree.Map[uint64, []uint64]),
		NextID:     FirstUserID,
	}
}

// FirstUserID leaves room below it for built-in objects.
const FirstUserID = 20000

func Qualify(schema, name string) string { return schema + "." + name }

// ByID returns the object with the given id.
func (c *Catalog) ByID(id uint64) (*Object, bool) { return c.byID.Get(id) }

// Lookup finds an object by optional schema and name.
func (c *Catalog) Lookup(schema, name string) (*Object, bool) {
	if schema == "" {
		schema = DefaultSchema
	}
	return c.byName.Get(Qualify(schema, name))
}

// Conflict returns the object whose name o would take: a role of the
// same name for a role, a relation or other schema object of the same
// schema and name for the rest.
func (c *Catalog) Conflict(o *Object) (*Object, bool) {
	switch o.Kind {
	case KindRole:
		return c.LookupRole(o.Name)
	case KindDatabase:
		return c.Database()
	}
	return c.Lookup(o.Schema, o.Name)
}

// Objects returns every schema object of the given kind in name order
// (all kinds for 0); roles are listed by Roles.
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

// All returns every object in id order: every object after the objects
// it reads.
func (c *Catalog) All() iter.Seq[*Object] {
	return func(yield func(*Object) bool) {
		c.byID.Scan(func(_ uint64, o *Object) bool { return yield(o) })
	}
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

// UniqueIndexes returns the unique indexes of a table.
func (c *Catalog) UniqueIndexes(table uint64) []*Object {
	var out []*Object
	for _, d := range c.Dependents(table) {
		if d.Kind == KindIndex && d.On == table && d.Unique {
			out = append(out, d)
		}
	}
	return out
}

// Clone returns a mutable copy for building the next version.
func (c *Catalog) Clone() *Catalog {
	return &Catalog{
		Version:    c.Version + 1,
		byID:       c.byID.Copy(),
		byName:     c.byName.Copy(),
		roles:      c.roles.Copy(),
		dependents: c.dependents.Copy(),
		NextID:     c.NextID,
		keyring:    c.keyring,
	}
}

// Frozen returns a copy for readers; the receiver stays mutable.
func (c *Catalog) Frozen() *Catalog {
	f := c.Clone()
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

// Add adds an object: by name in its schema, or among the roles; the
// database has no name.
func (c *Catalog) Add(o *Object) {
	c.byID.Set(o.ID, o)
	switch o.Kind {
	case KindRole:
		c.roles.Set(o.Name, o)
	case KindDatabase:
	default:
		c.byName.Set(Qualify(o.Schema, o.Name), o)
	}
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

// Remove removes an object.
func (c *Catalog) Remove(o *Object) {
	c.byID.Delete(o.ID)
	switch o.Kind {
	case KindRole:
		c.roles.Delete(o.Name)
	case KindDatabase:
	default:
		c.byName.Delete(Qualify(o.Schema, o.Name))
	}
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

// Replace swaps an object's entry for a new version under the same id
// (a rename): unlike Remove and Add, it keeps the record of the objects
// that depend on it.
func (c *Catalog) Replace(old, o *Object) {
	deps, ok := c.dependents.Get(old.ID)
	c.Remove(old)
	c.Add(o)
	if ok {
		c.dependents.Set(o.ID, deps)
	}
}

// AsOf returns the catalog as object id was defined against: every
// relation without the columns added after id was created (see
// ColumnDef.Since). A view's stored definition is bound against it, so
// that a SELECT * keeps the columns it had. It returns c itself when no
// relation gained a column since.
func (c *Catalog) AsOf(id uint64) *Catalog {
	var out *Catalog
	c.byID.Scan(func(_ uint64, o *Object) bool {
		n := VisibleColumns(o, id)
		if n == len(o.Columns) {
			return true
		}
		if out == nil {
			out = c.Clone()
			out.Version = c.Version
		}
		narrow := *o
		narrow.Columns = o.Columns[:n:n]
		out.Replace(o, &narrow)
		return true
	})
	if out == nil {
		return c
	}
	return out
}

// VisibleColumns returns how many of o's columns an object with id
// reads: the leading ones, up to the first added after id was created.
func VisibleColumns(o *Object, id uint64) int {
	for i, col := range o.Columns {
		if col.Since > id {
			return i
		}
	}
	return len(o.Columns)
}
