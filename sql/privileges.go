package sql

import (
	"context"
	"net"
	"strconv"
	"strings"

	"github.com/streamdb/streamdb/catalog"
	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/planner/scalar"
	"github.com/streamdb/streamdb/sql/parser"
	"github.com/streamdb/streamdb/sql/pgcatalog"
)

// OIDs of the catalogs has_*_privilege asks about.
const (
	pgClassOID     = 1259
	pgNamespaceOID = 2615
	pgDatabaseOID  = 1262
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
// first (a Kafka cluster's brokers may name more, which the dial checks;
// a PostgreSQL connection dials its HOST and PORT).
func connectionAddresses(st *parser.CreateConnection) []string {
	var out []string
	if st.Kafka != nil {
		for _, b := range st.Kafka.Brokers {
			out = append(out, b.Value)
		}
	}
	if pc := st.Postgres; pc != nil {
		port := int64(5432)
		if pc.Port != nil {
			port = pc.Port.Value
		}
		out = append(out, net.JoinHostPort(pc.Host.Value, strconv.FormatInt(port, 10)))
	}
	return out
}

// Privilege implements scalar.Session (has_*_privilege).
func (v *catalogView) Privilege(role scalar.RoleRef, catOID, oid uint32, priv string, grantOption bool) (bool, bool, error) {
	cat := v.snapshot().Catalog()
	id, found, err := v.roleID(cat, role)
	if err != nil {
		return false, false, err
	}
	p, known := catalog.PrivilegeByName(priv)
	if !known {
		return false, false, pgerr.New(pgerr.InvalidParameterValue, "unrecognized privilege type: %q", priv)
	}
	var o *catalog.Object
	switch catOID {
	case pgClassOID:
		if _, system := pgcatalog.ByOID(oid); system {
			// System relations: PUBLIC may read them, but for the
			// superuser-only ones.
			t, _ := pgcatalog.ByOID(oid)
			return p == catalog.PrivSelect && !grantOption && (!t.SuperuserOnly || cat.IsSuperuser(id)), true, nil
		}
		x, ok := cat.ByID(uint64(oid))
		if !ok || x.Kind.Applicable() == 0 || x.Kind == catalog.KindConnection || x.Kind == catalog.KindSecret {
			return false, false, nil
		}
		o = x
	case pgNamespaceOID:
		if !v.Exists(catOID, oid) {
			return false, false, nil
		}
		if p == catalog.PrivUsage {
			return !grantOption || cat.IsSuperuser(id), true, nil
		}
		if oid != pgcatalog.NamespacePublic {
			return cat.IsSuperuser(id), true, nil
		}
		o, _ = cat.Database()
	case pgDatabaseOID:
		o, _ = cat.Database()
	}
	if o == nil {
		return false, false, nil
	}
	if !found {
		return false, true, nil
	}
	if grantOption {
		return cat.GrantOptions(id, o)&p != 0, true, nil
	}
	return cat.Privileges(id, o)&p != 0, true, nil
}

// HasRole implements scalar.Session (pg_has_role).
func (v *catalogView) HasRole(member, group scalar.RoleRef, priv string, adminOption bool) (bool, error) {
	cat := v.snapshot().Catalog()
	m, mfound, err := v.roleID(cat, member)
	if err != nil {
		return false, err
	}
	g, gfound, err := v.roleID(cat, group)
	if err != nil || !mfound || !gfound {
		return false, err
	}
	if adminOption {
		if cat.IsSuperuser(m) {
			return true, nil
		}
		if r, ok := cat.Role(m); ok {
			for _, ms := range r.RoleDef.MemberOf {
				if ms.Role == g && ms.Admin {
					return true, nil
				}
			}
		}
		return false, nil
	}
	if priv == "USAGE" {
		return cat.HasPrivsOf(m, g), nil
	}
	return cat.IsMemberOf(m, g), nil
}

// roleID resolves a has_*_privilege role: the session's, a name (an
// unknown one is an error, as in PostgreSQL) or an OID (an unknown one
// holds nothing: found is false).
func (v *catalogView) roleID(cat *catalog.Catalog, r scalar.RoleRef) (id uint64, found bool, err error) {
	switch {
	case r.ByOID:
		_, ok := cat.Role(uint64(r.OID))
		return uint64(r.OID), ok, nil
	case r.Name == "":
		return v.s.info.role, true, nil
	}
	if strings.EqualFold(r.Name, "public") {
		return catalog.Public, true, nil
	}
	o, ok := cat.LookupRole(r.Name)
	if !ok {
		return 0, false, pgerr.New(pgerr.UndefinedObject, "role %q does not exist", r.Name)
	}
	return o.ID, true, nil
}
