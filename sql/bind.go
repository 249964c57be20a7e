package sql

import (
	"slices"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/streamdb/streamdb/catalog"
	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/planner"
	"github.com/streamdb/streamdb/planner/scalar"
	"github.com/streamdb/streamdb/types"
)

// binder resolves the names and types of one statement against a catalog
// and builds its logical plan. A binder is used for one statement only.
type binder struct {
	cat  *catalog.Catalog
	sess *sessionInfo
	// params holds the types of $1, $2, …: given by the client, or
	// inferred from the first context that needs them (Unknown until then).
	params []types.Type
	// deps collects the ids of every catalog object the statement reads.
	deps map[uint64]bool
	// ctes is the stack of WITH scopes, innermost last.
	ctes []map[string]*cteDef
	// inView is set while binding a view definition, where
	// statement-time functions such as now() are not allowed.
	inView bool
	// enclosing is the clause a subquery about to be bound stands in,
	// for the subquery's SELECT to take (see enclosingAggs).
	enclosing *enclosingAggs
	// recursions counts the recursive WITH queries bound, to number
	// their working tables.
	recursions int
	// rowNames holds the names the statement may use as whole-row
	// references, for outer joins to mark their nullable sides by
	// (bind_record.go); nil until a SELECT with an outer join needs it.
	rowNames map[string]bool
}

// cteDef is a bound common table expression: its plan, bound with scope
// around it (the scope around its WITH clause's query), against which
// its references to enclosing rows count their levels.
type cteDef struct {
	plan  planner.Node
	scope *scope
}

// sessionInfo is what binding needs to know about the session.
type sessionInfo struct {
	// user is the session user, the role the client logged in as.
	user     string
	database string
	settings *settings
	// role is the id of the current role, whose privileges every check
	// uses, and current its name: the session user's until SET ROLE
	// (set_role.go). loginRole is the session user's id, which never
	// changes. super says whether the current role was a superuser when
	// the session began or when SET ROLE chose it (is_superuser).
	role      uint64
	current   string
	loginRole uint64
	super     bool
	// needs collects, while a statement binds, the privileges it needs
	// (privileges.go); nil otherwise.
	needs *privNeeds
}

func newBinder(cat *catalog.Catalog, sess *sessionInfo, paramTypes []types.Type) *binder {
	b := &binder{cat: cat, sess: sess, deps: map[uint64]bool{}}
	b.params = append(b.params, paramTypes...)
	return b
}

// paramTypes returns the final parameter types: parameters no context
// decided are text, as PostgreSQL does for unknown-typed parameters that
// reach output.
func (b *binder) paramTypes() []types.Type {
	out := make([]types.Type, len(b.params))
	for i, t := range b.params {
		if t.Family == types.Unknown {
			t = types.TypeText
		}
		out[i] = t
	}
	return out
}

// dependencies returns the ids of the objects the statement reads.
func (b *binder) dependencies() []uint64 {
	out := make([]uint64, 0, len(b.deps))
	for id := range b.deps {
		out = append(out, id)
	}
	slices.Sort(out)
	return out
}

// coerceContext says which casts a coercion may insert, as PostgreSQL's
// coercion contexts do.
type coerceContext uint8

const (
	coerceImplicit coerceContext = iota
	coerceAssignment
	coerceExplicit
)

