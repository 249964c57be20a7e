package catalog

import (
	"strings"
)

// Privileges is a set of privileges, PostgreSQL's ACL rights.
type Privileges uint16

// The privileges, in the order PostgreSQL prints their letters.
const (
	PrivInsert Privileges = 1 << iota
	PrivSelect
	PrivUpdate
	PrivDelete
	PrivTruncate
	PrivReferences
	PrivTrigger
	PrivExecute
	PrivUsage
	PrivCreate
	PrivTemporary
	PrivConnect
)

// privLetters are the letters of aclitem's text, in bit order.
const privLetters = "arwdDxtXUCTc"

// privNames are the privileges' names in GRANT and has_*_privilege, in
// bit order.
var privNames = []string{"INSERT", "SELECT", "UPDATE", "DELETE", "TRUNCATE", "REFERENCES", "TRIGGER",
	"EXECUTE", "USAGE", "CREATE", "TEMPORARY", "CONNECT"}

// PrivilegeByName returns the privilege GRANT or has_*_privilege names
// (case-insensitive; TEMP is TEMPORARY).
func PrivilegeByName(name string) (Privileges, bool) {
	u := strings.ToUpper(name)
	if u == "TEMP" {
		u = "TEMPORARY"
	}
	for i, n := range privNames {
		if n == u {
			return 1 << i, true
		}
	}
	return 0, false
}

// String names the privileges, comma-separated, in PostgreSQL's order.
func (p Privileges) String() string {
	var names []string
	for i, n := range privNames {
		if p&(1<<i) != 0 {
			names = append(names, n)
		}
	}
	return strings.Join(names, ", ")
}

// Applicable returns the privileges that can be granted on objects of
// the kind, PostgreSQL's ACL_ALL_RIGHTS_* for the matching object: a
// relation's, a sequence's, the database's; USAGE for connections and
// secrets (as for foreign servers); none for indexes and roles.
func (k ObjectKind) Applicable() Privileges {
	switch k {
	case KindTable, KindView, KindMaterializedView, KindSource, KindSubsource:
		return PrivInsert | PrivSelect | PrivUpdate | PrivDelete | PrivTruncate | PrivReferences | PrivTrigger
	case KindSequence:
		return PrivSelect | PrivUpdate | PrivUsage
	case KindDatabase:
		return PrivCreate | PrivTemporary | PrivConnect
	case KindConnection, KindSecret:
		return PrivUsage
	}
	return 0
}

// Grant is one entry of an ACL (an aclitem): Grantee holds Privs, of
// which it may grant Options on, as granted by Grantor.
type Grant struct {
	// Grantee is a role id, or Public for every role.
	Grantee uint64     `json:"grantee"`
	Grantor uint64     `json:"grantor"`
	Privs   Privileges `json:"privs"`
	Options Privileges `json:"options,omitempty"`
}

// Public is the grantee that stands for every role.
const Public uint64 = 0

// EffectiveACL returns the object's ACL, its kind's default when it has
// none of its own (see Object.ACL).
func (o *Object) EffectiveACL() []Grant {
	if o.ACL != nil {
		return o.ACL
	}
	owner := o.OwnerID()
	all := o.Kind.Applicable()
	if all == 0 {
		return nil
	}
	acl := []Grant{{Grantee: owner, Grantor: owner, Privs: all}}
	if o.Kind == KindDatabase {
		acl = append([]Grant{{Grantee: Public, Grantor: owner, Privs: PrivTemporary | PrivConnect}}, acl...)
	}
	return acl
}

// Privileges returns the privileges role holds on o: every applicable
// one for a superuser; otherwise what the ACL grants the role, the roles
// whose privileges it has, and PUBLIC.
func (c *Catalog) Privileges(role uint64, o *Object) Privileges {
	all := o.Kind.Applicable()
	if c.IsSuperuser(role) {
		return all
	}
	var held Privileges
	roles := c.privilegeRoles(role)
	for _, g := range o.EffectiveACL() {
		if g.Grantee == Public || containsID(roles, g.Grantee) {
			held |= g.Privs
		}
	}
	return held & all
}

