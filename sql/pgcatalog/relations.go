package pgcatalog

import (
	"github.com/streamdb/streamdb/types"
)

// relEntry is one row of pg_class in the making: a user relation, the
// index of a primary key, or a system relation.
type relEntry struct {
	oid       uint32
	name      string
	namespace uint32
	kind      Kind
	cols      []Attribute
	owner     uint32
	acl       []string
	hasIndex  bool
	checks    int
	// index: the indexed relation and key columns (1-based attnums).
	on      uint32
	keys    []int
	unique  bool
	primary bool
}

// relEntries lists every relation pg_class shows, in OID order of the
// user relations after the system ones.
func relEntries(src Source) []relEntry {
	var out []relEntry
	for _, t := range tables {
		ns, _ := namespaceOID(t.Schema)
		kind := KindTable
		if t.View {
			kind = KindView
		}
		cols := make([]Attribute, len(t.Columns))
		for i, c := range t.Columns {
			cols[i] = Attribute{Name: c.Name, Type: c.Type}
		}
		out = append(out, relEntry{oid: t.OID, name: t.Name, namespace: ns, kind: kind, cols: cols, owner: superuserOID})
	}
	rels := src.Relations()
	indexed := map[uint32]bool{}
	for _, r := range rels {
		if r.Kind == KindIndex {
			indexed[r.On] = true
		}
	}
	for _, r := range rels {
		ns, _ := namespaceOID(r.Schema)
		e := relEntry{oid: r.OID, name: r.Name, namespace: ns, kind: r.Kind, cols: r.Columns, checks: len(r.Checks), owner: r.Owner, acl: r.ACL}
		e.hasIndex = indexed[r.OID] || len(r.PrimaryKey) > 0
		if r.Kind == KindIndex {
			e.on, e.unique = r.On, r.Unique
			on, ok := src.Relation(r.On)
			if !ok {
				continue
			}
			e.cols = nil
			for _, k := range r.KeyCols {
				e.keys = append(e.keys, k+1)
				e.cols = append(e.cols, Attribute{Name: on.Columns[k].Name, Type: on.Columns[k].Type})
			}
		}
		out = append(out, e)
		if len(r.PrimaryKey) > 0 {
			pk := relEntry{oid: pkeyIndexOID(r.OID), name: pkeyName(r), namespace: ns, kind: KindIndex,
				on: r.OID, unique: true, primary: true, owner: r.Owner}
			for _, k := range r.PrimaryKey {
				pk.keys = append(pk.keys, k+1)
				pk.cols = append(pk.cols, Attribute{Name: r.Columns[k].Name, Type: r.Columns[k].Type, NotNull: true})
			}
			out = append(out, pk)
		}
	}
	return out
}

// pkeyName is the name PostgreSQL gives a table's primary key.
func pkeyName(r *Relation) string { return r.Name + "_pkey" }

func init() {
	define("pg_catalog", "pg_namespace", false, func(b *rowSet, src Source) {
		for _, ns := range []struct {
			oid  uint32
			name string
		}{{NamespacePGCatalog, "pg_catalog"}, {NamespacePublic, "public"}, {NamespaceInfoSchema, "information_schema"}} {
			b.add("oid", ns.oid, "nspname", ns.name, "nspowner", src.DatabaseOwner())
		}
	})
	define("pg_catalog", "pg_class", false, genClass)
	define("pg_catalog", "pg_attribute", false, genAttribute)
	define("pg_catalog", "pg_index", false, genIndex)
	define("pg_catalog", "pg_constraint", false, genConstraint)
	define("pg_catalog", "pg_attrdef", false, genAttrdef)
}

func genClass(b *rowSet, src Source) {
	for _, e := range relEntries(src) {
		am, replident := heapAM, "d"
		switch e.kind {
		case KindView:
			am, replident = 0, "n"
		case KindIndex:
			am, replident = btreeAM, "n"
		}
		var acl any
		if e.acl != nil {
			acl = e.acl
		}
		b.add("oid", e.oid, "relname", e.name, "relnamespace", e.namespace, "relowner", e.owner, "relacl", acl,
			"relam", am, "relfilenode", e.oid, "reltuples", -1, "relhasindex", e.hasIndex,
			"relpersistence", "p", "relkind", e.kind, "relnatts", len(e.cols), "relchecks", e.checks,
			"relispopulated", true, "relreplident", replident, "relfrozenxid", 0, "relminmxid", 0)
	}
}

func genAttribute(b *rowSet, src Source) {
	for _, e := range relEntries(src) {
		for i, c := range e.cols {
			addAttribute(b, e.oid, i+1, c)
		}
	}
}

