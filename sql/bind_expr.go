package sql

import (
	"strconv"
	"strings"

	"github.com/cockroachdb/apd/v3"
	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/streamdb/streamdb/catalog"
	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/planner"
	"github.com/streamdb/streamdb/planner/scalar"
	"github.com/streamdb/streamdb/types"
)

// exprCtx is where an expression is bound: the scope its column
// references resolve in, and which special calls the clause allows.
type exprCtx struct {
	s *scope
	// agg collects aggregate calls when the clause allows them.
	agg *aggCollector
	// win collects window function calls when the clause allows them.
	win *winCollector
	// what names the clause for errors ("WHERE", "JOIN conditions").
	what string
}

// expr binds one expression.
func (b *binder) expr(n *pg_query.Node, c *exprCtx) (scalar.Expr, error) {
	switch {
	case n.GetColumnRef() != nil:
		return b.columnRef(n.GetColumnRef(), c)
	case n.GetAConst() != nil:
		return constant(n.GetAConst())
	case n.GetParamRef() != nil:
		return b.paramRef(n.GetParamRef())
	case n.GetTypeCast() != nil:
		return b.typeCast(n.GetTypeCast(), c)
	case n.GetAExpr() != nil:
		return b.aExpr(n.GetAExpr(), c)
	case n.GetBoolExpr() != nil:
		return b.boolExpr(n.GetBoolExpr(), c)
	case n.GetFuncCall() != nil:
		return b.funcCall(n.GetFuncCall(), c)
	case n.GetNullTest() != nil:
		nt := n.GetNullTest()
		arg, err := b.expr(nt.Arg, c)
		if err != nil {
			return nil, err
		}
		return &scalar.IsNull{Arg: arg, Not: nt.Nulltesttype == pg_query.NullTestType_IS_NOT_NULL}, nil
	case n.GetBooleanTest() != nil:
		return b.booleanTest(n.GetBooleanTest(), c)
	case n.GetCaseExpr() != nil:
		return b.caseExpr(n.GetCaseExpr(), c)
	case n.GetCoalesceExpr() != nil:
		ce := n.GetCoalesceExpr()
		args, t, err := b.commonArgs(ce.Args, c, "COALESCE", loc(ce.Location))
		if err != nil {
			return nil, err
		}
		return &scalar.Coalesce{Args: args, Typ: t}, nil
	case n.GetMinMaxExpr() != nil:
		mm := n.GetMinMaxExpr()
		name := "GREATEST"
		if mm.Op == pg_query.MinMaxOp_IS_LEAST {
			name = "LEAST"
		}
		args, t, err := b.commonArgs(mm.Args, c, name, loc(mm.Location))
		if err != nil {
			return nil, err
		}
		if mm.Op == pg_query.MinMaxOp_IS_LEAST {
			return &scalar.Least{Args: args, Typ: t}, nil
		}
		return &scalar.Greatest{Args: args, Typ: t}, nil
	case n.GetSubLink() != nil:
		return b.subLink(n.GetSubLink(), c)
	case n.GetSqlvalueFunction() != nil:
		return b.sqlValueFunction(n.GetSqlvalueFunction())
	case n.GetAArrayExpr() != nil:
		ae := n.GetAArrayExpr()
		args, t, err := b.commonArgs(ae.Elements, c, "ARRAY", loc(ae.Location))
		if err != nil {
			return nil, err
		}
		if len(args) == 0 {
			return nil, pgerr.New(pgerr.IndeterminateDatatype, "cannot determine type of empty array").
				WithHint("Explicitly cast to the desired type, for example ARRAY[]::integer[].").WithPosition(loc(ae.Location))
		}
		if t.Family == types.Array {
			// ARRAY[ARRAY[...], ...]: a multidimensional array of the
			// sub-arrays' type.
			return &scalar.ArrayExpr{Elems: args, Typ: t}, nil
		}
		return &scalar.ArrayExpr{Elems: args, Typ: types.ArrayOf(t)}, nil
	case n.GetAIndirection() != nil:
		return b.indirection(n.GetAIndirection(), c)
	case n.GetCollateClause() != nil:
		cc := n.GetCollateClause()
		coll := strings.Join(nameList(cc.Collname), ".")
		switch coll {
		case "C", "POSIX", "default", "pg_catalog.default", "pg_catalog.C", "ucs_basic":
			return b.expr(cc.Arg, c)
		}
		return nil, pgerr.New(pgerr.UndefinedObject, "collation %q for encoding \"UTF8\" does not exist", coll).WithPosition(loc(cc.Location))
	case n.GetGroupingFunc() != nil:
		return b.groupingFunc(n.GetGroupingFunc(), c)
	case n.GetRowExpr() != nil:
		return b.rowExpr(n.GetRowExpr(), c)
	}
	return nil, pgerr.New(pgerr.FeatureNotSupported, "expression %s is not supported", nodeName(n))
}

