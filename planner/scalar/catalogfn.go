package scalar

import (
	"strings"

	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/types"
)

// The functions clients call to read the session and describe catalog
// objects. They reach the session through EvalContext.Session.

var (
	oidT  = types.TypeOid
	nameT = types.TypeName
)

// OIDs of the catalogs the visibility and privilege functions ask about.
const (
	pgClassOID     = 1259
	pgTypeOID      = 1247
	pgProcOID      = 1255
	pgNamespaceOID = 2615
	pgDatabaseOID  = 1262
)

// sessionFn is a stable, strict function of the session.
func sessionFn(name string, params []types.Type, ret types.Type, impl func(s Session, ctx *EvalContext, a []types.Datum) (types.Datum, error)) *Func {
	return &Func{Name: name, Params: params, Ret: ret, Strict: true, Volatility: Stable,
		Impl: func(ctx *EvalContext, a []types.Datum) (types.Datum, error) {
			s, err := ctx.session(name)
			if err != nil {
				return types.Null, err
			}
			return impl(s, ctx, a)
		}}
}

// describeFn is a function whose value is Session.Describe's text.
func describeFn(name string, params []types.Type, ret types.Type, arg int) *Func {
	return sessionFn(name, params, ret, func(s Session, _ *EvalContext, a []types.Datum) (types.Datum, error) {
		n := 0
		if arg >= 0 && arg < len(a) {
			n = int(a[arg].Int())
		}
		text, ok := s.Describe(name, uint32(a[0].Int()), n)
		if !ok {
			return types.Null, nil
		}
		return types.NewString(ret.Family, text), nil
	})
}

// visibleFn is pg_table_is_visible and its relatives.
func visibleFn(name string, catalog uint32) *Func {
	return sessionFn(name, ts(oidT), boolT, func(s Session, _ *EvalContext, a []types.Datum) (types.Datum, error) {
		v, ok := s.Visible(catalog, uint32(a[0].Int()))
		if !ok {
			return types.Null, nil
		}
		return types.NewBool(v), nil
	})
}

// nullFn always returns NULL: the descriptions of objects streamdb keeps
// no comments for, and the definitions of objects it does not have
// (rules, statistics objects), which only appear in queries over empty
// catalogs.
func nullFn(name string, ret types.Type, params ...types.Type) *Func {
	return &Func{Name: name, Params: params, Ret: ret, Volatility: Stable,
		Impl: func(*EvalContext, []types.Datum) (types.Datum, error) { return types.Null, nil }}
}

// sequenceFn is a sequence function: volatile, since every call may
// advance or read a sequence that other sessions advance too.
func sequenceFn(name string, params []types.Type, impl func(s Session, a []types.Datum) (int64, error)) *Func {
	f := sessionFn(name, params, int8T, func(s Session, _ *EvalContext, a []types.Datum) (types.Datum, error) {
		v, err := impl(s, a)
		if err != nil {
			return types.Null, err
		}
		return types.NewInt8(v), nil
	})
	f.Volatility = Volatile
	return f
}