// GrantOptions returns the privileges role may grant on o: every
// applicable one for a superuser and for the owner (PostgreSQL's owner
// holds them implicitly, whatever its ACL says), else those granted to
// it WITH GRANT OPTION.
func (c *Catalog) GrantOptions(role uint64, o *Object) Privileges {
	all := o.Kind.Applicable()
	if c.HasPrivsOf(role, o.OwnerID()) {
		return all
	}
	var opts Privileges
	roles := c.privilegeRoles(role)
	for _, g := range o.EffectiveACL() {
		if g.Grantee == Public || containsID(roles, g.Grantee) {
			opts |= g.Options
		}
	}
	return opts & all
}

func containsID(ids []uint64, id uint64) bool {
	for _, x := range ids {
		if x == id {
			return true
		}
	}
	return false
}

// WithGrant returns the ACL after grantor grants privs (and, with
// options, the right to grant them on) to grantee, merged into the
// entry for that grantee and grantor as PostgreSQL merges it.
func WithGrant(acl []Grant, grantee, grantor uint64, privs Privileges, options bool) []Grant {
	out := append([]Grant{}, acl...)
	for i := range out {
		if out[i].Grantee == grantee && out[i].Grantor == grantor {
			out[i].Privs |= privs
			if options {
				out[i].Options |= privs
			}
			return out
		}
	}
	g := Grant{Grantee: grantee, Grantor: grantor, Privs: privs}
	if options {
		g.Options = privs
	}
	return append(out, g)
}

// WithRevoke returns the ACL after grantor revokes privs from grantee
// (only the right to grant them on, with optionsOnly). Entries left with
// nothing are removed.
func WithRevoke(acl []Grant, grantee, grantor uint64, privs Privileges, optionsOnly bool) []Grant {
	out := make([]Grant, 0, len(acl))
	for _, g := range acl {
		if g.Grantee == grantee && g.Grantor == grantor {
			g.Options &^= privs
			if !optionsOnly {
				g.Privs &^= privs
			}
			if g.Privs == 0 {
				continue
			}
		}
		out = append(out, g)
	}
	return out
}

// ACLText renders an ACL as aclitem texts, "grantee=privs/grantor" with
// an empty grantee for PUBLIC and * after each privilege grantable on,
// as PostgreSQL prints relacl; nil for the default ACL, as PostgreSQL's
// NULL.
func (c *Catalog) ACLText(o *Object) []string {
	if o.ACL == nil {
		return nil
	}
	out := make([]string, 0, len(o.ACL))
	for _, g := range o.ACL {
		var b strings.Builder
		if g.Grantee != Public {
			b.WriteString(aclName(c.RoleName(g.Grantee)))
		}
		b.WriteByte('=')
		for i := range privLetters {
			if g.Privs&(1<<i) != 0 {
				b.WriteByte(privLetters[i])
				if g.Options&(1<<i) != 0 {
					b.WriteByte('*')
				}
			}
		}
		b.WriteByte('/')
		b.WriteString(aclName(c.RoleName(g.Grantor)))
		out = append(out, b.String())
	}
	return out
}

// aclName quotes a role name in an aclitem as PostgreSQL's putid does:
// when it holds anything but letters, digits and underscores.
func aclName(name string) string {
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_') {
			return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
		}
	}
	return name
}

// NewOwnerACL returns acl with the role old replaced by new as grantee
// and as grantor, for an object whose owner changes from old to new, as
// PostgreSQL's aclnewowner does: entries that then name the same grantee
// and grantor merge into one.
func NewOwnerACL(acl []Grant, old, new uint64) []Grant {
	if acl == nil {
		return nil
	}
	out := make([]Grant, 0, len(acl))
	for _, g := range acl {
		if g.Grantee == old {
			g.Grantee = new
		}
		if g.Grantor == old {
			g.Grantor = new
		}
		merged := false
		for i := range out {
			if out[i].Grantee == g.Grantee && out[i].Grantor == g.Grantor {
				out[i].Privs |= g.Privs
				out[i].Options |= g.Options
				merged = true
				break
			}
		}
		if !merged {
			out = append(out, g)
		}
	}
	return out
}