// nodeName names a parse node's kind for errors.
func nodeName(n *pg_query.Node) string {
	s := strings.TrimPrefix(strings.TrimPrefix(strings.Split(n.String(), ":")[0], "node:"), " ")
	if s == "" {
		return "of this kind"
	}
	return strings.TrimSpace(s)
}

func (b *binder) columnRef(cr *pg_query.ColumnRef, c *exprCtx) (scalar.Expr, error) {
	var parts []string
	for i, f := range cr.Fields {
		if f.GetAStar() != nil {
			if i == 1 && len(cr.Fields) == 2 {
				// t.* outside a select list is t's whole row.
				table := parts[0]
				if e, ok := b.wholeRow(table, c); ok {
					return e, nil
				}
				return nil, pgerr.New(pgerr.UndefinedTable, "missing FROM-clause entry for table %q", table).WithPosition(loc(cr.Location))
			}
			return nil, pgerr.New(pgerr.FeatureNotSupported, "* is only allowed in a select list").WithPosition(loc(cr.Location))
		}
		parts = append(parts, f.GetString_().Sval)
	}
	var table, name string
	switch len(parts) {
	case 1:
		name = parts[0]
	case 2:
		table, name = parts[0], parts[1]
	case 3:
		if parts[0] != catalog.DefaultSchema && parts[0] != "pg_catalog" {
			return nil, pgerr.New(pgerr.UndefinedTable, "missing FROM-clause entry for table %q", parts[1]).WithPosition(loc(cr.Location))
		}
		table, name = parts[1], parts[2]
	default:
		return nil, pgerr.New(pgerr.SyntaxError, "improper qualified name (too many dotted names): %s", strings.Join(parts, ".")).WithPosition(loc(cr.Location))
	}
	col, depth, err := c.s.resolve(table, name, loc(cr.Location))
	if pe := pgerr.As(err); pe != nil && pe.Code == pgerr.UndefinedColumn && table == "" {
		// A name that is no column may name a FROM item: its whole row.
		if e, ok := b.wholeRow(name, c); ok {
			return e, nil
		}
	}
	if err != nil {
		return nil, err
	}
	if depth == 0 {
		return &scalar.ColRef{Idx: col.idx, Typ: col.typ}, nil
	}
	return &planner.OuterRef{Depth: depth, Idx: col.idx, Typ: col.typ}, nil
}

// constant binds a literal: integers are int4, then int8, then numeric;
// decimals numeric; strings stay untyped until a context decides.
func constant(ac *pg_query.A_Const) (scalar.Expr, error) {
	if ac.Isnull {
		return scalar.NullOf(types.TypeUnknown), nil
	}
	switch v := ac.Val.(type) {
	case *pg_query.A_Const_Ival:
		return scalar.NewConst(types.NewInt4(v.Ival.Ival), types.TypeInt4), nil
	case *pg_query.A_Const_Fval:
		s := v.Fval.Fval
		if i, err := strconv.ParseInt(s, 10, 64); err == nil {
			if i >= -1<<31 && i < 1<<31 {
				return scalar.NewConst(types.NewInt4(int32(i)), types.TypeInt4), nil
			}
			return scalar.NewConst(types.NewInt8(i), types.TypeInt8), nil
		}
		d, _, err := apd.NewFromString(s)
		if err != nil {
			return nil, pgerr.New(pgerr.InvalidTextRepresentation, "invalid input syntax for type numeric: %q", s).WithPosition(loc(ac.Location))
		}
		return scalar.NewConst(types.NewNumeric(d), types.TypeNumeric), nil
	case *pg_query.A_Const_Boolval:
		return scalar.NewConst(types.NewBool(v.Boolval.Boolval), types.TypeBool), nil
	case *pg_query.A_Const_Sval:
		return scalar.NewConst(types.NewText(v.Sval.Sval), types.TypeUnknown), nil
	case *pg_query.A_Const_Bsval:
		return nil, pgerr.New(pgerr.FeatureNotSupported, "bit string literals are not supported").WithPosition(loc(ac.Location))
	}
	return nil, pgerr.New(pgerr.SyntaxError, "invalid constant").WithPosition(loc(ac.Location))
}