func init() {
	regclass := types.TypeRegClass
	addFunc(
		sequenceFn("nextval", ts(regclass), func(s Session, a []types.Datum) (int64, error) {
			return s.Sequence("nextval", uint32(a[0].Int()), 0, false)
		}),
		sequenceFn("currval", ts(regclass), func(s Session, a []types.Datum) (int64, error) {
			return s.Sequence("currval", uint32(a[0].Int()), 0, false)
		}),
		sequenceFn("setval", ts(regclass, int8T), func(s Session, a []types.Datum) (int64, error) {
			return s.Sequence("setval", uint32(a[0].Int()), a[1].Int(), true)
		}),
		sequenceFn("setval", ts(regclass, int8T, boolT), func(s Session, a []types.Datum) (int64, error) {
			return s.Sequence("setval", uint32(a[0].Int()), a[1].Int(), a[2].Bool())
		}),
		sequenceFn("lastval", nil, func(s Session, _ []types.Datum) (int64, error) {
			return s.Sequence("lastval", 0, 0, false)
		}),
		sessionFn("current_setting", ts(textT), textT, func(s Session, _ *EvalContext, a []types.Datum) (types.Datum, error) {
			v, _, err := s.Setting(a[0].Str(), false)
			return types.NewText(v), err
		}),
		sessionFn("current_setting", ts(textT, boolT), textT, func(s Session, _ *EvalContext, a []types.Datum) (types.Datum, error) {
			v, ok, err := s.Setting(a[0].Str(), a[1].Bool())
			if err != nil || !ok {
				return types.Null, err
			}
			return types.NewText(v), nil
		}),
		&Func{Name: "set_config", Params: ts(textT, textT, boolT), Ret: textT, Volatility: Volatile,
			Impl: func(ctx *EvalContext, a []types.Datum) (types.Datum, error) {
				s, err := ctx.session("set_config")
				if err != nil {
					return types.Null, err
				}
				if a[0].IsNull() {
					return types.Null, pgerr.New(pgerr.NullValueNotAllowed, "SET requires parameter name")
				}
				v, err := s.SetSetting(a[0].Str(), a[1].Str(), a[2].Kind() == types.Bool && a[2].Bool())
				return types.NewText(v), err
			}},
		sessionFn("pg_backend_pid", nil, int4T, func(s Session, _ *EvalContext, _ []types.Datum) (types.Datum, error) {
			return types.NewInt4(s.BackendPID()), nil
		}),
		sessionFn("pg_postmaster_start_time", nil, types.TypeTimestampTZ, func(s Session, _ *EvalContext, _ []types.Datum) (types.Datum, error) {
			return types.NewTimestampTZ(s.ServerStart().UnixMicro()), nil
		}),
		sessionFn("txid_current", nil, int8T, func(s Session, _ *EvalContext, _ []types.Datum) (types.Datum, error) {
			return types.NewInt8(s.TxnID()), nil
		}),
		describeFn("pg_get_viewdef", ts(oidT), textT, -1),
		describeFn("pg_get_viewdef", ts(oidT, boolT), textT, -1),
		describeFn("pg_get_indexdef", ts(oidT), textT, -1),
		describeFn("pg_get_indexdef", ts(oidT, int4T, boolT), textT, 1),
		describeFn("pg_get_constraintdef", ts(oidT), textT, -1),
		describeFn("pg_get_constraintdef", ts(oidT, boolT), textT, -1),
		describeFn("pg_get_userbyid", ts(oidT), nameT, -1),
		describeFn("pg_get_function_result", ts(oidT), textT, -1),
		describeFn("pg_get_function_arguments", ts(oidT), textT, -1),
		describeFn("pg_get_function_identity_arguments", ts(oidT), textT, -1),
		visibleFn("pg_table_is_visible", pgClassOID),
		visibleFn("pg_type_is_visible", pgTypeOID),
		visibleFn("pg_function_is_visible", pgProcOID),
		nullFn("obj_description", textT, oidT),
		nullFn("obj_description", textT, oidT, nameT),
		nullFn("col_description", textT, oidT, int4T),
		nullFn("shobj_description", textT, oidT, nameT),
		nullFn("pg_get_ruledef", textT, oidT),
		nullFn("pg_get_ruledef", textT, oidT, boolT),
		nullFn("pg_get_statisticsobjdef_columns", textT, oidT),
		strict("pg_relation_is_publishable", ts(types.TypeRegClass), boolT, func(*EvalContext, []types.Datum) (types.Datum, error) {
			return types.DFalse, nil
		}),
		strict("pg_get_expr", ts(textT, oidT), textT, func(_ *EvalContext, a []types.Datum) (types.Datum, error) { return a[0], nil }),
		strict("pg_get_expr", ts(textT, oidT, boolT), textT, func(_ *EvalContext, a []types.Datum) (types.Datum, error) { return a[0], nil }),
	)
	for _, name := range []string{"has_table_privilege", "has_any_column_privilege"} {
		addPrivilegeFuncs(name, pgClassOID, tablePrivileges)
	}
	addPrivilegeFuncs("has_sequence_privilege", pgClassOID, []string{"SELECT", "UPDATE", "USAGE"})
	addPrivilegeFuncs("has_schema_privilege", pgNamespaceOID, []string{"CREATE", "USAGE"})
	addPrivilegeFuncs("has_database_privilege", pgDatabaseOID, []string{"CREATE", "CONNECT", "TEMPORARY", "TEMP"})
	addHasRole()
}

var tablePrivileges = []string{"SELECT", "INSERT", "UPDATE", "DELETE", "TRUNCATE", "REFERENCES", "TRIGGER"}

// addPrivilegeFuncs registers has_X_privilege([user,] object, privilege)
// with the user named, given by OID or left out (the current user), and
// the object named (text) or given by OID. The answer is the session's
// (Session.Privilege): true when the role holds any of the privileges
// listed. A named object that does not exist raises PostgreSQL's error;
// an OID that matches nothing gives NULL.
func addPrivilegeFuncs(name string, catalog uint32, privs []string) {
	eval := func(s Session, ctx *EvalContext, role RoleRef, obj types.Datum, byName bool, priv types.Datum) (types.Datum, error) {
		list, err := parsePrivileges(priv.Str(), privs)
		if err != nil {
			return types.Null, err
		}
		oid := uint32(obj.Int())
		if byName {
			if oid, err = objectByName(ctx, catalog, obj.Str()); err != nil {
				return types.Null, err
			}
		}
		for _, p := range list {
			has, ok, err := s.Privilege(role, catalog, oid, p.name, p.grantOption)
			if err != nil || !ok {
				return types.Null, err
			}
			if has {
				return types.DTrue, nil
			}
		}
		return types.DFalse, nil
	}
	byName := func(a types.Datum) RoleRef { return RoleRef{Name: a.Str()} }
	byOID := func(a types.Datum) RoleRef { return RoleRef{OID: uint32(a.Int()), ByOID: true} }
	for _, objType := range []types.Type{textT, oidT} {
		named := objType == textT
		addFunc(
			sessionFn(name, ts(objType, textT), boolT, func(s Session, ctx *EvalContext, a []types.Datum) (types.Datum, error) {
				return eval(s, ctx, RoleRef{}, a[0], named, a[1])
			}),
			sessionFn(name, ts(nameT, objType, textT), boolT, func(s Session, ctx *EvalContext, a []types.Datum) (types.Datum, error) {
				return eval(s, ctx, byName(a[0]), a[1], named, a[2])
			}),
			sessionFn(name, ts(oidT, objType, textT), boolT, func(s Session, ctx *EvalContext, a []types.Datum) (types.Datum, error) {
				return eval(s, ctx, byOID(a[0]), a[1], named, a[2])
			}),
		)
	}
}

