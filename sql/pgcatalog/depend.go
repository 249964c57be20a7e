package pgcatalog

import "github.com/streamdb/streamdb/types"

// pg_depend, pg_language and pg_sequence: the dependencies between
// streamdb's objects that PostgreSQL records (psql's "Owned by", pgcli's
// extension filter, ORMs resetting a serial's sequence), the languages
// pg_proc's rows are written in, and the sequences' parameters.
func init() {
	define("pg_catalog", "pg_depend", false, genDepend)
	define("pg_catalog", "pg_language", false, func(b *rowSet, src Source) {
		// PostgreSQL 15's built-in languages with their validators;
		// streamdb has no procedural language, so no plpgsql.
		for _, l := range []struct {
			oid       uint32
			name      string
			trusted   bool
			validator uint32
		}{
			{languageInternalOID, "internal", false, 2246},
			{languageCOID, "c", false, 2247},
			{languageSQLOID, "sql", true, 2248},
		} {
			b.add("oid", l.oid, "lanname", l.name, "lanowner", superuserOID, "lanispl", false,
				"lanpltrusted", l.trusted, "lanplcallfoid", uint32(0), "laninline", uint32(0), "lanvalidator", l.validator)
		}
	})
	define("pg_catalog", "pg_sequence", false, func(b *rowSet, src Source) {
		for _, r := range src.Relations() {
			if s := r.Sequence; s != nil {
				b.add("seqrelid", r.OID, "seqtypid", s.Type.OID(), "seqstart", s.Start, "seqincrement", s.Increment,
					"seqmax", s.Max, "seqmin", s.Min, "seqcache", 1, "seqcycle", s.Cycle)
			}
		}
	})
}

// genDepend lists the dependencies PostgreSQL records for the objects
// streamdb has: a relation on its schema ('n'ormal), a constraint and a
// plain index on the columns they cover and a column default on its
// column ('a'uto), a constraint's index on the constraint ('i'nternal),
// and a serial column's sequence on the column ('a'uto; 'i'nternal for
// an identity column), whose default in turn depends on the sequence.
// Not recorded: what a view reads (PostgreSQL records that through
// pg_rewrite, which streamdb does not generate), the columns a CHECK
// constraint reads, and relations' row types.
func genDepend(b *rowSet, src Source) {
	dep := func(class, obj uint32, refClass, ref uint32, refSub int, typ string) {
		b.add("classid", class, "objid", obj, "objsubid", 0, "refclassid", refClass, "refobjid", ref,
			"refobjsubid", refSub, "deptype", typ)
	}
	onColumns := func(class, obj, table uint32, cols []int) {
		for _, c := range cols {
			dep(class, obj, pgClassOID, table, c+1, "a")
		}
	}
	for _, r := range src.Relations() {
		if r.Kind == KindIndex {
			if r.Constraint {
				onColumns(pgConstraintOID, uniqueOID(r.OID), r.On, r.KeyCols)
				dep(pgClassOID, r.OID, pgConstraintOID, uniqueOID(r.OID), 0, "i")
			} else {
				onColumns(pgClassOID, r.OID, r.On, r.KeyCols)
			}
			continue
		}
		if ns, ok := namespaceOID(r.Schema); ok {
			dep(pgClassOID, r.OID, pgNamespaceOID, ns, 0, "n")
		}
		for i, c := range r.Columns {
			if c.hasDefault() {
				dep(pgAttrdefOID, attrdefOID(r.OID, i+1), pgClassOID, r.OID, i+1, "a")
			}
		}
		if len(r.PrimaryKey) > 0 {
			onColumns(pgConstraintOID, pkeyConstraintOID(r.OID), r.OID, r.PrimaryKey)
			dep(pgClassOID, pkeyIndexOID(r.OID), pgConstraintOID, pkeyConstraintOID(r.OID), 0, "i")
		}
		if r.Kind == KindSequence && r.OwnedBy > 0 {
			if identitySequence(src, r) {
				dep(pgClassOID, r.OID, pgClassOID, r.On, r.OwnedBy, "i")
			} else {
				dep(pgClassOID, r.OID, pgClassOID, r.On, r.OwnedBy, "a")
				dep(pgAttrdefOID, attrdefOID(r.On, r.OwnedBy), pgClassOID, r.OID, 0, "n")
			}
		}
	}
}

// identitySequence reports whether seq belongs to an identity column,
// whose sequence PostgreSQL treats as part of the column: it depends on
// it internally and information_schema.sequences leaves it out.
func identitySequence(src Source, seq *Relation) bool {
	t, ok := src.Relation(seq.On)
	return ok && seq.OwnedBy > 0 && seq.OwnedBy <= len(t.Columns) && t.Columns[seq.OwnedBy-1].Identity != ""
}

// sequenceTypeName is information_schema's name of a sequence's type and
// its precision in bits.
func sequenceTypeName(t types.Type) (string, int) {
	switch t.Family {
	case types.Int2:
		return "smallint", 16
	case types.Int4:
		return "integer", 32
	}
	return "bigint", 64
}