func (b *binder) paramRef(p *pg_query.ParamRef) (scalar.Expr, error) {
	n := int(p.Number)
	if n < 1 {
		return nil, pgerr.New(pgerr.UndefinedParameter, "there is no parameter $%d", n).WithPosition(loc(p.Location))
	}
	if n > maxParams {
		return nil, pgerr.New(pgerr.ProgramLimitExceeded, "too many parameters: $%d", n).WithPosition(loc(p.Location))
	}
	for len(b.params) < n {
		b.params = append(b.params, types.TypeUnknown)
	}
	return &scalar.Param{Idx: n - 1, Typ: b.params[n-1]}, nil
}

// maxParams is the protocol's limit on parameters per statement.
const maxParams = 65535

func (b *binder) typeCast(tc *pg_query.TypeCast, c *exprCtx) (scalar.Expr, error) {
	to, err := b.bindType(tc.TypeName)
	if err != nil {
		return nil, err
	}
	if ae := tc.Arg.GetAArrayExpr(); ae != nil && len(ae.Elements) == 0 && to.Family == types.Array {
		// ARRAY[]::t[] is the empty array of the cast's type.
		return scalar.NewConst(types.NewArray(&types.ArrayValue{Elem: to.ElemType()}), to), nil
	}
	arg, err := b.expr(tc.Arg, c)
	if err != nil {
		return nil, err
	}
	return b.explicitCast(arg, to, loc(tc.Location))
}

// explicitCast applies CAST(arg AS to).
func (b *binder) explicitCast(arg scalar.Expr, to types.Type, pos int) (scalar.Expr, error) {
	from := arg.Type()
	if from.Family == types.Unknown {
		return b.coerce(arg, to, coerceExplicit, pos)
	}
	if from == to {
		return arg, nil
	}
	if _, ok := types.CastContext(from, to); !ok && from.Family != to.Family {
		return nil, pgerr.New(pgerr.CannotCoerce, "cannot cast type %s to %s", from, to).WithPosition(pos)
	}
	return &scalar.Cast{Arg: arg, To: to}, nil
}

func (b *binder) aExpr(a *pg_query.A_Expr, c *exprCtx) (scalar.Expr, error) {
	pos := loc(a.Location)
	op := strings.Join(nameList(a.Name), ".")
	op = strings.TrimPrefix(op, "pg_catalog.")
	switch a.Kind {
	case pg_query.A_Expr_Kind_AEXPR_OP:
		if a.Lexpr == nil {
			arg, err := b.expr(a.Rexpr, c)
			if err != nil {
				return nil, err
			}
			return b.unaryOp(op, arg, pos)
		}
		if l, r := a.Lexpr.GetRowExpr(), a.Rexpr.GetRowExpr(); l != nil && r != nil {
			return b.rowCompare(op, l.Args, r.Args, c, pos)
		}
		l, err := b.expr(a.Lexpr, c)
		if err != nil {
			return nil, err
		}
		r, err := b.expr(a.Rexpr, c)
		if err != nil {
			return nil, err
		}
		return b.binaryOp(op, l, r, pos)
	case pg_query.A_Expr_Kind_AEXPR_LIKE, pg_query.A_Expr_Kind_AEXPR_ILIKE:
		l, err := b.expr(a.Lexpr, c)
		if err != nil {
			return nil, err
		}
		r, err := b.expr(a.Rexpr, c)
		if err != nil {
			return nil, err
		}
		return b.binaryOp(op, l, r, pos)
	case pg_query.A_Expr_Kind_AEXPR_SIMILAR:
		return nil, pgerr.New(pgerr.FeatureNotSupported, "SIMILAR TO is not supported").WithPosition(pos)
	case pg_query.A_Expr_Kind_AEXPR_DISTINCT, pg_query.A_Expr_Kind_AEXPR_NOT_DISTINCT:
		l, r, err := b.comparable(a.Lexpr, a.Rexpr, c, pos)
		if err != nil {
			return nil, err
		}
		return &scalar.IsDistinctFrom{L: l, R: r, Not: a.Kind == pg_query.A_Expr_Kind_AEXPR_NOT_DISTINCT}, nil
	case pg_query.A_Expr_Kind_AEXPR_NULLIF:
		l, r, err := b.comparable(a.Lexpr, a.Rexpr, c, pos)
		if err != nil {
			return nil, err
		}
		return &scalar.NullIf{L: l, R: r}, nil
	case pg_query.A_Expr_Kind_AEXPR_IN:
		return b.inList(a, op, c)
	case pg_query.A_Expr_Kind_AEXPR_OP_ANY, pg_query.A_Expr_Kind_AEXPR_OP_ALL:
		l, err := b.expr(a.Lexpr, c)
		if err != nil {
			return nil, err
		}
		r, err := b.expr(a.Rexpr, c)
		if err != nil {
			return nil, err
		}
		return b.anyAll(op, l, r, a.Kind == pg_query.A_Expr_Kind_AEXPR_OP_ALL, pos)
	case pg_query.A_Expr_Kind_AEXPR_BETWEEN, pg_query.A_Expr_Kind_AEXPR_NOT_BETWEEN,
		pg_query.A_Expr_Kind_AEXPR_BETWEEN_SYM, pg_query.A_Expr_Kind_AEXPR_NOT_BETWEEN_SYM:
		return b.between(a, c)
	}
	return nil, pgerr.New(pgerr.FeatureNotSupported, "operator %s is not supported", op).WithPosition(pos)
}

