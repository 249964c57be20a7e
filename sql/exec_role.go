package sql

import (
	"context"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/streamdb/streamdb/catalog"
	"github.com/streamdb/streamdb/engine"
	"github.com/streamdb/streamdb/internal/scram"
	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/types"
)

// Roles in SQL: CREATE ROLE (USER, GROUP), ALTER ROLE, ALTER ROLE …
// RENAME, DROP ROLE, and GRANT or REVOKE of membership. Who may do what
// follows PostgreSQL 15: superusers anything; roles with CREATEROLE
// anything on roles that are not superusers; every role may change its
// own password. A password is kept only as its SCRAM-SHA-256 verifier
// (scram.New), or as given when it already is one, as PostgreSQL keeps
// it; the statement text, which holds the password, is never stored and
// is logged without it (redactedText).

// roleOptions are the options of CREATE ROLE and ALTER ROLE, resolved.
type roleOptions struct {
	def *catalog.RoleDef
	// set marks the attributes the statement sets (pg_query's option
	// names), for ALTER ROLE and for the checks of who may set them.
	set map[string]bool
	// password is the new verifier, "" for none, when set["password"].
	password string
	inRoles  []string // IN ROLE: roles the new role joins
	members  []string // ROLE: roles that join the new role
	admins   []string // ADMIN: likewise, with the admin option
}

// parseRoleOptions reads the options of a role statement into def.
func (s *session) parseRoleOptions(opts []*pg_query.Node, def *catalog.RoleDef, notice func(*pgerr.Error)) (*roleOptions, error) {
	ro := &roleOptions{def: def, set: map[string]bool{}}
	for _, n := range opts {
		d := n.GetDefElem()
		if ro.set[d.Defname] {
			return nil, pgerr.New(pgerr.SyntaxError, "conflicting or redundant options").WithPosition(loc(d.Location))
		}
		ro.set[d.Defname] = true
		b := d.Arg.GetBoolean().GetBoolval()
		switch d.Defname {
		case "superuser":
			def.Super = b
		case "createdb":
			def.CreateDB = b
		case "createrole":
			def.CreateRole = b
		case "inherit":
			def.Inherit = b
		case "canlogin":
			def.Login = b
		case "isreplication":
			def.Replication = b
		case "bypassrls":
			def.BypassRLS = b
		case "connectionlimit":
			limit := int(d.Arg.GetInteger().GetIval())
			if limit < -1 {
				return nil, pgerr.New(pgerr.InvalidParameterValue, "invalid connection limit: %d", limit)
			}
			def.ConnLimit = limit
		case "password":
			v, err := passwordVerifier(d, notice)
			if err != nil {
				return nil, err
			}
			ro.password = v
		case "validUntil":
			until, err := s.validUntil(d.Arg.GetString_().GetSval())
			if err != nil {
				return nil, err
			}
			def.ValidUntil = until
		case "addroleto":
			ro.inRoles = roleNames(d.Arg)
		case "rolemembers":
			ro.members = roleNames(d.Arg)
		case "adminmembers":
			ro.admins = roleNames(d.Arg)
		case "sysid":
			notice(pgerr.New(pgerr.SuccessfulCompletion, "SYSID can no longer be specified"))
		default:
			return nil, pgerr.New(pgerr.FeatureNotSupported, "role option %s is not supported", d.Defname)
		}
	}
	return ro, nil
}

// passwordVerifier turns PASSWORD's value into what the role keeps: a
// SCRAM-SHA-256 verifier of it, or the value itself when it is one
// already; NULL and ” mean no password.
func passwordVerifier(d *pg_query.DefElem, notice func(*pgerr.Error)) (string, error) {
	if d.Arg == nil {
		return "", nil
	}
	pw := d.Arg.GetString_().GetSval()
	switch {
	case pw == "":
		notice(pgerr.New(pgerr.SuccessfulCompletion, "empty string is not a valid password, clearing password"))
		return "", nil
	case strings.HasPrefix(pw, "SCRAM-SHA-256$"):
		if _, err := scram.Parse(pw); err == nil {
			return pw, nil
		}
	case len(pw) == 35 && strings.HasPrefix(pw, "md5"):
		return "", pgerr.New(pgerr.FeatureNotSupported, "MD5 password hashes are not supported").
			WithHint("Give the password, or its SCRAM-SHA-256 verifier.")
	}
	return scram.New(pw).String(), nil
}