// addAttribute adds a pg_attribute row.
func addAttribute(b *rowSet, rel uint32, attnum int, c Attribute) {
	t := c.Type
	ndims := 0
	if t.Family == types.Array {
		ndims = 1
	}
	var coll uint32
	if t.Family.IsString() && t.Family != types.Name || t.Family == types.Array && t.Elem.IsString() {
		coll = defaultCollationOID
	}
	b.add("attrelid", rel, "attname", c.Name, "atttypid", t.OID(), "attstattarget", -1, "attlen", int(t.Size()),
		"attnum", attnum, "attndims", ndims, "attcacheoff", -1, "atttypmod", t.TypMod(), "attbyval", byValue(t),
		"attalign", align(t), "attstorage", storage(t), "attcompression", "", "attnotnull", c.NotNull,
		"atthasdef", c.hasDefault(), "attidentity", c.Identity, "attgenerated", "", "attislocal", true,
		"attcollation", coll)
}

func byValue(t types.Type) bool {
	s := t.Size()
	return s > 0 && s <= 8 && t.Family != types.Name && t.Family != types.UUID && t.Family != types.Interval
}

// align is pg_type.typalign.
func align(t types.Type) string {
	switch t.Family {
	case types.Bool, types.Char, types.QChar, types.Name, types.UUID, types.Bytea:
		if t.Family == types.Bytea {
			return "i"
		}
		return "c"
	case types.Int2:
		return "s"
	case types.Int8, types.Float8, types.Timestamp, types.TimestampTZ, types.Time, types.Interval, types.Array:
		if t.Family == types.Array {
			if el := t.ElemType(); el.Size() == 8 || el.Family == types.Interval {
				return "d"
			}
			return "i"
		}
		return "d"
	}
	return "i"
}

// storage is pg_type.typstorage: plain for fixed-width types, main for
// numeric, extended for the other variable-length ones.
func storage(t types.Type) string {
	switch {
	case t.Size() > 0:
		return "p"
	case t.Family == types.Numeric:
		return "m"
	}
	return "x"
}

func genIndex(b *rowSet, src Source) {
	for _, e := range relEntries(src) {
		if e.kind != KindIndex {
			continue
		}
		zeros := make([]int, len(e.keys))
		b.add("indexrelid", e.oid, "indrelid", e.on, "indnatts", len(e.keys), "indnkeyatts", len(e.keys),
			"indisunique", e.unique, "indisprimary", e.primary, "indimmediate", true, "indisvalid", true,
			"indisready", true, "indislive", true, "indkey", e.keys, "indcollation", make([]uint32, len(e.keys)),
			"indclass", make([]uint32, len(e.keys)), "indoption", zeros)
	}
}

func genConstraint(b *rowSet, src Source) {
	for _, r := range src.Relations() {
		ns, _ := namespaceOID(r.Schema)
		if r.Kind == KindIndex && r.Constraint {
			keys := make([]int, len(r.KeyCols))
			for i, k := range r.KeyCols {
				keys[i] = k + 1
			}
			b.add("oid", uniqueOID(r.OID), "conname", r.Name, "connamespace", ns, "contype", "u",
				"convalidated", true, "conrelid", r.On, "conindid", r.OID, "confupdtype", " ",
				"confdeltype", " ", "confmatchtype", " ", "conislocal", true, "connoinherit", true, "conkey", keys)
		}
		if len(r.PrimaryKey) > 0 {
			keys := make([]int, len(r.PrimaryKey))
			for i, k := range r.PrimaryKey {
				keys[i] = k + 1
			}
			b.add("oid", pkeyConstraintOID(r.OID), "conname", pkeyName(r), "connamespace", ns, "contype", "p",
				"convalidated", true, "conrelid", r.OID, "conindid", pkeyIndexOID(r.OID), "confupdtype", " ",
				"confdeltype", " ", "confmatchtype", " ", "conislocal", true, "connoinherit", true, "conkey", keys)
		}
		for i, c := range r.Checks {
			b.add("oid", checkOID(r.OID, i), "conname", c.Name, "connamespace", ns, "contype", "c",
				"convalidated", true, "conrelid", r.OID, "confupdtype", " ", "confdeltype", " ",
				"confmatchtype", " ", "conislocal", true, "conbin", c.Expr)
		}
	}
}

func genAttrdef(b *rowSet, src Source) {
	for _, r := range src.Relations() {
		for i, c := range r.Columns {
			if c.hasDefault() {
				b.add("oid", attrdefOID(r.OID, i+1), "adrelid", r.OID, "adnum", i+1, "adbin", c.Default)
			}
		}
	}
}