// comparable binds two operands that must meet in one type.
func (b *binder) comparable(ln, rn *pg_query.Node, c *exprCtx, pos int) (scalar.Expr, scalar.Expr, error) {
	l, err := b.expr(ln, c)
	if err != nil {
		return nil, nil, err
	}
	r, err := b.expr(rn, c)
	if err != nil {
		return nil, nil, err
	}
	_, targets, err := scalar.ResolveBinaryOp("=", l.Type(), r.Type())
	if err != nil {
		return nil, nil, withPosition(err, pos)
	}
	if l, err = b.coerce(l, targets[0], coerceImplicit, pos); err != nil {
		return nil, nil, err
	}
	if r, err = b.coerce(r, targets[1], coerceImplicit, pos); err != nil {
		return nil, nil, err
	}
	return l, r, nil
}

func (b *binder) binaryOp(op string, l, r scalar.Expr, pos int) (scalar.Expr, error) {
	fn, targets, err := scalar.ResolveBinaryOp(op, l.Type(), r.Type())
	if err != nil {
		return nil, withPosition(err, pos)
	}
	if l, err = b.coerce(l, targets[0], coerceImplicit, pos); err != nil {
		return nil, err
	}
	if r, err = b.coerce(r, targets[1], coerceImplicit, pos); err != nil {
		return nil, err
	}
	return &scalar.Call{Fn: fn, Args: []scalar.Expr{l, r}}, nil
}

func (b *binder) unaryOp(op string, arg scalar.Expr, pos int) (scalar.Expr, error) {
	// A negated numeric literal is a literal, so that -2147483648 is an
	// int4 as in PostgreSQL.
	if k, ok := arg.(*scalar.Const); ok && op == "-" && !k.Val.IsNull() {
		switch k.Typ.Family {
		case types.Int4:
			return scalar.NewConst(types.NewInt4(int32(-k.Val.Int())), types.TypeInt4), nil
		case types.Int8:
			v := k.Val.Int()
			if v == 1<<31 {
				return scalar.NewConst(types.NewInt4(-1<<31), types.TypeInt4), nil
			}
			return scalar.NewConst(types.NewInt8(-v), types.TypeInt8), nil
		case types.Numeric:
			var scratch apd.Decimal
			d := new(apd.Decimal).Neg(k.Val.DecimalTo(&scratch))
			if d.Form == apd.Finite && d.Exponent == 0 && d.Negative && d.Coeff.String() == "9223372036854775808" {
				return scalar.NewConst(types.NewInt8(-1<<63), types.TypeInt8), nil
			}
			return scalar.NewConst(types.NewNumeric(d), types.TypeNumeric), nil
		}
	}
	fn, targets, err := scalar.ResolveUnaryOp(op, arg.Type())
	if err != nil {
		return nil, withPosition(err, pos)
	}
	if arg, err = b.coerce(arg, targets[0], coerceImplicit, pos); err != nil {
		return nil, err
	}
	return &scalar.Call{Fn: fn, Args: []scalar.Expr{arg}}, nil
}