// validUntil reads VALID UNTIL's timestamp ('infinity' is none).
func (s *session) validUntil(text string) (int64, error) {
	if strings.EqualFold(strings.TrimSpace(text), "infinity") {
		return 0, nil
	}
	d, err := types.ParseText(text, types.TypeTimestampTZ, s.TextConfig())
	if err != nil {
		return 0, err
	}
	return d.Int(), nil
}

func roleNames(arg *pg_query.Node) []string {
	var out []string
	for _, n := range arg.GetList().GetItems() {
		out = append(out, n.GetRoleSpec().GetRolename())
	}
	return out
}

// checkRoleName refuses the names PostgreSQL reserves.
func checkRoleName(name string) error {
	switch {
	case strings.HasPrefix(name, "pg_"):
		return pgerr.New(pgerr.ReservedName, "role name %q is reserved", name).
			WithDetail("Role names starting with \"pg_\" are reserved.")
	case name == "public" || name == "none":
		return pgerr.New(pgerr.ReservedName, "role name %q is reserved", name)
	}
	return nil
}

// mayManageRoles checks that role may create, change or drop a role
// with the attributes of def: CREATEROLE, and superuser for superusers
// and the REPLICATION and BYPASSRLS attributes, as in PostgreSQL 15.
func mayManageRoles(cat *catalog.Catalog, role uint64, verb string, target *catalog.RoleDef) error {
	if cat.IsSuperuser(role) {
		return nil
	}
	if target.Super {
		return pgerr.New(pgerr.InsufficientPrivilege, "must be superuser to %s superusers", verb)
	}
	if target.Replication {
		return pgerr.New(pgerr.InsufficientPrivilege, "must be superuser to %s replication users", verb)
	}
	if target.BypassRLS {
		return pgerr.New(pgerr.InsufficientPrivilege, "must be superuser to %s bypassrls users", verb)
	}
	if r, ok := cat.Role(role); !ok || !r.RoleDef.CreateRole {
		return pgerr.New(pgerr.InsufficientPrivilege, "permission denied to %s role", verb)
	}
	return nil
}

func (s *session) bindCreateRole(cs *pg_query.CreateRoleStmt) (*boundStmt, error) {
	name := cs.Role
	if err := checkRoleName(name); err != nil {
		return nil, err
	}
	def := &catalog.RoleDef{Inherit: true, ConnLimit: -1}
	if cs.StmtType == pg_query.RoleStmtType_ROLESTMT_USER {
		def.Login = true
	}
	opts := cs.Options
	b := ddl("CREATE ROLE", func(ctx context.Context, s *session) error {
		return s.submitDDL(ctx, func(ctx context.Context, tx *engine.DDL, notice func(*pgerr.Error)) error {
			d := *def
			ro, err := s.parseRoleOptions(opts, &d, notice)
			if err != nil {
				return err
			}
			cat := tx.Catalog()
			if err := mayManageRoles(cat, s.info.role, "create", &d); err != nil {
				return err
			}
			if _, exists := cat.LookupRole(name); exists {
				return pgerr.New(pgerr.DuplicateObject, "role %q already exists", name)
			}
			r := catalog.NewRole(tx.NextID(), name)
			d.Password = ro.password
			r.RoleDef = &d
			for _, in := range ro.inRoles {
				g, ok := cat.LookupRole(in)
				if !ok {
					return pgerr.New(pgerr.UndefinedObject, "role %q does not exist", in)
				}
				if err := s.mayGrantRole(cat, g); err != nil {
					return err
				}
				d.MemberOf = append(d.MemberOf, catalog.Membership{Role: g.ID, Grantor: s.info.role})
			}
			if err := tx.Create(ctx, r); err != nil {
				return err
			}
			for i, list := range [][]string{ro.members, ro.admins} {
				for _, m := range list {
					if err := s.addMember(tx, r, m, i == 1, notice); err != nil {
						return err
					}
				}
			}
			return nil
		})
	})
	return b, nil
}