// addHasRole registers pg_has_role([user,] role, privilege), the roles
// named or given by OID.
func addHasRole() {
	eval := func(s Session, member, group RoleRef, priv types.Datum) (types.Datum, error) {
		list, err := parsePrivileges(priv.Str(), []string{"MEMBER", "USAGE", "SET"})
		if err != nil {
			return types.Null, err
		}
		for _, p := range list {
			has, err := s.HasRole(member, group, p.name, p.grantOption)
			if err != nil || has {
				return types.NewBool(has), err
			}
		}
		return types.DFalse, nil
	}
	ref := func(t types.Type, a types.Datum) RoleRef {
		if t == oidT {
			return RoleRef{OID: uint32(a.Int()), ByOID: true}
		}
		return RoleRef{Name: a.Str()}
	}
	for _, gt := range []types.Type{nameT, oidT} {
		addFunc(sessionFn("pg_has_role", ts(gt, textT), boolT, func(s Session, _ *EvalContext, a []types.Datum) (types.Datum, error) {
			return eval(s, RoleRef{}, ref(gt, a[0]), a[1])
		}))
		for _, mt := range []types.Type{nameT, oidT} {
			addFunc(sessionFn("pg_has_role", ts(mt, gt, textT), boolT, func(s Session, _ *EvalContext, a []types.Datum) (types.Datum, error) {
				return eval(s, ref(mt, a[0]), ref(gt, a[1]), a[2])
			}))
		}
	}
}

// privilegeName is one entry of a privilege list.
type privilegeName struct {
	name        string
	grantOption bool
}

// parsePrivileges reads a privilege list such as "SELECT, INSERT WITH
// GRANT OPTION", as PostgreSQL's convert_any_priv_string does.
func parsePrivileges(list string, allowed []string) ([]privilegeName, error) {
	var out []privilegeName
	for _, p := range strings.Split(list, ",") {
		p = strings.TrimSpace(p)
		u := strings.ToUpper(p)
		var opt bool
		for _, suffix := range []string{" WITH GRANT OPTION", " WITH ADMIN OPTION"} {
			if strings.HasSuffix(u, suffix) {
				u, opt = strings.TrimSuffix(u, suffix), true
			}
		}
		ok := false
		for _, a := range allowed {
			if u == a {
				ok = true
			}
		}
		if !ok {
			return nil, pgerr.New(pgerr.InvalidParameterValue, "unrecognized privilege type: %q", p)
		}
		if u == "TEMP" {
			u = "TEMPORARY"
		}
		out = append(out, privilegeName{name: u, grantOption: opt})
	}
	return out, nil
}

// objectByName returns the OID of a named relation or schema, or the
// database's when it is the session's.
func objectByName(ctx *EvalContext, catalog uint32, name string) (uint32, error) {
	switch catalog {
	case pgClassOID:
		names := ctx.textConfig().Names
		if names == nil {
			return 0, pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", name)
		}
		return names.ObjectOID(types.RegClass, name)
	case pgNamespaceOID:
		names := ctx.textConfig().Names
		if names == nil {
			return 0, pgerr.New(pgerr.InvalidSchemaName, "schema %q does not exist", name)
		}
		return names.ObjectOID(types.RegNamespace, name)
	}
	s, err := ctx.session("has_database_privilege")
	if err != nil {
		return 0, err
	}
	if s.Database() != name {
		return 0, pgerr.New(pgerr.InvalidCatalogName, "database %q does not exist", name)
	}
	return databaseOID, nil
}

// databaseOID is the OID of the session's database.
const databaseOID = 16384

// TypeOf is pg_typeof(arg): the static type of its argument as a
// regtype. The argument is still evaluated, so that its errors surface
// as PostgreSQL's would; a NULL gives the type all the same. Its value
// depends on no setting, so unlike PostgreSQL's (stable) it may be
// folded and maintained in views.
func TypeOf(arg Expr) Expr {
	oid := types.NewOid(arg.Type().OID())
	fn := &Func{Name: "pg_typeof", Params: []types.Type{arg.Type()}, Ret: types.TypeRegType, Volatility: Immutable,
		Impl: func(*EvalContext, []types.Datum) (types.Datum, error) { return oid, nil }}
	return &Call{Fn: fn, Args: []Expr{arg}}
}
