package sql

import (
	"context"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/streamdb/streamdb/catalog"
	"github.com/streamdb/streamdb/engine"
	"github.com/streamdb/streamdb/pgerr"
)

// bindReassignOwned binds REASSIGN OWNED BY role [, …] TO role: every
// object the old roles own becomes the new role's, its ACL moving with
// it (catalog.NewOwnerACL), as before DROP ROLE. As in PostgreSQL the
// session needs the privileges of every role named, and the bootstrap
// superuser's objects stay its own.
func (s *session) bindReassignOwned(rs *pg_query.ReassignOwnedStmt) (*boundStmt, error) {
	b := ddl("REASSIGN OWNED", func(ctx context.Context, s *session) error {
		return s.submitDDL(ctx, func(ctx context.Context, tx *engine.DDL, notice func(*pgerr.Error)) error {
			cat := tx.Catalog()
			to, err := s.roleOf(cat, rs.Newrole)
			if err != nil {
				return err
			}
			var from []*catalog.Object
			for _, n := range rs.Roles {
				r, err := s.roleOf(cat, n.GetRoleSpec())
				if err != nil {
					return err
				}
				if r.ID == catalog.BootstrapRoleID {
					return pgerr.New(pgerr.DependentObjectsStillExist, "cannot reassign ownership of objects owned by role %s because they are required by the database system", r.Name)
				}
				if !cat.HasPrivsOf(s.info.role, r.ID) {
					return pgerr.New(pgerr.InsufficientPrivilege, "permission denied to reassign objects")
				}
				from = append(from, r)
			}
			if !cat.HasPrivsOf(s.info.role, to.ID) {
				return pgerr.New(pgerr.InsufficientPrivilege, "permission denied to reassign objects")
			}
			for _, r := range from {
				if r.ID == to.ID {
					continue
				}
				owned, _ := tx.Catalog().Owns(r.ID)
				for _, o := range owned {
					n := *o
					n.Owner = to.ID
					n.ACL = catalog.NewOwnerACL(o.ACL, r.ID, to.ID)
					if err := tx.Replace(o, &n); err != nil {
						return err
					}
				}
			}
			return nil
		})
	})
	b.catalogIndependent = true
	return b, nil
}

// bindDropOwned binds DROP OWNED BY role [, …] [CASCADE | RESTRICT]: the
// objects the roles own are dropped (what depends on them too, with
// CASCADE), and the privileges granted to them, or granted by them, are
// revoked, so that DROP ROLE can follow. The session needs the
// privileges of every role named.
func (s *session) bindDropOwned(ds *pg_query.DropOwnedStmt) (*boundStmt, error) {
	cascade := ds.Behavior == pg_query.DropBehavior_DROP_CASCADE
	b := ddl("DROP OWNED", func(ctx context.Context, s *session) error {
		return s.submitDDL(ctx, func(ctx context.Context, tx *engine.DDL, notice func(*pgerr.Error)) error {
			cat := tx.Catalog()
			var roles []*catalog.Object
			for _, n := range ds.Roles {
				r, err := s.roleOf(cat, n.GetRoleSpec())
				if err != nil {
					return err
				}
				if r.ID == catalog.BootstrapRoleID {
					return pgerr.New(pgerr.DependentObjectsStillExist, "cannot drop objects owned by role %s because they are required by the database system", r.Name)
				}
				if !cat.HasPrivsOf(s.info.role, r.ID) {
					return pgerr.New(pgerr.InsufficientPrivilege, "permission denied to drop objects")
				}
				roles = append(roles, r)
			}
			for _, r := range roles {
				if err := revokeAllOf(tx, r.ID); err != nil {
					return err
				}
				owned, _ := tx.Catalog().Owns(r.ID)
				for i := len(owned) - 1; i >= 0; i-- {
					o, ok := tx.Catalog().ByID(owned[i].ID)
					if !ok || o.Kind == catalog.KindDatabase {
						continue
					}
					if err := dropWithDependents(tx, o, cascade, notice); err != nil {
						return err
					}
				}
			}
			return nil
		})
	})
	b.catalogIndependent = true
	return b, nil
}

// revokeAllOf removes from every ACL the entries that grant role
// privileges or that role granted (which a REVOKE of its grant options
// would cascade to).
func revokeAllOf(tx *engine.DDL, role uint64) error {
	_, granted := tx.Catalog().Owns(role)
	for _, o := range granted {
		n := *o
		n.ACL = make([]catalog.Grant, 0, len(o.ACL))
		for _, g := range o.ACL {
			if g.Grantee != role && g.Grantor != role {
				n.ACL = append(n.ACL, g)
			}
		}
		if err := tx.Replace(o, &n); err != nil {
			return err
		}
	}
	return nil
}
