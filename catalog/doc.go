// Package catalog holds streamdb's catalog: the objects users create
// (tables, views, materialized views, indexes, sources and their
// subsources, connections, secrets, sequences) and their definitions, as
// plain data. It parses nothing and executes nothing: the SQL front end
// (package sql) builds objects from statements, and the engine (package
// engine) persists them, rebuilds their state on start and maintains it.
//
// An Object is immutable once it is in a published Catalog; a change
// builds a new Object. A Catalog is one version of the whole catalog. The
// engine owns the one mutable version and publishes frozen copies with
// every snapshot; a catalog change builds the next version on a clone.
// Its maps are copy-on-write B-trees, so cloning and freezing cost O(1)
// and a change copies only the paths it touches.
//
// Object ids are assigned in creation order and an object only reads
// objects created before it, so id order is a dependency order: recovery
// replays the catalog in id order and view maintenance visits flows in
// id order.
//
// An Object is stored as JSON under its id; fields are only ever added
// (with omitempty), so a catalog written by an older build still loads.
// A view's bound plan (Object.Plan) is not stored: it is rebuilt from the
// stored SQL when the object is loaded.
package catalog
