package pgcatalog

import (
	"strconv"
	"strings"

	"github.com/streamdb/streamdb/types"
)

// The information_schema views, over user relations only (PostgreSQL's
// show system relations too, to a superuser; clients filter them out).
func init() {
	define("information_schema", "schemata", true, func(b *rowSet, src Source) {
		for _, s := range []string{"information_schema", "pg_catalog", "public"} {
			b.add("catalog_name", src.Database(), "schema_name", s, "schema_owner", UserName(src, src.DatabaseOwner()))
		}
	})
	define("information_schema", "tables", true, func(b *rowSet, src Source) {
		for _, r := range src.Relations() {
			typ := "BASE TABLE"
			switch r.Kind {
			case KindView, KindMaterializedView:
				typ = "VIEW"
			case KindIndex, KindSequence, 0:
				continue // not tables, or (a source's own entry) no rows
			}
			// PostgreSQL leaves materialized views out of
			// information_schema.tables; streamdb's are its main product,
			// and what Grafana's table picker (table_type IN ('BASE
			// TABLE', 'VIEW')) must offer, so they are listed as views,
			// and sources as base tables.
			b.add("table_catalog", src.Database(), "table_schema", r.Schema, "table_name", r.Name, "table_type", typ,
				"is_insertable_into", yesNo(r.Kind == KindTable && !r.ReadOnly), "is_typed", "NO")
		}
	})
	define("information_schema", "views", true, func(b *rowSet, src Source) {
		for _, r := range src.Relations() {
			if r.Kind == KindView || r.Kind == KindMaterializedView {
				b.add("table_catalog", src.Database(), "table_schema", r.Schema, "table_name", r.Name,
					"view_definition", viewDefinition(r), "check_option", "NONE", "is_updatable", "NO",
					"is_insertable_into", "NO", "is_trigger_updatable", "NO", "is_trigger_deletable", "NO",
					"is_trigger_insertable_into", "NO")
			}
		}
	})
	define("information_schema", "columns", true, genColumns)
	define("information_schema", "table_constraints", true, func(b *rowSet, src Source) {
		for _, r := range src.Relations() {
			add := func(name, typ string) {
				b.add("constraint_catalog", src.Database(), "constraint_schema", r.Schema, "constraint_name", name,
					"table_catalog", src.Database(), "table_schema", r.Schema, "table_name", r.Name,
					"constraint_type", typ, "is_deferrable", "NO", "initially_deferred", "NO", "enforced", "YES")
			}
			if len(r.PrimaryKey) > 0 {
				add(pkeyName(r), "PRIMARY KEY")
			}
			for _, c := range r.Checks {
				add(c.Name, "CHECK")
			}
		}
	})
	define("information_schema", "key_column_usage", true, func(b *rowSet, src Source) {
		for _, r := range src.Relations() {
			for i, k := range r.PrimaryKey {
				b.add("constraint_catalog", src.Database(), "constraint_schema", r.Schema, "constraint_name", pkeyName(r),
					"table_catalog", src.Database(), "table_schema", r.Schema, "table_name", r.Name,
					"column_name", r.Columns[k].Name, "ordinal_position", i+1)
			}
		}
	})
	define("information_schema", "sequences", true, func(b *rowSet, src Source) {
		for _, r := range src.Relations() {
			s := r.Sequence
			if s == nil || identitySequence(src, r) {
				continue
			}
			typ, bits := sequenceTypeName(s.Type)
			b.add("sequence_catalog", src.Database(), "sequence_schema", r.Schema, "sequence_name", r.Name,
				"data_type", typ, "numeric_precision", bits, "numeric_precision_radix", 2, "numeric_scale", 0,
				"start_value", strconv.FormatInt(s.Start, 10), "minimum_value", strconv.FormatInt(s.Min, 10),
				"maximum_value", strconv.FormatInt(s.Max, 10), "increment", strconv.FormatInt(s.Increment, 10),
				"cycle_option", yesNo(s.Cycle))
		}
	})
	define("information_schema", "routines", true, nil)
	define("information_schema", "referential_constraints", true, nil)
}

func yesNo(b bool) string {
	if b {
		return "YES"
	}
	return "NO"
}

func genColumns(b *rowSet, src Source) {
	for _, r := range src.Relations() {
		if r.Kind == KindIndex {
			continue
		}
		for i, c := range r.Columns {
			t := c.Type
			dataType, udt := t.String(), ""
			if name, ok := typeName(t.OID()); ok {
				udt = name
			}
			if t.Family == types.Array {
				dataType = "ARRAY"
			} else if t.Mod >= 0 {
				dataType = types.Type{Family: t.Family, Mod: -1}.String()
			}
			var def any
			if c.hasDefault() {
				def = c.Default
			}
			var charMax, numPrec, numRadix, numScale, dtPrec, ivType any
			switch t.Family {
			case types.Varchar, types.Char:
				if t.Mod >= 0 {
					charMax = int(t.Mod)
				}
			case types.Int2:
				numPrec, numRadix, numScale = 16, 2, 0
			case types.Int4:
				numPrec, numRadix, numScale = 32, 2, 0
			case types.Int8:
				numPrec, numRadix, numScale = 64, 2, 0
			case types.Float4:
				numPrec, numRadix = 24, 2
			case types.Float8:
				numPrec, numRadix = 53, 2
			case types.Numeric:
				numRadix = 10
				if p, s, ok := t.NumericPrecisionScale(); ok {
					numPrec, numScale = int(p), int(s)
				}
			case types.Date:
				dtPrec = 0
			case types.Time, types.Timestamp, types.TimestampTZ:
				dtPrec = 6
				if t.Mod >= 0 {
					dtPrec = int(t.Mod)
				}
			case types.Interval:
				dtPrec = 6
				if p, ok := t.IntervalPrecision(); ok {
					dtPrec = int(p)
				}
				if q := t.IntervalQualifier(); q != "" {
					ivType = strings.ToUpper(q)
				}
			}
			b.add("table_catalog", src.Database(), "table_schema", r.Schema, "table_name", r.Name,
				"column_name", c.Name, "ordinal_position", i+1, "column_default", def,
				"is_nullable", yesNo(!c.NotNull), "data_type", dataType, "character_maximum_length", charMax,
				"numeric_precision", numPrec, "numeric_precision_radix", numRadix, "numeric_scale", numScale,
				"datetime_precision", dtPrec, "interval_type", ivType, "interval_precision", nil, "udt_catalog", src.Database(), "udt_schema", "pg_catalog",
				"udt_name", udt, "dtd_identifier", itoa(uint32(i+1)), "is_self_referencing", "NO",
				"is_identity", yesNo(c.Identity != ""), "identity_generation", c.identityGeneration(), "is_generated", "NEVER", "is_updatable", yesNo(r.Kind == KindTable && !r.ReadOnly))
		}
	}
}
