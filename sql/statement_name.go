package sql

import (
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"
)

// statementName names a statement kind for errors as the PostgreSQL
// command is written ("CREATE ROLE", "ALTER TABLE … RENAME"), never as
// the parser's node ("CREATE_ROLE_STMT"), which means nothing to a user.
func statementName(n *pg_query.Node) string {
	switch {
	case n.GetRenameStmt() != nil:
		return "ALTER " + objectTypeName(n.GetRenameStmt().RenameType) + " … RENAME"
	case n.GetAlterTableStmt() != nil:
		return "ALTER " + objectTypeName(n.GetAlterTableStmt().Objtype)
	case n.GetDropStmt() != nil:
		return "DROP " + objectTypeName(n.GetDropStmt().RemoveType)
	case n.GetAlterObjectSchemaStmt() != nil:
		return "ALTER " + objectTypeName(n.GetAlterObjectSchemaStmt().ObjectType) + " … SET SCHEMA"
	case n.GetAlterOwnerStmt() != nil:
		return "ALTER " + objectTypeName(n.GetAlterOwnerStmt().ObjectType) + " … OWNER TO"
	case n.GetCommentStmt() != nil:
		return "COMMENT ON " + objectTypeName(n.GetCommentStmt().Objtype)
	case n.GetDefineStmt() != nil:
		return "CREATE " + objectTypeName(n.GetDefineStmt().Kind)
	}
	name := nodeName(n)
	if s, ok := statementNames[name]; ok {
		return s
	}
	return strings.ToUpper(strings.ReplaceAll(strings.TrimSuffix(name, "_stmt"), "_", " "))
}

// statementNames are the statements whose node is not named after the
// command.
var statementNames = map[string]string{
	"create_stmt":                   "CREATE TABLE",
	"create_table_as_stmt":          "CREATE TABLE AS",
	"index_stmt":                    "CREATE INDEX",
	"view_stmt":                     "CREATE VIEW",
	"create_seq_stmt":               "CREATE SEQUENCE",
	"alter_seq_stmt":                "ALTER SEQUENCE",
	"create_trig_stmt":              "CREATE TRIGGER",
	"create_plang_stmt":             "CREATE LANGUAGE",
	"create_fdw_stmt":               "CREATE FOREIGN DATA WRAPPER",
	"alter_fdw_stmt":                "ALTER FOREIGN DATA WRAPPER",
	"create_foreign_server_stmt":    "CREATE SERVER",
	"create_foreign_table_stmt":     "CREATE FOREIGN TABLE",
	"create_user_mapping_stmt":      "CREATE USER MAPPING",
	"create_am_stmt":                "CREATE ACCESS METHOD",
	"create_enum_stmt":              "CREATE TYPE … AS ENUM",
	"create_range_stmt":             "CREATE TYPE … AS RANGE",
	"composite_type_stmt":           "CREATE TYPE",
	"create_function_stmt":          "CREATE FUNCTION",
	"alter_function_stmt":           "ALTER FUNCTION",
	"create_table_space_stmt":       "CREATE TABLESPACE",
	"grant_stmt":                    "GRANT",
	"grant_role_stmt":               "GRANT role",
	"alter_default_privileges_stmt": "ALTER DEFAULT PRIVILEGES",
	"do_stmt":                       "DO",
	"rule_stmt":                     "CREATE RULE",
	"create_cast_stmt":              "CREATE CAST",
	"create_conversion_stmt":        "CREATE CONVERSION",
	"create_op_class_stmt":          "CREATE OPERATOR CLASS",
	"create_event_trig_stmt":        "CREATE EVENT TRIGGER",
	"create_publication_stmt":       "CREATE PUBLICATION",
	"create_subscription_stmt":      "CREATE SUBSCRIPTION",
	"create_stats_stmt":             "CREATE STATISTICS",
	"create_policy_stmt":            "CREATE POLICY",
	"cluster_stmt":                  "CLUSTER",
	"vacuum_stmt":                   "VACUUM",
	"lock_stmt":                     "LOCK",
	"declare_cursor_stmt":           "DECLARE CURSOR",
	"fetch_stmt":                    "FETCH",
	"closeportal_stmt":              "CLOSE",
	"reindex_stmt":                  "REINDEX",
	"check_point_stmt":              "CHECKPOINT",
	"load_stmt":                     "LOAD",
	"merge_stmt":                    "MERGE",
	"call_stmt":                     "CALL",
	"refresh_mat_view_stmt":         "REFRESH MATERIALIZED VIEW",
	"alter_system_stmt":             "ALTER SYSTEM",
	"constraints_set_stmt":          "SET CONSTRAINTS",
	"create_schema_stmt":            "CREATE SCHEMA",
	"createdb_stmt":                 "CREATE DATABASE",
	"dropdb_stmt":                   "DROP DATABASE",
	"alter_database_stmt":           "ALTER DATABASE",
	"alter_database_set_stmt":       "ALTER DATABASE … SET",
	"alter_role_set_stmt":           "ALTER ROLE … SET",
	"drop_owned_stmt":               "DROP OWNED",
	"reassign_owned_stmt":           "REASSIGN OWNED",
	"sec_label_stmt":                "SECURITY LABEL",
	"import_foreign_schema_stmt":    "IMPORT FOREIGN SCHEMA",
	"create_extension_stmt":         "CREATE EXTENSION",
	"alter_extension_stmt":          "ALTER EXTENSION",
}

// objectTypeName is the SQL of an object type: OBJECT_MATVIEW is
// MATERIALIZED VIEW.
func objectTypeName(t pg_query.ObjectType) string {
	switch t {
	case pg_query.ObjectType_OBJECT_MATVIEW:
		return "MATERIALIZED VIEW"
	case pg_query.ObjectType_OBJECT_TABCONSTRAINT:
		return "TABLE … CONSTRAINT"
	case pg_query.ObjectType_OBJECT_FOREIGN_TABLE:
		return "FOREIGN TABLE"
	}
	return strings.ReplaceAll(strings.TrimPrefix(t.String(), "OBJECT_"), "_", " ")
}
