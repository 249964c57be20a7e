package sql

import (
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/streamdb/streamdb/catalog"
	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/types"
)

// typeNames maps every spelling of a supported type, as pg_query reports
// it (pg_catalog names for the SQL-standard spellings), to its family.
var typeNames = map[string]types.Family{
	"bool": types.Bool, "boolean": types.Bool,
	"int2": types.Int2, "smallint": types.Int2,
	"int4": types.Int4, "int": types.Int4, "integer": types.Int4,
	"int8": types.Int8, "bigint": types.Int8,
	"float4": types.Float4, "real": types.Float4,
	"float8": types.Float8, "float": types.Float8, "double precision": types.Float8,
	"numeric": types.Numeric, "decimal": types.Numeric,
	"text":    types.Text,
	"varchar": types.Varchar, "character varying": types.Varchar,
	"bpchar": types.Char, "character": types.Char,
	// The grammar turns an unquoted char into bpchar: "char" is quoted.
	"char":        types.QChar,
	"void":        types.Void,
	"name":        types.Name,
	"bytea":       types.Bytea,
	"date":        types.Date,
	"time":        types.Time,
	"timestamp":   types.Timestamp,
	"timestamptz": types.TimestampTZ,
	"interval":    types.Interval,
	"uuid":        types.UUID,
	"json":        types.JSON,
	"jsonb":       types.JSONB,
	"oid":         types.Oid,
	"regclass":    types.RegClass, "regtype": types.RegType,
	"regproc": types.RegProc, "regnamespace": types.RegNamespace,
	"record": types.Record,
}

// bindType resolves a type name with its modifiers and array bounds.
func (b *binder) bindType(tn *pg_query.TypeName) (types.Type, error) {
	parts := nameList(tn.Names)
	if len(parts) == 2 && (parts[0] == "pg_catalog" || parts[0] == catalog.DefaultSchema) {
		parts = parts[1:]
	}
	name := strings.Join(parts, ".")
	fam, ok := typeNames[name]
	if !ok {
		return types.Type{}, pgerr.New(pgerr.UndefinedObject, "type %q does not exist", name).WithPosition(loc(tn.Location))
	}
	t := types.Type{Family: fam, Mod: -1}
	mods := make([]int32, 0, len(tn.Typmods))
	for _, m := range tn.Typmods {
		c := m.GetAConst()
		if c == nil || c.GetIval() == nil {
			return types.Type{}, pgerr.New(pgerr.SyntaxError, "type modifiers must be simple constants or identifiers").WithPosition(loc(tn.Location))
		}
		mods = append(mods, c.GetIval().Ival)
	}
	if err := applyTypeMods(&t, name, mods, loc(tn.Location)); err != nil {
		return types.Type{}, err
	}
	if len(tn.ArrayBounds) > 0 {
		t = types.ArrayOf(t)
	}
	return t, nil
}

// applyTypeMods checks and records type modifiers as PostgreSQL does.
func applyTypeMods(t *types.Type, name string, mods []int32, pos int) error {
	switch t.Family {
	case types.Varchar, types.Char:
		if len(mods) > 1 {
			return pgerr.New(pgerr.SyntaxError, "invalid type modifier").WithPosition(pos)
		}
		if len(mods) == 1 {
			if mods[0] < 1 {
				return pgerr.New(pgerr.InvalidParameterValue, "length for type %s must be at least 1", name).WithPosition(pos)
			}
			t.Mod = mods[0]
		} else if t.Family == types.Char && name != "bpchar" {
			t.Mod = 1 // char without a length is char(1)
		}
	case types.Numeric:
		switch len(mods) {
		case 0:
		case 1, 2:
			p, s := mods[0], int32(0)
			if len(mods) == 2 {
				s = mods[1]
			}
			if p < 1 || p > 1000 {
				return pgerr.New(pgerr.InvalidParameterValue, "NUMERIC precision %d must be between 1 and 1000", p).WithPosition(pos)
			}
			if s < -1000 || s > 1000 {
				return pgerr.New(pgerr.InvalidParameterValue, "NUMERIC scale %d must be between -1000 and 1000", s).WithPosition(pos)
			}
			t.Mod = types.NumericMod(p, s)
		default:
			return pgerr.New(pgerr.SyntaxError, "invalid NUMERIC type modifier").WithPosition(pos)
		}
	case types.Time, types.Timestamp, types.TimestampTZ:
		if len(mods) > 1 {
			return pgerr.New(pgerr.SyntaxError, "invalid type modifier").WithPosition(pos)
		}
		if len(mods) == 1 {
			if mods[0] < 0 {
				return pgerr.New(pgerr.InvalidParameterValue, "TIMESTAMP(%d) precision must not be negative", mods[0]).WithPosition(pos)
			}
			t.Mod = min(mods[0], 6)
		}
	case types.Interval:
		// The grammar writes a qualifier (YEAR, DAY TO SECOND(3), ...) and
		// INTERVAL(p) as modifiers: the field range, then the precision.
		m, err := types.IntervalTypmod(mods)
		if err != nil {
			return withPosition(err, pos)
		}
		t.Mod = m
	default:
		if len(mods) > 0 {
			return pgerr.New(pgerr.SyntaxError, "type modifier is not allowed for type %q", name).WithPosition(pos)
		}
	}
	return nil
}
