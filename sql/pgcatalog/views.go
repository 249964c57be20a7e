package pgcatalog

// The pg_catalog views that list relations by kind.
func init() {
	define("pg_catalog", "pg_tables", true, func(b *rowSet, src Source) {
		for _, e := range relEntries(src) {
			if e.kind != KindTable {
				continue
			}
			ns, _ := namespaceName(e.namespace)
			b.add("schemaname", ns, "tablename", e.name, "tableowner", UserName(src, e.owner), "hasindexes", e.hasIndex)
		}
	})
	define("pg_catalog", "pg_views", true, func(b *rowSet, src Source) {
		for _, t := range Tables() {
			if t.View {
				b.add("schemaname", t.Schema, "viewname", t.Name, "viewowner", UserName(src, superuserOID))
			}
		}
		for _, r := range src.Relations() {
			if r.Kind == KindView {
				b.add("schemaname", r.Schema, "viewname", r.Name, "viewowner", UserName(src, r.Owner), "definition", viewDefinition(r))
			}
		}
	})
	define("pg_catalog", "pg_matviews", true, func(b *rowSet, src Source) {
		for _, e := range relEntries(src) {
			if e.kind != KindMaterializedView {
				continue
			}
			r, _ := src.Relation(e.oid)
			b.add("schemaname", r.Schema, "matviewname", r.Name, "matviewowner", UserName(src, r.Owner), "hasindexes", e.hasIndex,
				"ispopulated", true, "definition", viewDefinition(r))
		}
	})
	define("pg_catalog", "pg_indexes", true, func(b *rowSet, src Source) {
		for _, e := range relEntries(src) {
			if e.kind != KindIndex {
				continue
			}
			on, ok := src.Relation(e.on)
			if !ok {
				continue
			}
			def, _ := IndexDef(src, e.oid, 0)
			b.add("schemaname", on.Schema, "tablename", on.Name, "indexname", e.name, "indexdef", def)
		}
	})
}