func (s *session) bindAlterRole(as *pg_query.AlterRoleStmt) (*boundStmt, error) {
	spec, opts := as.Role, as.Options
	b := ddl("ALTER ROLE", func(ctx context.Context, s *session) error {
		return s.submitDDL(ctx, func(ctx context.Context, tx *engine.DDL, notice func(*pgerr.Error)) error {
			cat := tx.Catalog()
			r, err := s.roleOf(cat, spec)
			if err != nil {
				return err
			}
			if r.RoleDef.Predefined {
				return pgerr.New(pgerr.InsufficientPrivilege, "cannot alter predefined role %q", r.Name)
			}
			d := *r.RoleDef
			ro, err := s.parseRoleOptions(opts, &d, notice)
			if err != nil {
				return err
			}
			if len(ro.inRoles)+len(ro.members)+len(ro.admins) > 0 {
				return pgerr.New(pgerr.SyntaxError, "ALTER ROLE cannot change memberships; use GRANT or REVOKE")
			}
			if err := s.mayAlterRole(cat, r, ro); err != nil {
				return err
			}
			if ro.set["password"] {
				d.Password = ro.password
			}
			if r.ID == catalog.BootstrapRoleID && !d.Super {
				return pgerr.New(pgerr.FeatureNotSupported, "permission denied to remove superuser from the bootstrap role %q", r.Name)
			}
			n := *r
			n.RoleDef = &d
			return tx.Replace(r, &n)
		})
	})
	b.catalogIndependent = true
	return b, nil
}

// mayAlterRole checks that the session may make the changes ro asks of
// r: a role may change its own password; everything else needs
// mayManageRoles for the role as it is and as it would be.
func (s *session) mayAlterRole(cat *catalog.Catalog, r *catalog.Object, ro *roleOptions) error {
	role := s.info.role
	if cat.IsSuperuser(role) {
		return nil
	}
	if r.ID == role && len(ro.set) == 1 && ro.set["password"] {
		return nil
	}
	if r.RoleDef.Super || ro.set["superuser"] {
		return pgerr.New(pgerr.InsufficientPrivilege, "must be superuser to alter superuser roles or change superuser attribute")
	}
	if err := mayManageRoles(cat, role, "alter", ro.def); err != nil {
		return pgerr.New(pgerr.InsufficientPrivilege, "permission denied")
	}
	return nil
}

// roleOf resolves the role of ALTER ROLE.
func (s *session) roleOf(cat *catalog.Catalog, spec *pg_query.RoleSpec) (*catalog.Object, error) {
	switch spec.Roletype {
	case pg_query.RoleSpecType_ROLESPEC_CSTRING:
		r, ok := cat.LookupRole(spec.Rolename)
		if !ok {
			return nil, pgerr.New(pgerr.UndefinedObject, "role %q does not exist", spec.Rolename)
		}
		return r, nil
	case pg_query.RoleSpecType_ROLESPEC_CURRENT_USER, pg_query.RoleSpecType_ROLESPEC_SESSION_USER, pg_query.RoleSpecType_ROLESPEC_CURRENT_ROLE:
		r, ok := cat.Role(s.info.role)
		if !ok {
			return nil, pgerr.New(pgerr.UndefinedObject, "role %q does not exist", s.info.current)
		}
		return r, nil
	}
	return nil, pgerr.New(pgerr.FeatureNotSupported, "ALTER ROLE ALL is not supported")
}

func (s *session) bindDropRole(ds *pg_query.DropRoleStmt) (*boundStmt, error) {
	var names []string
	for _, n := range ds.Roles {
		names = append(names, n.GetRoleSpec().GetRolename())
	}
	missingOK := ds.MissingOk
	b := ddl("DROP ROLE", func(ctx context.Context, s *session) error {
		return s.submitDDL(ctx, func(ctx context.Context, tx *engine.DDL, notice func(*pgerr.Error)) error {
			for _, name := range names {
				cat := tx.Catalog()
				r, ok := cat.LookupRole(name)
				if !ok {
					if missingOK {
						notice(pgerr.New(pgerr.SuccessfulCompletion, "role %q does not exist, skipping", name))
						continue
					}
					return pgerr.New(pgerr.UndefinedObject, "role %q does not exist", name)
				}
				if err := s.mayDropRole(cat, r); err != nil {
					return err
				}
				if err := dropRole(tx, r); err != nil {
					return err
				}
			}
			return nil
		})
	})
	b.catalogIndependent = true
	return b, nil
}

