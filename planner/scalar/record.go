package scalar

import (
	"github.com/streamdb/streamdb/types"
)

// Row values (types.Record): ROW(...) and the whole row of a FROM item
// build them, .field reads one field, and the comparison operators, IS
// [NOT] NULL and the JSON functions take them whole.

// RowExpr is ROW(Fields...) or a whole-row reference: a record of the
// descriptor Typ names (types.RecordType).
type RowExpr struct {
	Fields []Expr
	Typ    types.Type
}

// FieldSelect is (Arg).field: field Idx of a record whose static type
// knows its descriptor.
type FieldSelect struct {
	Arg Expr
	Idx int
	Typ types.Type
}

func (e *RowExpr) Type() types.Type     { return e.Typ }
func (e *FieldSelect) Type() types.Type { return e.Typ }

func (e *RowExpr) Children() []Expr     { return e.Fields }
func (e *FieldSelect) Children() []Expr { return []Expr{e.Arg} }

// WithChildren returns a copy with new fields.
func (e *RowExpr) WithChildren(c []Expr) Expr { return &RowExpr{Fields: c, Typ: e.Typ} }

// WithChildren returns a copy over a new record.
func (e *FieldSelect) WithChildren(c []Expr) Expr {
	return &FieldSelect{Arg: c[0], Idx: e.Idx, Typ: e.Typ}
}

func (e *RowExpr) String() string { return "ROW(" + joinExprs(e.Fields, ", ") + ")" }

func (e *FieldSelect) String() string {
	name := "?"
	if d := types.RecordDescOf(e.Arg.Type()); d != nil {
		name = d.Names[e.Idx]
	}
	return "(" + e.Arg.String() + ")." + name
}

func compileRow(e *RowExpr) (Evaluator, error) {
	fields, err := compileAll(e.Fields)
	if err != nil {
		return nil, err
	}
	desc := types.RecordDescOf(e.Typ)
	return func(ctx *EvalContext, row types.Row) (types.Datum, error) {
		vals := make([]types.Datum, len(fields))
		for i, f := range fields {
			d, err := f(ctx, row)
			if err != nil {
				return types.Null, err
			}
			vals[i] = d
		}
		return types.NewRecord(desc, vals), nil
	}, nil
}

func compileFieldSelect(e *FieldSelect) (Evaluator, error) {
	arg, err := Compile(e.Arg)
	if err != nil {
		return nil, err
	}
	idx := e.Idx
	return func(ctx *EvalContext, row types.Row) (types.Datum, error) {
		d, err := arg(ctx, row)
		if err != nil || d.IsNull() {
			return types.Null, err
		}
		r := d.Record()
		if idx >= len(r.Fields) {
			return types.Null, nil
		}
		return r.Fields[idx], nil
	}, nil
}

// recordIsNull is IS NULL (not unset) or IS NOT NULL (not set) of a
// record: a record is null when all its fields are, and not null when
// none is, so that ROW(1, NULL) is neither.
func recordIsNull(d types.Datum, not bool) bool {
	if d.IsNull() {
		return !not
	}
	for _, f := range d.Record().Fields {
		if f.IsNull() == not {
			return false
		}
	}
	return true
}

// recordToJSON converts a record to a JSON object keyed by its field
// names (f1, f2, … for a record without a descriptor), in jsonb's key
// order, the last of equal names kept.
func recordToJSON(r *types.RecordValue, cfg *types.TextConfig) (types.JSONValue, error) {
	names := recordNames(r)
	pairs := make([]types.JSONPair, len(r.Fields))
	for i, f := range r.Fields {
		fv, err := toJSONValue(f, fieldType(r, i, f), cfg)
		if err != nil {
			return types.JSONValue{}, err
		}
		pairs[i] = types.JSONPair{Key: names[i], Value: fv}
	}
	return makeObject(pairs), nil
}

func recordNames(r *types.RecordValue) []string {
	if r.Desc != nil {
		return r.Desc.Names
	}
	return types.AnonymousFieldNames(len(r.Fields))
}

func fieldType(r *types.RecordValue, i int, f types.Datum) types.Type {
	if r.Desc != nil && i < len(r.Desc.Types) {
		return r.Desc.Types[i]
	}
	return types.Type{Family: f.Kind(), Mod: -1}
}

// appendRecordJSON prints a record as row_to_json and to_json do:
// {"a":1,"b":"x"}, without spaces, fields in order; with lineFeeds
// (row_to_json's pretty form) a line break before every field but the
// first.
func appendRecordJSON(dst []byte, r *types.RecordValue, lineFeeds bool, cfg *types.TextConfig) ([]byte, error) {
	names := recordNames(r)
	dst = append(dst, '{')
	var err error
	for i, f := range r.Fields {
		if i > 0 {
			dst = append(dst, ',')
			if lineFeeds {
				dst = append(dst, "\n "...)
			}
		}
		dst = types.AppendJSONString(dst, names[i])
		dst = append(dst, ':')
		if dst, err = appendToJSON(dst, f, fieldType(r, i, f), cfg); err != nil {
			return dst, err
		}
	}
	return append(dst, '}'), nil
}

func init() {
	rowToJSON := func(ctx *EvalContext, a []types.Datum) (types.Datum, error) {
		pretty := len(a) > 1 && a[1].Bool()
		b, err := appendRecordJSON(nil, a[0].Record(), pretty, ctx.textConfig())
		if err != nil {
			return types.Null, err
		}
		return types.NewString(types.JSON, string(b)), nil
	}
	addFunc(
		&Func{Name: "row_to_json", Params: ts(types.TypeRecord), Ret: jsonT, Strict: true, Volatility: Stable, Impl: rowToJSON},
		&Func{Name: "row_to_json", Params: ts(types.TypeRecord, boolT), Ret: jsonT, Strict: true, Volatility: Stable, Impl: rowToJSON},
	)
	for _, op := range cmpOps {
		addOp(strictBin(op.name, ts(types.TypeRecord, types.TypeRecord), types.TypeBool, cmpGeneric(op.pred)))
	}
}
