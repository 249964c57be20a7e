package pgcatalog

import (
	"strconv"
	"strings"

	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/types"
)

// Names adapts a Source to types.ObjectNames, for the reg* types' text
// I/O.
func Names(src Source) types.ObjectNames { return sourceNames{src} }

type sourceNames struct{ src Source }

func (n sourceNames) ObjectName(f types.Family, oid uint32) (string, bool) {
	return ObjectName(n.src, f, oid)
}

func (n sourceNames) ObjectOID(f types.Family, name string) (uint32, error) {
	return ObjectOID(n.src, f, name)
}

func itoa(n uint32) string { return strconv.FormatUint(uint64(n), 10) }

// ObjectName is the text output of a reg* value (types.ObjectNames): the
// object's name, schema-qualified when its schema is not on the search
// path; ok is false for an OID no object has.
func ObjectName(src Source, f types.Family, oid uint32) (string, bool) {
	switch f {
	case types.RegClass:
		if t, ok := ByOID(oid); ok {
			if t.Schema == "pg_catalog" {
				return quoteIdent(t.Name), true
			}
			return quoteIdent(t.Schema) + "." + quoteIdent(t.Name), true
		}
		if r, ok := src.Relation(oid); ok {
			return quoteIdent(r.Name), true
		}
		for _, e := range relEntries(src) {
			if e.oid == oid {
				return quoteIdent(e.name), true
			}
		}
	case types.RegType:
		if t, ok := types.TypeForOID(oid); ok {
			return t.String(), true
		}
		return typeName(oid)
	case types.RegProc:
		n, ok := builtin().procNames[oid]
		return n, ok
	case types.RegNamespace:
		return namespaceName(oid)
	}
	return "", false
}

// ObjectOID is the text input of a reg* value: it resolves a possibly
// qualified, possibly quoted name with PostgreSQL's errors.
func ObjectOID(src Source, f types.Family, name string) (uint32, error) {
	parts, err := splitName(name)
	if err != nil {
		return 0, err
	}
	switch f {
	case types.RegClass:
		return relationOID(src, parts, name)
	case types.RegType:
		if oid, ok := typeOID(parts); ok {
			return oid, nil
		}
		return 0, pgerr.New(pgerr.UndefinedObject, "type %q does not exist", name)
	case types.RegProc:
		if len(parts) == 1 || len(parts) == 2 && parts[0] == "pg_catalog" {
			if oid, ok := builtin().procOIDs[parts[len(parts)-1]]; ok {
				return oid, nil
			}
		}
		return 0, pgerr.New(pgerr.UndefinedFunction, "function %q does not exist", name)
	case types.RegNamespace:
		if len(parts) == 1 {
			if oid, ok := namespaceOID(parts[0]); ok {
				return oid, nil
			}
		}
		return 0, pgerr.New(pgerr.InvalidSchemaName, "schema %q does not exist", name)
	}
	return 0, pgerr.New(pgerr.FeatureNotSupported, "type %s is not supported", f)
}

// relationOID resolves a relation name: pg_catalog first, then public,
// as PostgreSQL's search path does.
func relationOID(src Source, parts []string, name string) (uint32, error) {
	schema, rel := "", parts[len(parts)-1]
	if len(parts) > 1 {
		schema = parts[len(parts)-2]
	}
	if schema == "" || IsSystemSchema(schema) {
		s := schema
		if s == "" {
			s = "pg_catalog"
		}
		if t, ok := Lookup(s, rel); ok {
			return t.OID, nil
		}
	}
	if schema == "" || !IsSystemSchema(schema) {
		s := schema
		if s == "" {
			s = "public"
		}
		if r, ok := src.RelationByName(s, rel); ok {
			return r.OID, nil
		}
		if s == "public" {
			for _, e := range relEntries(src) {
				if e.name == rel && e.namespace == NamespacePublic {
					return e.oid, nil
				}
			}
		}
	}
	return 0, pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", name)
}

// typeOID resolves a type name: pg_type's own names and the SQL
// spellings format_type prints, with [] for arrays.
func typeOID(parts []string) (uint32, bool) {
	if len(parts) == 2 && parts[0] == "pg_catalog" {
		parts = parts[1:]
	}
	if len(parts) != 1 {
		return 0, false
	}
	n := parts[0]
	array := strings.HasSuffix(n, "[]")
	n = strings.TrimSpace(strings.TrimSuffix(n, "[]"))
	if alias, ok := typeAliases[n]; ok {
		n = alias
	}
	if array {
		n = "_" + n
	}
	oid, ok := builtin().typeOIDs[n]
	return oid, ok
}

// typeAliases maps SQL spellings to pg_type names.
var typeAliases = map[string]string{
	"integer": "int4", "int": "int4", "smallint": "int2", "bigint": "int8", "real": "float4",
	"double precision": "float8", "float": "float8", "boolean": "bool", "character varying": "varchar",
	"character": "bpchar", "char": "bpchar", "decimal": "numeric", "timestamp without time zone": "timestamp",
	"timestamp with time zone": "timestamptz", "time without time zone": "time", `"char"`: "char",
}

// splitName splits a qualified name at dots outside double quotes,
// folding unquoted parts to lower case.
func splitName(s string) ([]string, error) {
	var parts []string
	var cur strings.Builder
	quoted, wasQuoted := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' && quoted && i+1 < len(s) && s[i+1] == '"':
			cur.WriteByte('"')
			i++
		case c == '"':
			quoted = !quoted
			wasQuoted = true
		case c == '.' && !quoted:
			parts = append(parts, cur.String())
			cur.Reset()
			wasQuoted = false
		case quoted || wasQuoted:
			cur.WriteByte(c)
		case c >= 'A' && c <= 'Z':
			cur.WriteByte(c + 'a' - 'A')
		default:
			cur.WriteByte(c)
		}
	}
	if quoted {
		return nil, pgerr.New(pgerr.InvalidName, "invalid name syntax")
	}
	parts = append(parts, strings.TrimSpace(cur.String()))
	return parts, nil
}