func (s *session) mayDropRole(cat *catalog.Catalog, r *catalog.Object) error {
	switch {
	case r.ID == s.info.role:
		return pgerr.New(pgerr.ObjectInUse, "current user cannot be dropped")
	case r.ID == catalog.BootstrapRoleID || r.RoleDef.Predefined:
		return pgerr.New(pgerr.DependentObjectsStillExist, "cannot drop role %s because it is required by the database system", r.Name)
	}
	if err := mayManageRoles(cat, s.info.role, "drop", r.RoleDef); err != nil {
		return err
	}
	for _, sess := range s.e.sessionsOf(r.ID) {
		if sess != s {
			return pgerr.New(pgerr.ObjectInUse, "role %q is being used by another session", r.Name).
				WithHint("Disconnect its sessions first.")
		}
	}
	return nil
}

// dropRole drops a role that owns nothing and holds no privileges, and
// takes it out of every role's memberships, as PostgreSQL does.
func dropRole(tx *engine.DDL, r *catalog.Object) error {
	cat := tx.Catalog()
	owned, granted := cat.Owns(r.ID)
	if len(owned)+len(granted) > 0 {
		var detail []string
		for _, o := range granted {
			detail = append(detail, "privileges for "+o.Kind.String()+" "+o.Name)
		}
		for _, o := range owned {
			detail = append(detail, "owner of "+o.Kind.String()+" "+o.Name)
		}
		return pgerr.New(pgerr.DependentObjectsStillExist, "role %q cannot be dropped because some objects depend on it", r.Name).
			WithDetail("%s", strings.Join(detail, "\n"))
	}
	for _, other := range cat.Roles() {
		kept := other.RoleDef.MemberOf[:0:0]
		for _, m := range other.RoleDef.MemberOf {
			if m.Role != r.ID {
				kept = append(kept, m)
			}
		}
		if len(kept) == len(other.RoleDef.MemberOf) {
			continue
		}
		d := *other.RoleDef
		d.MemberOf = kept
		n := *other
		n.RoleDef = &d
		if err := tx.Replace(other, &n); err != nil {
			return err
		}
	}
	tx.Drop(r)
	return nil
}

