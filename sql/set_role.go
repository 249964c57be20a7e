package sql

import (
	"context"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/pgwire"
	"github.com/streamdb/streamdb/types"
)

// SET ROLE. As in PostgreSQL, a session may take on the privileges of a
// role it is a member of (any role, for a superuser): current_user
// becomes that role and every privilege check uses it, while
// session_user stays the role that logged in. SET ROLE NONE, RESET ROLE,
// RESET ALL and DISCARD ALL go back to the session user. The role
// setting shows the role chosen, "none" without one.

// bindSetRole binds SET ROLE name | NONE and RESET ROLE.
func bindSetRole(vs *pg_query.VariableSetStmt, reset bool) (*boundStmt, error) {
	name := "none"
	if !reset {
		v, err := setValue(vs.Args)
		if err != nil {
			return nil, err
		}
		name = v
	}
	tag := "SET"
	if vs.Kind == pg_query.VariableSetKind_VAR_RESET {
		tag = "RESET"
	}
	return independent(nil, func(ctx context.Context, s *session, _ []types.Datum) (pgwire.Result, error) {
		old := s.info.settings
		if strings.EqualFold(name, "none") {
			s.resetRole()
		} else if err := s.setRole(name); err != nil {
			return nil, err
		}
		s.reportChanges(old)
		return commandResult(tag), nil
	}), nil
}

// setRole makes the role named the session's current role.
func (s *session) setRole(name string) error {
	cat := s.e.snapshot().Catalog()
	r, ok := cat.LookupRole(name)
	if !ok {
		return pgerr.New(pgerr.InvalidParameterValue, "role %q does not exist", name)
	}
	if !cat.IsSuperuser(s.info.loginRole) && !cat.IsMemberOf(s.info.loginRole, r.ID) {
		return pgerr.New(pgerr.InsufficientPrivilege, "permission denied to set role %q", name)
	}
	s.info.role, s.info.current, s.info.super = r.ID, r.Name, r.RoleDef.Super
	s.applyRole(r.Name)
	return nil
}

// resetRole makes the session user the current role again.
func (s *session) resetRole() {
	if s.info.role == s.info.loginRole {
		return
	}
	s.info.role, s.info.current = s.info.loginRole, s.info.user
	s.info.super = false
	if r, ok := s.e.snapshot().Catalog().Role(s.info.loginRole); ok {
		s.info.super = r.RoleDef.Super
	}
	s.applyRole("none")
}

// applyRole records the current role in the settings: role, and
// is_superuser as the current role's; statements bound for the previous
// role bind again, since their settings differ.
func (s *session) applyRole(role string) {
	n := &settings{values: append([]string(nil), s.info.settings.values...), names: s.info.settings.names}
	n.values[settingIndex["role"]] = role
	n.values[settingIndex["is_superuser"]] = "off"
	if s.info.super {
		n.values[settingIndex["is_superuser"]] = "on"
	}
	n.text = n.buildText()
	s.info.settings = n
}