// rowCompare expands (a, b) op (c, d) for = and <> into column
// comparisons, and for ordering operators into the lexicographic form.
func (b *binder) rowCompare(op string, ls, rs []*pg_query.Node, c *exprCtx, pos int) (scalar.Expr, error) {
	if len(ls) != len(rs) {
		return nil, pgerr.New(pgerr.SyntaxError, "unequal number of entries in row expressions").WithPosition(pos)
	}
	var ands []scalar.Expr
	for i := range ls {
		l, err := b.expr(ls[i], c)
		if err != nil {
			return nil, err
		}
		r, err := b.expr(rs[i], c)
		if err != nil {
			return nil, err
		}
		eq, err := b.binaryOp(op, l, r, pos)
		if err != nil {
			return nil, err
		}
		ands = append(ands, eq)
	}
	switch op {
	case "=":
		return scalar.NewAnd(ands), nil
	case "<>":
		return &scalar.Or{Args: ands}, nil
	}
	return nil, pgerr.New(pgerr.FeatureNotSupported, "row comparison with %s is not supported", op).WithPosition(pos)
}

func (b *binder) inList(a *pg_query.A_Expr, op string, c *exprCtx) (scalar.Expr, error) {
	pos := loc(a.Location)
	list := a.Rexpr.GetList()
	if list == nil {
		return nil, pgerr.New(pgerr.SyntaxError, "syntax error at or near IN").WithPosition(pos)
	}
	not := op == "<>"
	if row := a.Lexpr.GetRowExpr(); row != nil {
		var alts []scalar.Expr
		for _, item := range list.Items {
			r := item.GetRowExpr()
			if r == nil {
				return nil, pgerr.New(pgerr.SyntaxError, "IN list items must be row constructors").WithPosition(pos)
			}
			eq, err := b.rowCompare("=", row.Args, r.Args, c, pos)
			if err != nil {
				return nil, err
			}
			alts = append(alts, eq)
		}
		var e scalar.Expr = &scalar.Or{Args: alts}
		if not {
			e = &scalar.Not{Arg: e}
		}
		return e, nil
	}
	nodes := append([]*pg_query.Node{a.Lexpr}, list.Items...)
	args, t, err := b.commonArgs(nodes, c, "IN", pos)
	if err != nil {
		return nil, err
	}
	if _, _, err := scalar.ResolveBinaryOp("=", t, t); err != nil {
		return nil, withPosition(err, pos)
	}
	return &scalar.In{Arg: args[0], List: args[1:], Not: not}, nil
}

func (b *binder) anyAll(op string, l, r scalar.Expr, all bool, pos int) (scalar.Expr, error) {
	rt := r.Type()
	if rt.Family == types.Unknown {
		var err error
		if r, err = b.coerce(r, types.ArrayOf(l.Type()), coerceImplicit, pos); err != nil {
			return nil, err
		}
		rt = r.Type()
	}
	if rt.Family != types.Array {
		return nil, pgerr.New(pgerr.WrongObjectType, "op ANY/ALL (array) requires array on right side").WithPosition(pos)
	}
	fn, targets, err := scalar.ResolveBinaryOp(op, l.Type(), rt.ElemType())
	if err != nil {
		return nil, withPosition(err, pos)
	}
	if fn.Ret.Family != types.Bool {
		return nil, pgerr.New(pgerr.WrongObjectType, "op ANY/ALL (array) requires operator to yield boolean").WithPosition(pos)
	}
	if l, err = b.coerce(l, targets[0], coerceImplicit, pos); err != nil {
		return nil, err
	}
	if targets[1] != rt.ElemType() {
		if r, err = b.coerce(r, types.ArrayOf(targets[1]), coerceImplicit, pos); err != nil {
			return nil, err
		}
	}
	return &scalar.AnyAll{Arg: l, Op: fn, Array: r, All: all}, nil
}

