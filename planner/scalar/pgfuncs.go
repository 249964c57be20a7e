package scalar

import (
	"strings"

	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/types"
)

// The pure functions of PostgreSQL's system-information family that
// clients call while discovering a server: type formatting, encodings,
// identifier parsing and array subscripts.

func init() {
	addFunc(
		&Func{Name: "format_type", Params: ts(oidT, int4T), Ret: textT, Volatility: Stable, Impl: formatType},
		strict("pg_encoding_to_char", ts(int4T), nameT, func(_ *EvalContext, a []types.Datum) (types.Datum, error) {
			name := ""
			switch a[0].Int() {
			case 0:
				name = "SQL_ASCII"
			case 6:
				name = "UTF8"
			}
			return types.NewString(types.Name, name), nil
		}),
		strict("pg_char_to_encoding", ts(nameT), int4T, func(_ *EvalContext, a []types.Datum) (types.Datum, error) {
			switch strings.ToUpper(a[0].Str()) {
			case "SQL_ASCII":
				return types.NewInt4(0), nil
			case "UTF8", "UNICODE":
				return types.NewInt4(6), nil
			}
			return types.NewInt4(-1), nil
		}),
		strict("pg_client_encoding", nil, nameT, func(*EvalContext, []types.Datum) (types.Datum, error) {
			return types.NewString(types.Name, "UTF8"), nil
		}),
		strict("pg_is_in_recovery", nil, boolT, func(*EvalContext, []types.Datum) (types.Datum, error) {
			return types.DFalse, nil
		}),
		&Func{Name: "current_schemas", Params: ts(boolT), Ret: types.ArrayOf(nameT), Strict: true, Volatility: Stable,
			Impl: func(_ *EvalContext, a []types.Datum) (types.Datum, error) {
				names := []string{"public"}
				if a[0].Bool() {
					names = []string{"pg_catalog", "public"}
				}
				return nameArray(names), nil
			}},
		strict("parse_ident", ts(textT), types.ArrayOf(textT), func(_ *EvalContext, a []types.Datum) (types.Datum, error) {
			return parseIdent(a[0].Str(), true)
		}),
		strict("parse_ident", ts(textT, boolT), types.ArrayOf(textT), func(_ *EvalContext, a []types.Datum) (types.Datum, error) {
			return parseIdent(a[0].Str(), a[1].Bool())
		}),
	)
	addTable(
		&TableFunc{Name: "generate_subscripts", Params: ts(AnyArray, int4T), Ret: int4T, eval: subscripts,
			cols: fixedCols(Column{Name: "generate_subscripts", Type: int4T})},
		&TableFunc{Name: "generate_subscripts", Params: ts(AnyArray, int4T, boolT), Ret: int4T, eval: subscripts,
			cols: fixedCols(Column{Name: "generate_subscripts", Type: int4T})},
		// information_schema._pg_expandarray: JDBC's getPrimaryKeys and
		// getIndexInfo pair each index key with its position through it.
		&TableFunc{Name: "_pg_expandarray", Params: ts(AnyArray), Ret: AnyElement, eval: expandArray,
			cols: func(a []types.Type) []Column {
				return []Column{{Name: "x", Type: a[0].ElemType()}, {Name: "n", Type: int4T}}
			}},
	)
}

// expandArray is information_schema._pg_expandarray(array): each element
// with its position, counted from 1.
func expandArray(_ *EvalContext, a []types.Datum, emit func(types.Row) bool) error {
	row := make(types.Row, 2)
	for i, e := range a[0].Array().Elems {
		row[0], row[1] = e, types.NewInt4(int32(i+1))
		if !emit(row) {
			return nil
		}
	}
	return nil
}

func nameArray(names []string) types.Datum {
	elems := make([]types.Datum, len(names))
	for i, n := range names {
		elems[i] = types.NewString(types.Name, n)
	}
	return types.NewArray(&types.ArrayValue{Elem: nameT, Elems: elems})
}

// formatType is format_type(type_oid, typmod): the SQL name of a type with
// its modifier, NULL for a NULL OID, "???" for an OID that names no type.
func formatType(ctx *EvalContext, a []types.Datum) (types.Datum, error) {
	if a[0].IsNull() {
		return types.Null, nil
	}
	oid := uint32(a[0].Int())
	if oid == 0 {
		return types.NewText("-"), nil
	}
	if t, ok := types.TypeForOID(oid); ok {
		if !a[1].IsNull() {
			t = t.WithTypMod(int32(a[1].Int()))
		}
		return types.NewText(t.String()), nil
	}
	if names := ctx.textConfig().Names; names != nil {
		if n, ok := names.ObjectName(types.RegType, oid); ok {
			return types.NewText(n), nil
		}
	}
	return types.NewText("???"), nil
}

// subscripts is generate_subscripts(array, dim [, reverse]): the
// subscripts of the array's dimension dim.
func subscripts(_ *EvalContext, a []types.Datum, emit func(types.Row) bool) error {
	arr, d := a[0].Array(), a[1].Int()
	if d < 1 || d > int64(arr.NDims()) {
		return nil
	}
	n := arr.DimLen(int(d - 1))
	row := make(types.Row, 1)
	reverse := len(a) > 2 && a[2].Bool()
	for i := 1; i <= n; i++ {
		v := i
		if reverse {
			v = n + 1 - i
		}
		row[0] = types.NewInt4(int32(v))
		if !emit(row) {
			return nil
		}
	}
	return nil
}

// parseIdent splits a qualified SQL identifier into its parts, folding
// unquoted parts to lower case; in strict mode trailing characters after
// the identifier are an error.
func parseIdent(s string, strictMode bool) (types.Datum, error) {
	var parts []types.Datum
	bad := func() error {
		return pgerr.New(pgerr.InvalidParameterValue, "string is not a valid identifier: %q", s)
	}
	i := 0
	for {
		for i < len(s) && s[i] == ' ' {
			i++
		}
		var part strings.Builder
		if i < len(s) && s[i] == '"' {
			i++
			closed := false
			for i < len(s) {
				if s[i] == '"' {
					if i+1 < len(s) && s[i+1] == '"' {
						part.WriteByte('"')
						i += 2
						continue
					}
					i++
					closed = true
					break
				}
				part.WriteByte(s[i])
				i++
			}
			if !closed || part.Len() == 0 {
				return types.Null, bad()
			}
		} else {
			start := i
			for i < len(s) && s[i] != '.' && s[i] != ' ' && s[i] != '"' {
				i++
			}
			if i == start {
				return types.Null, bad()
			}
			part.WriteString(strings.ToLower(s[start:i]))
		}
		parts = append(parts, types.NewText(part.String()))
		for i < len(s) && s[i] == ' ' {
			i++
		}
		if i < len(s) && s[i] == '.' {
			i++
			continue
		}
		if i < len(s) && strictMode {
			return types.Null, bad()
		}
		break
	}
	return types.NewArray(&types.ArrayValue{Elem: textT, Elems: parts}), nil
}
