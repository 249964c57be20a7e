package sql

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/streamdb/streamdb/catalog"
	"github.com/streamdb/streamdb/engine"
	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/sql/parser"
	"github.com/streamdb/streamdb/types"
)

// sequencePrivilege checks what a sequence function needs, as in
// PostgreSQL: nextval USAGE or UPDATE, setval UPDATE, currval and
// lastval SELECT or USAGE. A serial column's default calls nextval, so
// inserting into such a table takes USAGE on its sequence too.
func sequencePrivilege(cat *catalog.Catalog, role uint64, o *catalog.Object, fn string) error {
	need := catalog.PrivSelect | catalog.PrivUsage
	switch fn {
	case "nextval":
		need = catalog.PrivUsage | catalog.PrivUpdate
	case "setval":
		need = catalog.PrivUpdate
	}
	if cat.Privileges(role, o)&need == 0 {
		return errPermission(o)
	}
	return nil
}

// Sequence implements scalar.Session: nextval, currval, setval and
// lastval for the sequence with the OID (unused by lastval).
func (v *catalogView) Sequence(fn string, oid uint32, value int64, called bool) (int64, error) {
	s := v.s
	if fn == "lastval" {
		if s.lastSeq == 0 {
			return 0, pgerr.New(pgerr.ObjectNotInPrerequisiteState, "lastval is not yet defined in this session")
		}
		oid = uint32(s.lastSeq)
	}
	o, ok := v.snapshot().Catalog().ByID(uint64(oid))
	if !ok {
		return 0, pgerr.New(pgerr.UndefinedTable, "could not open relation with OID %d", oid)
	}
	if o.Kind != catalog.KindSequence {
		return 0, pgerr.New(pgerr.WrongObjectType, "%q is not a sequence", o.Name)
	}
	if err := sequencePrivilege(v.snapshot().Catalog(), s.info.role, o, fn); err != nil {
		return 0, err
	}
	c := s.e.eng
	switch fn {
	case "nextval":
		n, err := c.Nextval(o)
		if err != nil {
			return 0, err
		}
		s.rememberSeq(o.ID, n)
		return n, nil
	case "setval":
		if err := c.Setval(o, value, called); err != nil {
			return 0, err
		}
		if called {
			s.rememberSeq(o.ID, value)
		}
		return value, nil
	default: // currval, lastval
		n, ok := s.currval[o.ID]
		if !ok {
			return 0, pgerr.New(pgerr.ObjectNotInPrerequisiteState, "currval of sequence %q is not yet defined in this session", o.Name)
		}
		return n, nil
	}
}

// rememberSeq records the value a sequence last gave this session, for
// currval and lastval.
func (s *session) rememberSeq(id uint64, v int64) {
	if s.currval == nil {
		s.currval = map[uint64]int64{}
	}
	s.currval[id] = v
	s.lastSeq = id
}

// sequenceDef reads CREATE SEQUENCE's options (also those of an identity
// column) over the defaults PostgreSQL uses for a sequence of type typ.
func sequenceDef(opts []*pg_query.Node, typ types.Type) (catalog.SequenceDef, error) {
	var start, minv, maxv *int64
	d := catalog.SequenceDef{Increment: 1}
	for _, n := range opts {
		el := n.GetDefElem()
		if el == nil {
			continue
		}
		switch el.Defname {
		case "as":
			t, err := sequenceType(el.Arg.GetTypeName())
			if err != nil {
				return d, err
			}
			typ = t
			continue
		case "cycle":
			d.Cycle = el.Arg == nil || el.Arg.GetBoolean() == nil || el.Arg.GetBoolean().Boolval
			if i := el.Arg.GetInteger(); i != nil {
				d.Cycle = i.Ival != 0
			}
			continue
		case "cache", "owned_by", "sequence_name":
			continue
		}
		if el.Arg == nil { // NO MINVALUE, NO MAXVALUE
			continue
		}
		v, err := defElemInt(el)
		if err != nil {
			return d, err
		}
		switch el.Defname {
		case "increment":
			if v == 0 {
				return d, pgerr.New(pgerr.InvalidParameterValue, "INCREMENT must not be zero")
			}
			d.Increment = v
		case "start":
			start = &v
		case "minvalue":
			minv = &v
		case "maxvalue":
			maxv = &v
		case "restart":
		default:
			return d, pgerr.New(pgerr.FeatureNotSupported, "sequence option %s is not supported", strings.ToUpper(el.Defname))
		}
	}
	lo, hi := types.IntRange(typ.Family)
	if d.Increment > 0 {
		d.Min, d.Max = 1, hi
	} else {
		d.Min, d.Max = lo, -1
	}
	if minv != nil {
		d.Min = *minv
	}
	if maxv != nil {
		d.Max = *maxv
	}
	if d.Min < lo || d.Max > hi {
		return d, pgerr.New(pgerr.InvalidParameterValue, "MINVALUE and MAXVALUE must lie within the range of type %s", typ)
	}
	if d.Min >= d.Max {
		return d, pgerr.New(pgerr.InvalidParameterValue, "MINVALUE (%d) must be less than MAXVALUE (%d)", d.Min, d.Max)
	}
	d.Start = d.Min
	if d.Increment < 0 {
		d.Start = d.Max
	}
	if start != nil {
		d.Start = *start
	}
	if d.Start < d.Min || d.Start > d.Max {
		return d, pgerr.New(pgerr.InvalidParameterValue, "START value (%d) cannot be outside the sequence's range (%d..%d)", d.Start, d.Min, d.Max)
	}
	return d, nil
}