func (b *binder) between(a *pg_query.A_Expr, c *exprCtx) (scalar.Expr, error) {
	pos := loc(a.Location)
	bounds := a.Rexpr.GetList()
	if bounds == nil || len(bounds.Items) != 2 {
		return nil, pgerr.New(pgerr.SyntaxError, "syntax error in BETWEEN").WithPosition(pos)
	}
	x, err := b.expr(a.Lexpr, c)
	if err != nil {
		return nil, err
	}
	lo, err := b.expr(bounds.Items[0], c)
	if err != nil {
		return nil, err
	}
	hi, err := b.expr(bounds.Items[1], c)
	if err != nil {
		return nil, err
	}
	in := func(lo, hi scalar.Expr) (scalar.Expr, error) {
		ge, err := b.binaryOp(">=", x, lo, pos)
		if err != nil {
			return nil, err
		}
		le, err := b.binaryOp("<=", x, hi, pos)
		if err != nil {
			return nil, err
		}
		return &scalar.And{Args: []scalar.Expr{ge, le}}, nil
	}
	e, err := in(lo, hi)
	if err != nil {
		return nil, err
	}
	switch a.Kind {
	case pg_query.A_Expr_Kind_AEXPR_BETWEEN_SYM, pg_query.A_Expr_Kind_AEXPR_NOT_BETWEEN_SYM:
		swapped, err := in(hi, lo)
		if err != nil {
			return nil, err
		}
		e = &scalar.Or{Args: []scalar.Expr{e, swapped}}
	}
	switch a.Kind {
	case pg_query.A_Expr_Kind_AEXPR_NOT_BETWEEN, pg_query.A_Expr_Kind_AEXPR_NOT_BETWEEN_SYM:
		e = &scalar.Not{Arg: e}
	}
	return e, nil
}

func (b *binder) boolExpr(be *pg_query.BoolExpr, c *exprCtx) (scalar.Expr, error) {
	pos := loc(be.Location)
	args := make([]scalar.Expr, len(be.Args))
	for i, an := range be.Args {
		a, err := b.expr(an, c)
		if err != nil {
			return nil, err
		}
		what := "AND"
		switch be.Boolop {
		case pg_query.BoolExprType_OR_EXPR:
			what = "OR"
		case pg_query.BoolExprType_NOT_EXPR:
			what = "NOT"
		}
		if args[i], err = b.coerceBool(a, what, pos); err != nil {
			return nil, err
		}
	}
	switch be.Boolop {
	case pg_query.BoolExprType_AND_EXPR:
		return &scalar.And{Args: args}, nil
	case pg_query.BoolExprType_OR_EXPR:
		return &scalar.Or{Args: args}, nil
	}
	return &scalar.Not{Arg: args[0]}, nil
}

func (b *binder) booleanTest(bt *pg_query.BooleanTest, c *exprCtx) (scalar.Expr, error) {
	arg, err := b.expr(bt.Arg, c)
	if err != nil {
		return nil, err
	}
	kind := bt.Booltesttype
	what := "IS TRUE"
	switch kind {
	case pg_query.BoolTestType_IS_NOT_TRUE:
		what = "IS NOT TRUE"
	case pg_query.BoolTestType_IS_FALSE:
		what = "IS FALSE"
	case pg_query.BoolTestType_IS_NOT_FALSE:
		what = "IS NOT FALSE"
	case pg_query.BoolTestType_IS_UNKNOWN:
		what = "IS UNKNOWN"
	case pg_query.BoolTestType_IS_NOT_UNKNOWN:
		what = "IS NOT UNKNOWN"
	}
	if arg, err = b.coerceBool(arg, what, loc(bt.Location)); err != nil {
		return nil, err
	}
	switch kind {
	case pg_query.BoolTestType_IS_TRUE:
		return &scalar.IsTruth{Arg: arg, Want: true}, nil
	case pg_query.BoolTestType_IS_NOT_TRUE:
		return &scalar.IsTruth{Arg: arg, Want: true, Not: true}, nil
	case pg_query.BoolTestType_IS_FALSE:
		return &scalar.IsTruth{Arg: arg, Want: false}, nil
	case pg_query.BoolTestType_IS_NOT_FALSE:
		return &scalar.IsTruth{Arg: arg, Want: false, Not: true}, nil
	case pg_query.BoolTestType_IS_UNKNOWN:
		return &scalar.IsUnknown{Arg: arg}, nil
	}
	return &scalar.IsUnknown{Arg: arg, Not: true}, nil
}