func (s *session) bindGrantRole(gs *pg_query.GrantRoleStmt) (*boundStmt, error) {
	var groups, members []string
	for _, n := range gs.GrantedRoles {
		groups = append(groups, n.GetAccessPriv().PrivName)
	}
	for _, n := range gs.GranteeRoles {
		rs := n.GetRoleSpec()
		if rs.Roletype != pg_query.RoleSpecType_ROLESPEC_CSTRING {
			return nil, pgerr.New(pgerr.FeatureNotSupported, "GRANT of a role to PUBLIC or CURRENT_USER is not supported")
		}
		members = append(members, rs.Rolename)
	}
	admin := false
	for _, o := range gs.Opt {
		d := o.GetDefElem()
		if d.Defname != "admin" {
			return nil, pgerr.New(pgerr.FeatureNotSupported, "option %s of GRANT role is not supported", d.Defname)
		}
		admin = true
	}
	if gs.Grantor != nil {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "GRANTED BY is not supported")
	}
	grant := gs.IsGrant
	tag := "GRANT ROLE"
	if !grant {
		tag = "REVOKE ROLE"
	}
	b := ddl(tag, func(ctx context.Context, s *session) error {
		return s.submitDDL(ctx, func(ctx context.Context, tx *engine.DDL, notice func(*pgerr.Error)) error {
			for _, gname := range groups {
				g, ok := tx.Catalog().LookupRole(gname)
				if !ok {
					return pgerr.New(pgerr.UndefinedObject, "role %q does not exist", gname)
				}
				if err := s.mayGrantRole(tx.Catalog(), g); err != nil {
					return err
				}
				for _, m := range members {
					var err error
					if grant {
						err = s.addMember(tx, g, m, admin, notice)
					} else {
						err = s.removeMember(tx, g, m, admin, notice)
					}
					if err != nil {
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

// mayGrantRole checks that the session may grant membership in g:
// superusers may; CREATEROLE may for roles that are not superusers;
// others need g's admin option.
func (s *session) mayGrantRole(cat *catalog.Catalog, g *catalog.Object) error {
	role := s.info.role
	if cat.IsSuperuser(role) {
		return nil
	}
	if g.RoleDef.Super {
		return pgerr.New(pgerr.InsufficientPrivilege, "must be superuser to alter superusers")
	}
	if r, ok := cat.Role(role); ok && r.RoleDef.CreateRole {
		return nil
	}
	if r, ok := cat.Role(role); ok {
		for _, m := range r.RoleDef.MemberOf {
			if m.Role == g.ID && m.Admin {
				return nil
			}
		}
	}
	return pgerr.New(pgerr.InsufficientPrivilege, "must have admin option on role %q", g.Name)
}

// addMember makes the role named member a member of g.
func (s *session) addMember(tx *engine.DDL, g *catalog.Object, member string, admin bool, notice func(*pgerr.Error)) error {
	cat := tx.Catalog()
	m, ok := cat.LookupRole(member)
	if !ok {
		return pgerr.New(pgerr.UndefinedObject, "role %q does not exist", member)
	}
	if m.ID == g.ID || g.ID == catalog.BootstrapRoleID || cat.IsMemberOf(g.ID, m.ID) && !cat.IsSuperuser(g.ID) {
		return pgerr.New(pgerr.InvalidGrantOperation, "role %q is a member of role %q", g.Name, m.Name)
	}
	d := *m.RoleDef
	d.MemberOf = append([]catalog.Membership(nil), d.MemberOf...)
	for i, ms := range d.MemberOf {
		if ms.Role == g.ID {
			if !admin || ms.Admin {
				notice(pgerr.New(pgerr.SuccessfulCompletion, "role %q is already a member of role %q", m.Name, g.Name))
				return nil
			}
			d.MemberOf[i].Admin = true
			n := *m
			n.RoleDef = &d
			return tx.Replace(m, &n)
		}
	}
	d.MemberOf = append(d.MemberOf, catalog.Membership{Role: g.ID, Grantor: s.info.role, Admin: admin})
	n := *m
	n.RoleDef = &d
	return tx.Replace(m, &n)
}

// removeMember takes the role named member out of g (or, with
// adminOnly, takes away only its admin option).
func (s *session) removeMember(tx *engine.DDL, g *catalog.Object, member string, adminOnly bool, notice func(*pgerr.Error)) error {
	cat := tx.Catalog()
	m, ok := cat.LookupRole(member)
	if !ok {
		return pgerr.New(pgerr.UndefinedObject, "role %q does not exist", member)
	}
	d := *m.RoleDef
	var kept []catalog.Membership
	found := false
	for _, ms := range d.MemberOf {
		if ms.Role == g.ID {
			found = true
			if adminOnly {
				ms.Admin = false
				kept = append(kept, ms)
			}
			continue
		}
		kept = append(kept, ms)
	}
	if !found {
		notice(&pgerr.Error{Severity: "WARNING", Code: pgerr.Warning, Message: "role \"" + m.Name + "\" has not been granted membership in role \"" + g.Name + "\" by role \"" + s.info.current + "\""})
		return nil
	}
	d.MemberOf = kept
	n := *m
	n.RoleDef = &d
	return tx.Replace(m, &n)
}

// bindRenameRole binds ALTER ROLE … RENAME TO.
func (s *session) bindRenameRole(rs *pg_query.RenameStmt) (*boundStmt, error) {
	from, to := rs.Subname, rs.Newname
	if err := checkRoleName(to); err != nil {
		return nil, err
	}
	b := ddl("ALTER ROLE", func(ctx context.Context, s *session) error {
		return s.submitDDL(ctx, func(ctx context.Context, tx *engine.DDL, notice func(*pgerr.Error)) error {
			cat := tx.Catalog()
			r, ok := cat.LookupRole(from)
			if !ok {
				return pgerr.New(pgerr.UndefinedObject, "role %q does not exist", from)
			}
			switch {
			case r.ID == s.info.role:
				return pgerr.New(pgerr.FeatureNotSupported, "session user cannot be renamed")
			case r.RoleDef.Predefined:
				return pgerr.New(pgerr.ReservedName, "role name %q is reserved", r.Name)
			}
			if err := mayManageRoles(cat, s.info.role, "rename", r.RoleDef); err != nil {
				return err
			}
			if _, taken := cat.LookupRole(to); taken {
				return pgerr.New(pgerr.DuplicateObject, "role %q already exists", to)
			}
			// A SCRAM verifier does not depend on the name (unlike the
			// MD5 hashes PostgreSQL clears on a rename): it stays.
			n := *r
			n.Name, n.SQL = to, catalog.NewRole(r.ID, to).SQL
			return tx.Replace(r, &n)
		})
	})
	b.catalogIndependent = true
	return b, nil
}
