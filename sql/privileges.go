package sql

import (
	"context"

	"github.com/streamdb/streamdb/catalog"
	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/sql/parser"
)

// Privileges. Every object has an owner (the role that created it) and
// an ACL (catalog.Object.ACL); package catalog evaluates them. This file
// decides what each statement needs and checks it, as PostgreSQL does:
//
//   - Reads and writes: while a statement binds, each relation it names
//     is recorded with the privilege it needs there (SELECT where it is
//     read, INSERT, UPDATE or DELETE where it is changed), in privNeeds.
//     The needs are checked when the statement executes, against the
//     catalog and the session's role of that moment, as PostgreSQL's
//     executor checks its range table. A view is read with its owner's
//     privileges: the reader needs SELECT on the view, and the view's
//     owner SELECT on what the view reads (checkViewOwner), so a view
//     can give access to a part of a table.
//   - Catalog changes: creating an object needs CREATE on the database
//     (which stands for its one schema, public), changing or dropping one
//     needs to own it (or be a member of the owning role), checked inside
//     the change against the catalog it applies to.
//   - Superusers hold every privilege.

// privNeed is a privilege a statement needs on an object.
type privNeed struct {
	obj   uint64
	privs catalog.Privileges
	// system names a system relation only superusers may read
	// (pg_authid); obj is then unused.
	system string
}

// privNeeds collects the needs of the statement being bound.
type privNeeds struct {
	list []privNeed
}

// require records that the statement needs privs on obj.
func (b *binder) require(obj *catalog.Object, privs catalog.Privileges) {
	if b.sess == nil || b.sess.needs == nil {
		return
	}
	n := b.sess.needs
	for i := range n.list {
		if n.list[i].obj == obj.ID && n.list[i].system == "" {
			n.list[i].privs |= privs
			return
		}
	}
	n.list = append(n.list, privNeed{obj: obj.ID, privs: privs})
}

// requireSelect records that the statement reads the objects ids, which
// a query bound apart from the session's binders (a view's, SUBSCRIBE's)
// reads directly.
func (s *session) requireSelect(cat *catalog.Catalog, ids []uint64) {
	b := &binder{sess: &s.info}
	for _, id := range ids {
		if o, ok := cat.ByID(id); ok && o.Kind.Applicable()&catalog.PrivSelect != 0 && o.Kind != catalog.KindSequence {
			b.require(o, catalog.PrivSelect)
		}
	}
}

// requireSuperuser records that the statement reads a system relation
// only superusers may read.
func (b *binder) requireSuperuser(relation string) {
	if b.sess != nil && b.sess.needs != nil {
		b.sess.needs.list = append(b.sess.needs.list, privNeed{system: relation})
	}
}

// checkNeeds checks a bound statement's needs for the session's role.
func (s *session) checkNeeds(cat *catalog.Catalog, needs []privNeed) error {
	role := s.info.role
	if len(needs) == 0 || cat.IsSuperuser(role) {
		return nil
	}
	for _, n := range needs {
		if n.system != "" {
			return pgerr.New(pgerr.InsufficientPrivilege, "permission denied for table %s", n.system)
		}
		o, ok := cat.ByID(n.obj)
		if !ok {
			continue
		}
		if n.privs&^cat.Privileges(role, o) != 0 {
			return errPermission(o)
		}
		if err := checkViewOwner(cat, o, 0); err != nil {
			return err
		}
	}
	return nil
}

// checkRead checks that role may read each object of ids, as a query
// naming them would need: SELECT on each, and for a view, its owner's
// SELECT on what the view reads.
func checkRead(cat *catalog.Catalog, role uint64, ids []uint64) error {
	if cat.IsSuperuser(role) {
		return nil
	}
	for _, id := range ids {
		o, ok := cat.ByID(id)
		if !ok || o.Kind.Applicable()&catalog.PrivSelect == 0 || o.Kind == catalog.KindSequence {
			continue
		}
		if cat.Privileges(role, o)&catalog.PrivSelect == 0 {
			return errPermission(o)
		}
		if err := checkViewOwner(cat, o, 0); err != nil {
			return err
		}
	}
	return nil
}

// maxViewDepth bounds checkViewOwner's descent through views of views,
// which the catalog's id order keeps finite anyway.
const maxViewDepth = 100