func (b *binder) caseExpr(ce *pg_query.CaseExpr, c *exprCtx) (scalar.Expr, error) {
	pos := loc(ce.Location)
	var operand scalar.Expr
	if ce.Arg != nil {
		var err error
		if operand, err = b.expr(ce.Arg, c); err != nil {
			return nil, err
		}
	}
	var conds, results []scalar.Expr
	for _, wn := range ce.Args {
		w := wn.GetCaseWhen()
		cond, err := b.expr(w.Expr, c)
		if err != nil {
			return nil, err
		}
		if operand != nil {
			if cond, err = b.binaryOp("=", operand, cond, loc(w.Location)); err != nil {
				return nil, err
			}
		}
		if cond, err = b.coerceBool(cond, "CASE/WHEN", loc(w.Location)); err != nil {
			return nil, err
		}
		res, err := b.expr(w.Result, c)
		if err != nil {
			return nil, err
		}
		conds = append(conds, cond)
		results = append(results, res)
	}
	var elseExpr scalar.Expr = scalar.NullOf(types.TypeUnknown)
	if ce.Defresult != nil {
		var err error
		if elseExpr, err = b.expr(ce.Defresult, c); err != nil {
			return nil, err
		}
	}
	all := append(append([]scalar.Expr(nil), results...), elseExpr)
	t, err := b.unify(all, "CASE", pos)
	if err != nil {
		return nil, err
	}
	whens := make([]scalar.When, len(conds))
	for i := range conds {
		whens[i] = scalar.When{Cond: conds[i], Result: all[i]}
	}
	return &scalar.Case{Whens: whens, Else: all[len(all)-1], Typ: t}, nil
}

// commonArgs binds expressions that meet in one column and coerces them to
// their common type.
func (b *binder) commonArgs(nodes []*pg_query.Node, c *exprCtx, what string, pos int) ([]scalar.Expr, types.Type, error) {
	args := make([]scalar.Expr, len(nodes))
	for i, n := range nodes {
		e, err := b.expr(n, c)
		if err != nil {
			return nil, types.Type{}, err
		}
		args[i] = e
	}
	t, err := b.unify(args, what, pos)
	return args, t, err
}

// unify coerces exprs in place to their common type and returns it.
func (b *binder) unify(exprs []scalar.Expr, what string, pos int) (types.Type, error) {
	ts := make([]types.Type, len(exprs))
	for i, e := range exprs {
		ts[i] = e.Type()
	}
	t, err := scalar.CommonType(ts, what)
	if err != nil {
		return types.Type{}, withPosition(err, pos)
	}
	for i, e := range exprs {
		if exprs[i], err = b.coerce(e, t, coerceImplicit, pos); err != nil {
			return types.Type{}, err
		}
	}
	return t, nil
}

// indirection binds e.field, e[i] and chains of them, left to right: a
// run of subscripts is one subscripting (or slicing) of an array.
func (b *binder) indirection(ind *pg_query.A_Indirection, c *exprCtx) (scalar.Expr, error) {
	list := ind.Indirection
	var e scalar.Expr
	var err error
	if f := list[0].GetString_(); f != nil {
		if e, err = b.fieldSelection(ind, f.Sval, c); err != nil {
			return nil, err
		}
		list = list[1:]
	} else if e, err = b.expr(ind.Arg, c); err != nil {
		return nil, err
	}
	for len(list) > 0 {
		switch {
		case list[0].GetString_() != nil:
			if e, err = selectField(e, list[0].GetString_().Sval, 0); err != nil {
				return nil, err
			}
			list = list[1:]
		case list[0].GetAStar() != nil:
			return nil, pgerr.New(pgerr.FeatureNotSupported, "row expansion via \"*\" is not supported here")
		default:
			n := 0
			for n < len(list) && list[n].GetAIndices() != nil {
				n++
			}
			if e, err = b.subscripts(e, list[:n], c); err != nil {
				return nil, err
			}
			list = list[n:]
		}
	}
	return e, nil
}

