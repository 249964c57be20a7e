package pgcatalog

import (
	"strings"

	"github.com/streamdb/streamdb/types"
)

// viewDefinition is pg_get_viewdef's text: the defining query, on its own
// line and ending in a semicolon as PostgreSQL prints it; NULL when the
// session may not see it.
func viewDefinition(r *Relation) any {
	if r.DefinitionHidden {
		return nil
	}
	def := strings.TrimSpace(r.ViewDef)
	def = strings.TrimSuffix(def, ";")
	return " " + def + ";"
}

// ViewDef returns pg_get_viewdef of a view or materialized view; ok is
// false (NULL) when there is none, or the session holds no privilege on
// it: a definition can name what the view hides.
func ViewDef(src Source, oid uint32) (string, bool) {
	r, ok := src.Relation(oid)
	if !ok || r.Kind != KindView && r.Kind != KindMaterializedView || r.DefinitionHidden {
		return "", false
	}
	return viewDefinition(r).(string), true
}

// findIndex returns the index with the given OID, a user index or the
// index of a primary key.
func findIndex(src Source, oid uint32) (e relEntry, on *Relation, ok bool) {
	for _, x := range relEntries(src) {
		if x.oid == oid && x.kind == KindIndex {
			on, ok = src.Relation(x.on)
			return x, on, ok
		}
	}
	return relEntry{}, nil, false
}

// IndexDef returns pg_get_indexdef: the CREATE INDEX statement of an
// index, or with col > 0 only the name of its col-th key column.
func IndexDef(src Source, oid uint32, col int) (string, bool) {
	e, on, ok := findIndex(src, oid)
	if !ok {
		return "", false
	}
	names := make([]string, len(e.keys))
	for i, k := range e.keys {
		names[i] = quoteIdent(on.Columns[k-1].Name)
	}
	if col > 0 {
		if col > len(names) {
			return "", true
		}
		return names[col-1], true
	}
	unique := ""
	if e.unique {
		unique = "UNIQUE "
	}
	return "CREATE " + unique + "INDEX " + quoteIdent(e.name) + " ON " + quoteIdent(on.Schema) + "." +
		quoteIdent(on.Name) + " USING btree (" + strings.Join(names, ", ") + ")", true
}

// ConstraintDef returns pg_get_constraintdef: "PRIMARY KEY (id)" or
// "CHECK (expr)".
func ConstraintDef(src Source, oid uint32) (string, bool) {
	for _, r := range src.Relations() {
		if len(r.PrimaryKey) > 0 && pkeyConstraintOID(r.OID) == oid {
			names := make([]string, len(r.PrimaryKey))
			for i, k := range r.PrimaryKey {
				names[i] = quoteIdent(r.Columns[k].Name)
			}
			return "PRIMARY KEY (" + strings.Join(names, ", ") + ")", true
		}
		for i, c := range r.Checks {
			if checkOID(r.OID, i) == oid {
				return "CHECK (" + c.Expr + ")", true
			}
		}
	}
	return "", false
}

// Visible reports pg_table_is_visible, pg_type_is_visible and
// pg_function_is_visible for an object of the given catalog (pg_class,
// pg_type or pg_proc OID); ok is false when there is no such object, for
// which PostgreSQL returns NULL. Everything streamdb has lives in
// pg_catalog or public, both on the search path; information_schema is not.
func Visible(src Source, catalog uint32, oid uint32) (visible, ok bool) {
	switch catalog {
	case pgClassOID:
		if t, found := ByOID(oid); found {
			return t.Schema == "pg_catalog", true
		}
		for _, e := range relEntries(src) {
			if e.oid == oid {
				return e.namespace != NamespaceInfoSchema, true
			}
		}
	case pgTypeOID:
		_, found := typeName(oid)
		return found, found
	case pgProcOID:
		_, found := builtin().procNames[oid]
		return found, found
	}
	return false, false
}

// Exists reports whether an object with the given OID exists in the
// catalog named by its OID (pg_class, pg_namespace or pg_database), for
// the has_*_privilege functions.
func Exists(src Source, catalog uint32, oid uint32) bool {
	switch catalog {
	case pgClassOID:
		_, ok := Visible(src, pgClassOID, oid)
		return ok
	case pgNamespaceOID:
		_, ok := namespaceName(oid)
		return ok
	case pgDatabaseOID:
		return oid == databaseOID
	}
	return false
}

// UserName returns pg_get_userbyid: the name of the role with the OID.
func UserName(src Source, oid uint32) string {
	if name, ok := roleName(src, oid); ok {
		return name
	}
	return "unknown (OID=" + itoa(oid) + ")"
}

// roleName returns the name of the role with the OID.
func roleName(src Source, oid uint32) (string, bool) {
	for _, r := range src.Roles() {
		if r.OID == oid {
			return r.Name, true
		}
	}
	return "", false
}

// FunctionResult returns pg_get_function_result: the result type of a
// built-in function, "SETOF type" for a set-returning one.
func FunctionResult(oid uint32) (string, bool) {
	for _, p := range builtin().procs {
		if p.oid == oid {
			t := formatTypeOID(p.ret)
			if p.retset {
				t = "SETOF " + t
			}
			return t, true
		}
	}
	return "", false
}

// FunctionArguments returns pg_get_function_arguments: the argument types
// of a built-in function.
func FunctionArguments(oid uint32) (string, bool) {
	for _, p := range builtin().procs {
		if p.oid == oid {
			names := make([]string, len(p.args))
			for i, a := range p.args {
				names[i] = formatTypeOID(a)
			}
			return strings.Join(names, ", "), true
		}
	}
	return "", false
}

// formatTypeOID is format_type(oid, NULL).
func formatTypeOID(oid uint32) string {
	if t, ok := types.TypeForOID(oid); ok {
		return t.String()
	}
	if n, ok := typeName(oid); ok {
		return n
	}
	return "???"
}