// coerce converts e to type to, inserting a cast allowed in ctx. An
// untyped literal is read as a value of the target type right away, and a
// parameter of still-unknown type takes the target type. what names the
// construct for error messages ("argument of WHERE").
func (b *binder) coerce(e scalar.Expr, to types.Type, ctx coerceContext, pos int) (scalar.Expr, error) {
	from := e.Type()
	if from == to {
		return e, nil
	}
	if to.Family == types.Unknown {
		return e, nil
	}
	if ctx == coerceAssignment && to.Mod >= 0 && (to.Family == types.Varchar || to.Family == types.Char ||
		to.Family == types.Array && (to.Elem == types.Varchar || to.Elem == types.Char)) {
		// A string too long for the column is an error on assignment,
		// not a truncation as in an explicit cast: the writer applies the
		// column's modifier (types.ApplyTypmod) to the uncut value.
		to.Mod = -1
		if from == to {
			return e, nil
		}
	}
	switch x := e.(type) {
	case *scalar.Const:
		if from.Family == types.Unknown {
			if x.Val.IsNull() {
				return scalar.NullOf(to), nil
			}
			d, err := types.ParseText(x.Val.Str(), to, b.textConfig())
			if err != nil {
				return nil, withPosition(err, pos)
			}
			return scalar.NewConst(d, to), nil
		}
	case *scalar.Param:
		if b.params[x.Idx].Family == types.Unknown {
			b.params[x.Idx] = to
			return &scalar.Param{Idx: x.Idx, Typ: to}, nil
		}
	}
	if from.Family == to.Family && from.Family != types.Array {
		if to.Mod < 0 || from.Mod == to.Mod {
			return e, nil
		}
		// Only a modifier differs: length and precision checks apply.
		return &scalar.Cast{Arg: e, To: to}, nil
	}
	if from.Family == types.Unknown {
		return &scalar.Cast{Arg: e, To: to}, nil
	}
	kind, ok := types.CastContext(from, to)
	if !ok || (ctx == coerceImplicit && kind != types.CastImplicit) ||
		(ctx == coerceAssignment && kind == types.CastExplicit) {
		return nil, pgerr.New(pgerr.CannotCoerce, "cannot cast type %s to %s", from, to).WithPosition(pos)
	}
	return &scalar.Cast{Arg: e, To: to}, nil
}

// coerceBool converts a condition to boolean with PostgreSQL's error for
// other types.
func (b *binder) coerceBool(e scalar.Expr, what string, pos int) (scalar.Expr, error) {
	t := e.Type()
	if t.Family == types.Bool {
		return e, nil
	}
	if t.Family == types.Unknown {
		return b.coerce(e, types.TypeBool, coerceImplicit, pos)
	}
	return nil, pgerr.New(pgerr.DatatypeMismatch, "argument of %s must be type boolean, not type %s", what, t).WithPosition(pos)
}

func (b *binder) textConfig() *types.TextConfig {
	if b.sess != nil && b.sess.settings != nil {
		return b.sess.settings.textConfig()
	}
	return types.DefaultTextConfig()
}

// withPosition attaches a statement position to a pgerr error that has none.
func withPosition(err error, pos int) error {
	if e := pgerr.As(err); e != nil && e.Position == 0 && pos > 0 {
		c := *e
		c.Position = pos
		return &c
	}
	return err
}

// loc converts a pg_query location (0-based byte offset, -1 unknown) to a
// 1-based error position.
func loc(l int32) int {
	if l < 0 {
		return 0
	}
	return int(l) + 1
}

// nameList joins a qualified name's parts.
func nameList(nodes []*pg_query.Node) []string {
	out := make([]string, 0, len(nodes))
	for _, n := range nodes {
		if s := n.GetString_(); s != nil {
			out = append(out, s.Sval)
		}
	}
	return out
}

// funcName returns a function's name without a pg_catalog qualifier.
func funcName(nodes []*pg_query.Node) (string, error) {
	parts := nameList(nodes)
	switch {
	case len(parts) == 1:
		return parts[0], nil
	case len(parts) == 2 && (parts[0] == "pg_catalog" || parts[0] == catalog.DefaultSchema):
		return parts[1], nil
	case len(parts) == 2 && parts[0] == "information_schema" && strings.HasPrefix(parts[1], "_pg_"):
		// information_schema's helpers, such as _pg_expandarray.
		return parts[1], nil
	}
	return "", pgerr.New(pgerr.UndefinedFunction, "function %s does not exist", strings.Join(parts, "."))
}