// subscripts binds a list of array subscripts: an element's (one per
// dimension), or a slice's when any of them is a slice, as PostgreSQL
// reads them (a plain subscript n among slices is the slice 1:n).
func (b *binder) subscripts(e scalar.Expr, list []*pg_query.Node, c *exprCtx) (scalar.Expr, error) {
	if e.Type().Family != types.Array {
		return nil, pgerr.New(pgerr.DatatypeMismatch, "cannot subscript type %s because it does not support subscripting", e.Type())
	}
	if len(list) > types.MaxArrayDims {
		return nil, pgerr.New(pgerr.ProgramLimitExceeded, "number of array dimensions (%d) exceeds the maximum allowed (%d)", len(list), types.MaxArrayDims)
	}
	bound := func(n *pg_query.Node) (scalar.Expr, error) {
		if n == nil {
			return nil, nil
		}
		i, err := b.expr(n, c)
		if err != nil {
			return nil, err
		}
		return b.coerce(i, types.TypeInt4, coerceImplicit, 0)
	}
	slice := false
	for _, in := range list {
		idx := in.GetAIndices()
		if idx == nil {
			return nil, pgerr.New(pgerr.FeatureNotSupported, "only array subscripts are supported")
		}
		slice = slice || idx.IsSlice
	}
	if !slice {
		sub := &scalar.Subscript{Arr: e}
		for _, in := range list {
			i, err := bound(in.GetAIndices().Uidx)
			if err != nil {
				return nil, err
			}
			sub.Index = append(sub.Index, i)
		}
		return sub, nil
	}
	sl := &scalar.Slice{Arr: e}
	for _, in := range list {
		idx := in.GetAIndices()
		lo, err := bound(idx.Lidx)
		if err != nil {
			return nil, err
		}
		hi, err := bound(idx.Uidx)
		if err != nil {
			return nil, err
		}
		if !idx.IsSlice {
			lo = scalar.NewConst(types.NewInt4(1), types.TypeInt4)
		}
		sl.Lower, sl.Upper = append(sl.Lower, lo), append(sl.Upper, hi)
	}
	return sl, nil
}

// fieldSelection binds (arg).field: a field of a record, or of a lifted
// set-returning call, whose fields are the columns "col.field"
// (bind_srf.go).
func (b *binder) fieldSelection(ind *pg_query.A_Indirection, field string, c *exprCtx) (scalar.Expr, error) {
	if cr := ind.Arg.GetColumnRef(); cr != nil && len(ind.Indirection) == 1 {
		last := cr.Fields[len(cr.Fields)-1].GetString_()
		if last != nil {
			fields := append([]*pg_query.Node(nil), cr.Fields[:len(cr.Fields)-1]...)
			fields = append(fields, pg_query.MakeStrNode(last.Sval+"."+field))
			if e, err := b.columnRef(&pg_query.ColumnRef{Fields: fields, Location: cr.Location}, c); err == nil {
				return e, nil
			}
		}
		if len(cr.Fields) == 1 && last != nil {
			if _, _, err := c.s.resolve("", last.Sval, 0); err != nil {
				if _, _, ok := c.s.findTable(last.Sval); ok {
					// (t).a of a range variable t is t.a.
					return b.columnRef(&pg_query.ColumnRef{Fields: []*pg_query.Node{cr.Fields[0], pg_query.MakeStrNode(field)}, Location: cr.Location}, c)
				}
			}
		}
	}
	e, err := b.expr(ind.Arg, c)
	if err != nil {
		return nil, err
	}
	return selectField(e, field, 0)
}

func (b *binder) sqlValueFunction(f *pg_query.SQLValueFunction) (scalar.Expr, error) {
	text := func(s string) scalar.Expr { return scalar.NewConst(types.NewString(types.Name, s), types.TypeName) }
	call := func(name string) (scalar.Expr, error) { return b.callFunc(name, nil, loc(f.Location)) }
	switch f.Op {
	case pg_query.SQLValueFunctionOp_SVFOP_CURRENT_DATE:
		return call("current_date")
	case pg_query.SQLValueFunctionOp_SVFOP_CURRENT_TIME, pg_query.SQLValueFunctionOp_SVFOP_CURRENT_TIME_N:
		return call("current_time")
	case pg_query.SQLValueFunctionOp_SVFOP_CURRENT_TIMESTAMP, pg_query.SQLValueFunctionOp_SVFOP_CURRENT_TIMESTAMP_N:
		return call("now")
	case pg_query.SQLValueFunctionOp_SVFOP_LOCALTIME, pg_query.SQLValueFunctionOp_SVFOP_LOCALTIME_N:
		return call("localtime")
	case pg_query.SQLValueFunctionOp_SVFOP_LOCALTIMESTAMP, pg_query.SQLValueFunctionOp_SVFOP_LOCALTIMESTAMP_N:
		return call("localtimestamp")
	case pg_query.SQLValueFunctionOp_SVFOP_CURRENT_CATALOG:
		return text(b.sess.database), nil
	case pg_query.SQLValueFunctionOp_SVFOP_CURRENT_SCHEMA:
		return text(catalog.DefaultSchema), nil
	case pg_query.SQLValueFunctionOp_SVFOP_SESSION_USER:
		return text(b.sess.user), nil
	}
	return text(b.sess.current), nil
}
