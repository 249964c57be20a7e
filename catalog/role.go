package catalog

// Well-known ids of the objects every catalog has, below FirstUserID.
// They are PostgreSQL's OIDs where PostgreSQL has the same object.
const (
	// BootstrapRoleID is the superuser created at first start (the role
	// initdb creates, OID 10 in PostgreSQL).
	BootstrapRoleID uint64 = 10
	// DatabaseID is the database (the OID PostgreSQL gives the first
	// database a user creates).
	DatabaseID uint64 = 16384
	// CreateConnectionRoleID is the predefined role whose members may
	// create connections (CreateConnectionRole): the server dials what
	// a connection names, so making it reach a host is a privilege of
	// its own, as PostgreSQL 16's pg_create_subscription is. Its id is
	// in the range PostgreSQL's initdb assigns (10000–16383), which no
	// user object takes.
	CreateConnectionRoleID uint64 = 16383
)

// CreateConnectionRole is the name of the role CreateConnectionRoleID.
const CreateConnectionRole = "pg_create_connection"

// RoleDef is a role's attributes, pg_authid's columns of the same
// names (the JSON names are pg_authid's, as the bootstrap file's are).
type RoleDef struct {
	Super       bool `json:"rolsuper,omitempty"`
	Inherit     bool `json:"rolinherit,omitempty"`
	CreateRole  bool `json:"rolcreaterole,omitempty"`
	CreateDB    bool `json:"rolcreatedb,omitempty"`
	Login       bool `json:"rolcanlogin,omitempty"`
	Replication bool `json:"rolreplication,omitempty"`
	BypassRLS   bool `json:"rolbypassrls,omitempty"`
	// ConnLimit is rolconnlimit: the connections the role may hold at
	// once, -1 for no limit.
	ConnLimit int `json:"rolconnlimit"`
	// Password is rolpassword: a SCRAM-SHA-256 verifier in PostgreSQL's
	// format, never a password; empty for none.
	Password string `json:"rolpassword,omitempty"`
	// ValidUntil is rolvaliduntil in Unix microseconds, 0 for none.
	ValidUntil int64 `json:"rolvaliduntil,omitempty"`
	// MemberOf lists the roles this one is a member of, as
	// pg_auth_members rows whose member is this role.
	MemberOf []Membership `json:"member_of,omitempty"`
	// Predefined marks the roles every catalog has
	// (CreateConnectionRole): they cannot be dropped or changed.
	Predefined bool `json:"predefined,omitempty"`
}

// Membership is a row of pg_auth_members: membership in Role, granted
// by Grantor, with the ADMIN OPTION to grant it on.
type Membership struct {
	Role    uint64 `json:"roleid"`
	Grantor uint64 `json:"grantor"`
	Admin   bool   `json:"admin_option,omitempty"`
}

// NewRole returns a role object with PostgreSQL's defaults for CREATE
// ROLE: INHERIT, no login, no connection limit.
func NewRole(id uint64, name string) *Object {
	return &Object{ID: id, Kind: KindRole, Name: name, SQL: "CREATE ROLE " + quoteIdent(name),
		RoleDef: &RoleDef{Inherit: true, ConnLimit: -1}}
}

// quoteIdent quotes a name for a statement text when it is not a plain
// lower-case identifier.
func quoteIdent(s string) string {
	plain := s != ""
	for i, r := range s {
		if !(r >= 'a' && r <= 'z' || r == '_' || i > 0 && r >= '0' && r <= '9') {
			plain = false
			break
		}
	}
	if plain {
		return s
	}
	out := []byte{'"'}
	for i := 0; i < len(s); i++ {
		if s[i] == '"' {
			out = append(out, '"')
		}
		out = append(out, s[i])
	}
	return string(append(out, '"'))
}

// LookupRole finds a role by name.
func (c *Catalog) LookupRole(name string) (*Object, bool) { return c.roles.Get(name) }

// Role returns the role with the given id.
func (c *Catalog) Role(id uint64) (*Object, bool) {
	o, ok := c.byID.Get(id)
	if !ok || o.Kind != KindRole {
		return nil, false
	}
	return o, true
}

// RoleName returns the name of a role, "" when there is none.
func (c *Catalog) RoleName(id uint64) string {
	if r, ok := c.Role(id); ok {
		return r.Name
	}
	return ""
}

// Roles returns every role in name order.
func (c *Catalog) Roles() []*Object {
	out := make([]*Object, 0, c.roles.Len())
	c.roles.Scan(func(_ string, o *Object) bool {
		out = append(out, o)
		return true
	})
	return out
}

// Database returns the database object, which a catalog written before
// roles existed lacks until it is set up.
func (c *Catalog) Database() (*Object, bool) { return c.byID.Get(DatabaseID) }

// IsSuperuser reports whether the role exists and is a superuser.
func (c *Catalog) IsSuperuser(role uint64) bool {
	r, ok := c.Role(role)
	return ok && r.RoleDef.Super
}

// HasPrivsOf reports whether role has the privileges of role of: it is
// that role, a superuser, or a member of it through roles that inherit
// (PostgreSQL's has_privs_of_role). Ownership is checked this way: the
// members of an owning group act as its owner.
func (c *Catalog) HasPrivsOf(role, of uint64) bool {
	if role == of || c.IsSuperuser(role) {
		return true
	}
	for _, id := range c.privilegeRoles(role) {
		if id == of {
			return true
		}
	}
	return false
}

// IsMemberOf reports whether role is a member of group, directly or
// through other roles, whether or not they inherit (PostgreSQL's
// is_member_of_role): what SET ROLE and pg_has_role's MEMBER ask.
func (c *Catalog) IsMemberOf(role, group uint64) bool {
	if role == group || c.IsSuperuser(role) {
		return true
	}
	seen := map[uint64]bool{role: true}
	stack := []uint64{role}
	for len(stack) > 0 {
		r, ok := c.Role(stack[len(stack)-1])
		stack = stack[:len(stack)-1]
		if !ok {
			continue
		}
		for _, m := range r.RoleDef.MemberOf {
			if m.Role == group {
				return true
			}
			if !seen[m.Role] {
				seen[m.Role] = true
				stack = append(stack, m.Role)
			}
		}
	}
	return false
}

// privilegeRoles returns role and every role whose privileges it has:
// the roles it is a member of, followed through members that inherit.
func (c *Catalog) privilegeRoles(role uint64) []uint64 {
	out := []uint64{role}
	seen := map[uint64]bool{role: true}
	for i := 0; i < len(out); i++ {
		r, ok := c.Role(out[i])
		if !ok || !r.RoleDef.Inherit {
			continue
		}
		for _, m := range r.RoleDef.MemberOf {
			if !seen[m.Role] {
				seen[m.Role] = true
				out = append(out, m.Role)
			}
		}
	}
	return out
}

// Owns lists the objects role owns, in id order, and the objects whose
// ACL names it: what DROP ROLE must find none of.
func (c *Catalog) Owns(role uint64) (owned, granted []*Object) {
	c.byID.Scan(func(_ uint64, o *Object) bool {
		if o.Kind == KindRole {
			return true
		}
		if o.OwnerID() == role {
			owned = append(owned, o)
		}
		for _, g := range o.ACL {
			if g.Grantee == role || g.Grantor == role {
				granted = append(granted, o)
				break
			}
		}
		return true
	})
	return owned, granted
}