// checkViewOwner checks, for a view, that its owner may read what the
// view reads, and so on through the views it reads.
func checkViewOwner(cat *catalog.Catalog, o *catalog.Object, depth int) error {
	if o.Kind != catalog.KindView || depth > maxViewDepth {
		return nil
	}
	owner := o.OwnerID()
	if cat.IsSuperuser(owner) {
		return nil
	}
	for _, id := range o.DependsOn {
		d, ok := cat.ByID(id)
		if !ok || d.Kind.Applicable()&catalog.PrivSelect == 0 || d.Kind == catalog.KindSequence {
			continue
		}
		if cat.Privileges(owner, d)&catalog.PrivSelect == 0 {
			return errPermission(d)
		}
		if err := checkViewOwner(cat, d, depth+1); err != nil {
			return err
		}
	}
	return nil
}

// errPermission is PostgreSQL's error for a missing privilege on an
// object: "permission denied for table t".
func errPermission(o *catalog.Object) error {
	return pgerr.New(pgerr.InsufficientPrivilege, "permission denied for %s %s", o.Kind, o.Name)
}

// requireOwner checks that role owns o, or is a member of the role that
// does: what changing or dropping an object needs.
func requireOwner(cat *catalog.Catalog, role uint64, o *catalog.Object) error {
	if cat.HasPrivsOf(role, o.OwnerID()) {
		return nil
	}
	return pgerr.New(pgerr.InsufficientPrivilege, "must be owner of %s %s", o.Kind, o.Name)
}

// requireCreate checks that role may create objects: CREATE on the
// database, which stands for CREATE on its one schema, public, and
// fails with the error PostgreSQL gives for that schema.
func requireCreate(cat *catalog.Catalog, role uint64) error {
	if db, ok := cat.Database(); !ok || cat.Privileges(role, db)&catalog.PrivCreate != 0 {
		return nil
	}
	return pgerr.New(pgerr.InsufficientPrivilege, "permission denied for schema public")
}

// requireUsage checks that role may use a connection or secret.
func requireUsage(cat *catalog.Catalog, role uint64, o *catalog.Object) error {
	if cat.Privileges(role, o)&catalog.PrivUsage != 0 {
		return nil
	}
	return errPermission(o)
}

// mayDescribe reports whether role may see an object's definition
// (pg_get_viewdef, SHOW CREATE): it owns the object or holds some
// privilege on it, which a reader needs to use it at all.
func mayDescribe(cat *catalog.Catalog, role uint64, o *catalog.Object) bool {
	return cat.HasPrivsOf(role, o.OwnerID()) || cat.Privileges(role, o) != 0
}

// checkUsage checks USAGE on the connections and secrets among ids, the
// objects a new source or connection uses.
func (s *session) checkUsage(cat *catalog.Catalog, ids []uint64) error {
	for _, id := range ids {
		o, ok := cat.ByID(id)
		if !ok || o.Kind != catalog.KindConnection && o.Kind != catalog.KindSecret {
			continue
		}
		if err := requireUsage(cat, s.info.role, o); err != nil {
			return err
		}
	}
	return nil
}

// mayConnect checks that the session may create a connection: the
// server will dial what it names, so it takes membership in
// pg_create_connection (as PostgreSQL 16's CREATE SUBSCRIPTION takes
// pg_create_subscription), USAGE on the secrets it uses, and
// destinations the egress policy allows.
func (s *session) mayConnect(ctx context.Context, cat *catalog.Catalog, secrets []uint64, st *parser.CreateConnection) error {
	if !cat.HasPrivsOf(s.info.role, catalog.CreateConnectionRoleID) {
		return pgerr.New(pgerr.InsufficientPrivilege, "permission denied to create connection").
			WithDetail("Only roles with privileges of the %q role may create connections.", catalog.CreateConnectionRole)
	}
	if err := s.checkUsage(cat, secrets); err != nil {
		return err
	}
	for _, addr := range connectionAddresses(st) {
		if err := s.e.egress.Check(ctx, addr); err != nil {
			return err
		}
	}
	return nil
}

// connectionAddresses lists the host:port addresses a connection dials
// first (a Kafka cluster's brokers may name more, which the dial checks).
func connectionAddresses(st *parser.CreateConnection) []string {
	var out []string
	if st.Kafka != nil {
		for _, b := range st.Kafka.Brokers {
			out = append(out, b.Value)
		}
	}
	return out
}
