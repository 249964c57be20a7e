package catalog

import (
	"fmt"

	"github.com/streamdb/streamdb/pgerr"
)

// NameTaken is the error of a CREATE whose name an existing object o
// holds. Tables, views and the other kinds PostgreSQL has keep its
// wording (`relation "orders" already exists`); streamdb's own kinds are
// named (`source "orders" already exists`); and the detail says what
// holds the name — for a subsource, which source it belongs to — since
// one namespace holds them all and a source's subsources take names the
// statement never wrote.
func (c *Catalog) NameTaken(o *Object) *pgerr.Error {
	code := pgerr.DuplicateTable
	msg := fmt.Sprintf("relation %q already exists", o.Name)
	switch o.Kind {
	case KindSubsource:
		// A relation, so 42P07 as for a table, named for what it is.
		msg = fmt.Sprintf("%s %q already exists", o.Kind, o.Name)
	case KindSource, KindConnection, KindSecret:
		code = pgerr.DuplicateObject
		msg = fmt.Sprintf("%s %q already exists", o.Kind, o.Name)
	}
	return pgerr.New(code, "%s", msg).WithDetail("%s", c.Holder(o))
}

// Holder says what object o is, for messages: `"orders" is a table.`,
// or `"bids" is a subsource of source "auction".`
func (c *Catalog) Holder(o *Object) string {
	if o.Kind == KindSubsource {
		if src, ok := c.ByID(o.Source); ok {
			return fmt.Sprintf("%q is a subsource of source %q.", o.Name, src.Name)
		}
	}
	return fmt.Sprintf("%q is a %s.", o.Name, o.Kind)
}
