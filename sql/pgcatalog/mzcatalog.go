package pgcatalog

import "strconv"

// The mz_catalog relations that Materialize's tools read to list a
// database's objects (dbt-materialize's list_relations: mz_objects joined
// with mz_sources, mz_schemas and mz_databases), with Materialize's
// column names and ids ('u' and the OID for user objects, 's' for the
// system schemas). Their privileges columns (mz_aclitem[]) are left out.
// They are not PostgreSQL's: pg_class and pg_namespace do not list them,
// and an unqualified name reaches them only after pg_catalog and the
// user's own relations (see sql's systemRelation).

// mzDatabaseID is the id of streamdb's one database.
const mzDatabaseID = "u1"

// mzSchemas are the schemas mz_schemas lists: public in the database,
// the system schemas outside any database, as in Materialize.
var mzSchemas = []struct {
	id, name string
	oid      uint32
	user     bool
}{
	{"s1", "mz_catalog", NamespaceMzCatalog, false},
	{"s2", "pg_catalog", NamespacePGCatalog, false},
	{"s3", "information_schema", NamespaceInfoSchema, false},
	{"u3", "public", NamespacePublic, true},
}

func init() {
	text := tText
	defineMz("mz_databases", 16001, []Column{{"id", text}, {"oid", tOid}, {"name", text}, {"owner_id", text}},
		func(b *rowSet, src Source) {
			b.add("id", mzDatabaseID, "oid", databaseOID, "name", src.Database(), "owner_id", "u1")
		})
	defineMz("mz_schemas", 16002, []Column{{"id", text}, {"oid", tOid}, {"database_id", text}, {"name", text}, {"owner_id", text}},
		func(b *rowSet, src Source) {
			for _, s := range mzSchemas {
				var db any
				owner := "s1"
				if s.user {
					db, owner = mzDatabaseID, "u1"
				}
				b.add("id", s.id, "oid", s.oid, "database_id", db, "name", s.name, "owner_id", owner)
			}
		})
	defineMz("mz_objects", 16003, []Column{{"id", text}, {"oid", tOid}, {"schema_id", text}, {"name", text}, {"type", text},
		{"owner_id", text}, {"cluster_id", text}},
		func(b *rowSet, src Source) {
			for _, r := range src.Relations() {
				if r.MzType == "" {
					continue
				}
				b.add("id", mzID(r.OID), "oid", r.OID, "schema_id", mzSchemaID(r.Schema), "name", r.Name, "type", r.MzType,
					"owner_id", "u1")
			}
		})
	defineMz("mz_sources", 16004, []Column{{"id", text}, {"oid", tOid}, {"schema_id", text}, {"name", text}, {"type", text},
		{"connection_id", text}, {"size", text}, {"envelope_type", text}, {"key_format", text}, {"value_format", text},
		{"cluster_id", text}, {"owner_id", text}, {"create_sql", text}, {"redacted_create_sql", text}},
		func(b *rowSet, src Source) {
			for _, r := range src.Relations() {
				if r.MzType == "source" {
					b.add("id", mzID(r.OID), "oid", r.OID, "schema_id", mzSchemaID(r.Schema), "name", r.Name,
						"type", r.MzSourceType, "owner_id", "u1")
				}
			}
		})
}

// defineMz registers an mz_catalog relation, reachable by name and OID
// but not among Tables(), which are PostgreSQL's.
func defineMz(name string, oid uint32, cols []Column, gen func(b *rowSet, src Source)) {
	t := &Table{OID: oid, Schema: "mz_catalog", Name: name, Columns: cols, index: map[string]int{}, gen: gen}
	for i, c := range cols {
		t.index[c.Name] = i
	}
	tableNames["mz_catalog."+name] = t
	tableOIDs[oid] = t
}

func mzID(oid uint32) string { return "u" + strconv.FormatUint(uint64(oid), 10) }

func mzSchemaID(schema string) any {
	for _, s := range mzSchemas {
		if s.name == schema {
			return s.id
		}
	}
	return nil
}
