package pgcatalog

// Well-known OIDs, PostgreSQL's own.
const (
	NamespacePGCatalog  uint32 = 11
	NamespacePublic     uint32 = 2200
	NamespaceInfoSchema uint32 = 13207
	// NamespaceMzCatalog is mz_catalog's OID (Materialize's schema; not
	// in pg_namespace, see mzcatalog.go).
	NamespaceMzCatalog   uint32 = 16000
	databaseOID          uint32 = 16384
	superuserOID         uint32 = 10
	heapAM               uint32 = 2
	btreeAM              uint32 = 403
	defaultCollationOID  uint32 = 100
	pgClassOID           uint32 = 1259
	pgConstraintOID      uint32 = 2606
	pgDatabaseOID        uint32 = 1262
	pgNamespaceOID       uint32 = 2615
	pgProcOID            uint32 = 1255
	pgTypeOID            uint32 = 1247
	pgAttrdefOID         uint32 = 2604
	languageInternalOID  uint32 = 12
	languageCOID         uint32 = 13
	languageSQLOID       uint32 = 14
	firstDerivedOIDShift        = 30
)

// The OIDs of objects streamdb has no catalog entry for but PostgreSQL
// does: a primary key's index and constraint, a CHECK constraint, and a
// column default. They are derived from the table's OID so they are stable
// across restarts and never collide with an object id (tables below 2^22).
func derivedOID(kind, table uint32, sub int) uint32 {
	return kind<<firstDerivedOIDShift | (table<<8|uint32(sub))&(1<<firstDerivedOIDShift-1)
}

func pkeyIndexOID(table uint32) uint32           { return derivedOID(1, table, 0) }
func pkeyConstraintOID(table uint32) uint32      { return derivedOID(2, table, 0) }
func checkOID(table uint32, i int) uint32        { return derivedOID(2, table, i+1) }
func attrdefOID(table uint32, attnum int) uint32 { return derivedOID(3, table, attnum) }
func uniqueOID(index uint32) uint32              { return derivedOID(1, index, 1) }

// namespaceOID returns the OID of a schema; ok is false for a schema that
// does not exist.
func namespaceOID(schema string) (uint32, bool) {
	switch schema {
	case "pg_catalog":
		return NamespacePGCatalog, true
	case "public":
		return NamespacePublic, true
	case "information_schema":
		return NamespaceInfoSchema, true
	}
	return 0, false
}

func namespaceName(oid uint32) (string, bool) {
	switch oid {
	case NamespacePGCatalog:
		return "pg_catalog", true
	case NamespacePublic:
		return "public", true
	case NamespaceInfoSchema:
		return "information_schema", true
	}
	return "", false
}