// sequenceType resolves AS type: smallint, integer or bigint.
func sequenceType(tn *pg_query.TypeName) (types.Type, error) {
	if tn != nil {
		names := nameList(tn.Names)
		switch names[len(names)-1] {
		case "int2", "smallint":
			return types.TypeInt2, nil
		case "int4", "integer", "int":
			return types.TypeInt4, nil
		case "int8", "bigint":
			return types.TypeInt8, nil
		}
	}
	return types.Type{}, pgerr.New(pgerr.InvalidParameterValue, "sequence type must be smallint, integer, or bigint")
}

// defElemInt reads a numeric option value.
func defElemInt(el *pg_query.DefElem) (int64, error) {
	switch {
	case el.Arg.GetInteger() != nil:
		return int64(el.Arg.GetInteger().Ival), nil
	case el.Arg.GetFloat() != nil:
		v, err := strconv.ParseInt(el.Arg.GetFloat().Fval, 10, 64)
		if err != nil {
			return 0, pgerr.New(pgerr.NumericValueOutOfRange, "value %s is out of range for a sequence option", el.Arg.GetFloat().Fval)
		}
		return v, nil
	}
	return 0, pgerr.New(pgerr.SyntaxError, "%s requires a numeric value", strings.ToUpper(el.Defname))
}

// bindCreateSequence binds CREATE SEQUENCE.
func (s *session) bindCreateSequence(raw *rawStatement, cs *pg_query.CreateSeqStmt) (*boundStmt, error) {
	if err := checkSchema(cs.Sequence); err != nil {
		return nil, err
	}
	if cs.Sequence.Relpersistence == "t" {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "temporary sequences are not supported")
	}
	def, err := sequenceDef(cs.Options, types.TypeInt8)
	if err != nil {
		return nil, err
	}
	name, ifNotExists := cs.Sequence.Relname, cs.IfNotExists
	return ddl("CREATE SEQUENCE", func(ctx context.Context, s *session) error {
		return s.submitDDL(ctx, func(ctx context.Context, tx *engine.DDL, notice func(*pgerr.Error)) error {
			if taken, err := tx.NameTaken(name, ifNotExists, notice); taken || err != nil {
				return err
			}
			return tx.Create(ctx, sequenceObject(tx, name, raw.text, def, 0))
		})
	}), nil
}

// sequenceObject is a new sequence; on is the table that owns it (a
// serial or identity column's), 0 for none.
func sequenceObject(tx *engine.DDL, name, sqlText string, def catalog.SequenceDef, on uint64) *catalog.Object {
	o := &catalog.Object{Kind: catalog.KindSequence, Schema: catalog.DefaultSchema, Name: name, SQL: sqlText, Sequence: &def, ID: tx.NextID(),
		Columns: []catalog.ColumnDef{{Name: "last_value", Type: types.TypeInt8}, {Name: "log_cnt", Type: types.TypeInt8}, {Name: "is_called", Type: types.TypeBool}}}
	if on != 0 {
		o.On, o.DependsOn = on, []uint64{on}
	}
	return o
}

// serialType returns the integer type of a serial pseudo-type name.
func serialType(tn *pg_query.TypeName) (types.Type, bool) {
	if tn == nil || len(tn.ArrayBounds) > 0 {
		return types.Type{}, false
	}
	names := nameList(tn.Names)
	if len(names) != 1 {
		return types.Type{}, false
	}
	switch names[0] {
	case "serial", "serial4":
		return types.TypeInt4, true
	case "bigserial", "serial8":
		return types.TypeInt8, true
	case "smallserial", "serial2":
		return types.TypeInt2, true
	}
	return types.Type{}, false
}

// ownedSequence is a sequence a serial or identity column creates with
// its table, named table_column_seq as in PostgreSQL.
type ownedSequence struct {
	column string
	opts   []*pg_query.Node
	typ    types.Type
}

// object returns the sequence of table t, and the default of its column.
func (o ownedSequence) object(tx *engine.DDL, t *catalog.Object) (*catalog.Object, error) {
	def, err := sequenceDef(o.opts, o.typ)
	if err != nil {
		return nil, err
	}
	base := t.Name + "_" + o.column + "_seq"
	name := base
	for n := 1; ; n++ {
		if _, taken := tx.Catalog().Lookup(catalog.DefaultSchema, name); !taken {
			break
		}
		name = base + strconv.Itoa(n)
	}
	sqlText := fmt.Sprintf("CREATE SEQUENCE %s AS %s START %d INCREMENT %d MINVALUE %d MAXVALUE %d", parser.QuoteIdent(name), o.typ, def.Start, def.Increment, def.Min, def.Max)
	return sequenceObject(tx, name, sqlText, def, t.ID), nil
}

// nextvalDefault is the DEFAULT of a serial or identity column, as
// PostgreSQL shows it.
func nextvalDefault(seq string) string {
	return "nextval(" + parser.QuoteString(parser.QuoteIdent(seq)) + "::regclass)"
}

// storedSequenceType is the AS type of a sequence's stored CREATE
// SEQUENCE (bigint when it names none), for pg_sequence and
// information_schema.sequences.
func storedSequenceType(sqlText string) types.Type {
	tree, err := pg_query.Parse(sqlText)
	if err != nil || len(tree.Stmts) != 1 || tree.Stmts[0].Stmt.GetCreateSeqStmt() == nil {
		return types.TypeInt8
	}
	for _, n := range tree.Stmts[0].Stmt.GetCreateSeqStmt().Options {
		if el := n.GetDefElem(); el != nil && el.Defname == "as" {
			if t, err := sequenceType(el.Arg.GetTypeName()); err == nil {
				return t
			}
		}
	}
	return types.TypeInt8
}
