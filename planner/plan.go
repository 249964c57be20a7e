package planner

import (
	"github.com/streamdb/streamdb/planner/scalar"
	"github.com/streamdb/streamdb/types"
)

// Column describes one output column of a plan node.
type Column struct {
	Name string
	Type types.Type
}

// Node is a relational plan node. Nodes are immutable once built; rewrites
// return new nodes.
type Node interface {
	// Columns describes the output rows.
	Columns() []Column
	// Inputs returns the child relations.
	Inputs() []Node
	// withInputs returns a copy of the node over new children.
	withInputs(inputs []Node) Node
}

// ObjectID identifies a catalog object whose contents a plan reads.
type ObjectID uint64

// Get reads every row of a catalog object: a table, a materialized view,
// a source, or an index's underlying object. When Spans is set only the
// rows whose key lies in one of the spans are read, through the object's
// primary key or the index Index: key lookups and bounded range scans
// instead of a scan.
type Get struct {
	ID   ObjectID
	Name string
	Cols []Column
	// Index is the index the spans use: 0 for the primary key. Index
	// spans are points (no range) and may fix only a prefix of the index
	// key.
	Index     ObjectID
	IndexName string
	// KeyCols are the positions of the key columns in Cols, in key order;
	// with Spans, only the columns the spans constrain.
	KeyCols []int
	// Spans restrict the read to keys in their union; nil reads every row.
	Spans []KeySpan
	// Indexes are the secondary indexes a lookup may use instead of the
	// primary key.
	Indexes []IndexRef
	// WithKey appends the storage key of each row as a final bytea
	// column (listed in Cols): UPDATE and DELETE find the rows they change
	// by it.
	WithKey bool
	// AppendOnly promises that the object's rows are only ever inserted,
	// never retracted (a source's append-only output), so that the
	// operators above may keep less state (see appendOnly).
	AppendOnly bool
}

// KeySpan is a set of keys of a Get: those whose leading key columns
// equal Prefix (constants or parameters, one per column) and, when Lo or
// Hi is set, whose next key column lies within those bounds. Every span of
// a Get has the same shape; spans may overlap (an IN list with repeated
// values), so readers merge them before reading. A value may be an integer
// of another width than its key column: readers convert it by value.
type KeySpan struct {
	Prefix []scalar.Expr
	Lo, Hi *KeyBound
}

// KeyBound is one end of a KeySpan's range.
type KeyBound struct {
	Value     scalar.Expr
	Inclusive bool
}

// IndexRef names an index on a Get's object and its key columns.
type IndexRef struct {
	ID      ObjectID
	Name    string
	KeyCols []int
}

// Values is a constant relation.
type Values struct {
	Rows [][]scalar.Expr
	Cols []Column
}

// Filter keeps the rows for which Pred is true.
type Filter struct {
	Input Node
	Pred  scalar.Expr
}

// Project computes one output column per expression over each input row.
type Project struct {
	Input Node
	Exprs []scalar.Expr
	Cols  []Column
	// JoinBuilds, decided by Physical, says the input is an inner join
	// that only this projection of plain columns reads, and the join
	// builds the projected rows itself (see join_fusion.go).
	JoinBuilds bool
}

// JoinKind selects a join's semantics.
type JoinKind uint8

// Join kinds. Semi and Anti output only the left columns: the left rows
// with, respectively without, a matching right row.
const (
	InnerJoin JoinKind = iota
	LeftJoin
	RightJoin
	FullJoin
	SemiJoin
	AntiJoin
)

func (k JoinKind) String() string {
	return [...]string{"inner", "left", "right", "full", "semi", "anti"}[k]
}

// Join combines Left and Right rows for which On is true; On reads the left
// columns followed by the right columns. Equi-join keys are found by the
// planner's rules, so binders simply put the whole condition in On.
type Join struct {
	Kind        JoinKind
	Left, Right Node
	On          scalar.Expr
	// NullSafe makes equality conjuncts of On match NULL with NULL; the
	// decorrelation rules use it to join a subquery's results back to
	// the rows it was evaluated for.
	NullSafe bool
}

// AggCall is one aggregate computed by an Aggregate node. Its expressions
// read the Aggregate's input row.
type AggCall struct {
	// Func is the SQL aggregate; Builtin replaces it for the planner's
	// own aggregates (the single value of a scalar subquery).
	Func     *scalar.AggFunc
	Builtin  Builtin
	Args     []scalar.Expr
	Distinct bool
	Filter   scalar.Expr // nil: no FILTER clause
	Order    []SortKey   // ORDER BY inside the call
	Typ      types.Type
	// EmptyValue is the result for a group with no input rows, used when
	// the decorrelation rules pad groups that a subquery did not produce
	// (count returns 0, every other aggregate NULL).
	EmptyValue types.Datum
}

// Builtin is an aggregate the planner implements itself.
type Builtin uint8

// Builtin aggregates.
const (
	NoBuiltin Builtin = iota
	// SingleValue is the value of the only row of a scalar subquery: NULL
	// for none and error 21000 for more than one.
	SingleValue
)

// Aggregate groups its input by Keys and computes Aggs per group. The
// output row is the key values followed by one column per aggregate. With
// no Keys it produces exactly one row, even over empty input.
type Aggregate struct {
	Input Node
	Keys  []scalar.Expr
	Aggs  []AggCall
	Cols  []Column
	// AppendOnly, decided by Physical, says the input never retracts, so
	// MIN and MAX keep only the extreme rather than every value.
	AppendOnly bool
}

// Distinct removes duplicate rows.
type Distinct struct {
	Input Node
}

// SetOpKind selects UNION, INTERSECT or EXCEPT.
type SetOpKind uint8

// Set operation kinds.
const (
	Union SetOpKind = iota
	Intersect
	Except
)

func (k SetOpKind) String() string { return [...]string{"union", "intersect", "except"}[k] }

// SetOp combines two relations with the same column types. Columns take
// the left side's names.
type SetOp struct {
	Kind        SetOpKind
	All         bool
	Left, Right Node
}

// SortKey orders rows by one expression.
type SortKey struct {
	Expr       scalar.Expr
	Desc       bool
	NullsFirst bool
}

// TopK keeps, for each group of rows with equal Group columns, the rows at
// positions Offset .. Offset+Limit-1 in Order. A nil Limit keeps every row
// after Offset. Limit and Offset are constant expressions (possibly
// parameters).
type TopK struct {
	Input  Node
	Group  []int
	Order  []SortKey
	Limit  scalar.Expr
	Offset scalar.Expr
	// Monotonic and Gated are decided by Physical. Monotonic: the input
	// never retracts, so each group keeps only its first rows
	// (dataflow.MonotonicTopK). Gated: the input is an inner join that
	// only this top-k reads, and the join asks the top-k's gate before
	// building a match (see topk_gate.go).
	Monotonic, Gated bool
}

// FlatMap evaluates a set-returning function once per input row and
// emits the input row followed by each row the function returns. A FlatMap
// over the one-row relation is how FROM generate_series(...) is planned;
// LATERAL calls read the input row.
type FlatMap struct {
	Input Node
	Func  *scalar.TableFunc
	Args  []scalar.Expr
	Cols  []Column // the function's columns, appended to Input's
	// Ordinality appends a bigint column numbering the function's rows.
	Ordinality bool
}

// WindowCall is one window function computed by a Window node.
type WindowCall struct {
	Func *scalar.WindowFunc
	// Agg is set instead of Func for an aggregate used as a window
	// function; Filter is its FILTER clause (nil: none).
	Agg    *scalar.AggFunc
	Args   []scalar.Expr
	Filter scalar.Expr
	Frame  Frame
	Typ    types.Type
}

// FrameMode is ROWS, RANGE or GROUPS.
type FrameMode uint8

// Frame modes.
const (
	FrameRange FrameMode = iota
	FrameRows
	FrameGroups
)

// FrameBound is one end of a window frame.
type FrameBound struct {
	Kind   BoundKind
	Offset scalar.Expr // for OffsetPreceding and OffsetFollowing
}

// BoundKind is the kind of a frame bound.
type BoundKind uint8

// Frame bound kinds.
const (
	UnboundedPreceding BoundKind = iota
	OffsetPreceding
	CurrentRow
	OffsetFollowing
	UnboundedFollowing
)

// Exclusion is a frame's EXCLUDE clause.
type Exclusion uint8

// Frame exclusions.
const (
	ExcludeNoOthers Exclusion = iota
	ExcludeCurrentRow
	ExcludeGroup
	ExcludeTies
)

func (e Exclusion) String() string {
	return [...]string{"no others", "current row", "group", "ties"}[e]
}

// Frame is a window frame clause. The default, RANGE BETWEEN UNBOUNDED
// PRECEDING AND CURRENT ROW, is the zero value. A RANGE frame's offsets
// have the type of the in_range function chosen for the window's one
// ORDER BY column (scalar.ResolveInRange); ROWS and GROUPS offsets are
// bigint.
type Frame struct {
	Mode       FrameMode
	Start, End FrameBound
	Exclude    Exclusion
}

// DefaultFrame is PostgreSQL's frame when none is given.
var DefaultFrame = Frame{Mode: FrameRange, Start: FrameBound{Kind: UnboundedPreceding}, End: FrameBound{Kind: CurrentRow}}

// Window computes window functions over partitions of its input. Every
// call in one Window node shares PartitionBy and Order; the output row is
// the input row followed by one column per call.
type Window struct {
	Input       Node
	PartitionBy []int
	Order       []SortKey
	Calls       []WindowCall
	Cols        []Column // the calls' columns, appended to Input's
	// Numbered, decided by Physical, says the window is row_number()
	// over the top-k below it, which numbers its rows itself: no window
	// operator runs (see window_topk.go).
	Numbered bool
}

// Query is a complete read: a relation plus the presentation order and
// row window applied to the final result.
type Query struct {
	Root   Node
	Order  []SortKey // over Root's columns
	Limit  scalar.Expr
	Offset scalar.Expr
	// Hidden is the number of trailing Root columns that exist only to
	// sort by and are not returned.
	Hidden int
}

// Apply evaluates Right once per Left row: Right may read the current Left
// row through OuterRef expressions of depth 1. It is how the binder
// expresses subqueries and LATERAL; the decorrelation rules replace every
// Apply with joins before lowering, so no subquery ever runs per row.
// Kind is InnerJoin or LeftJoin; the output is the Left columns followed
// by the Right columns.
//
// Guard, when set, is a condition over the Left row under which Right is
// needed at all: the subquery stands in a CASE branch, a COALESCE
// argument or an AND or OR operand that only some rows reach. Right is
// then computed only for the rows where Guard is true, so that its errors
// surface for those rows alone, as PostgreSQL evaluates a subquery only
// when its branch is taken; the other rows get NULLs in Right's columns
// (their expression never reads them).
type Apply struct {
	Kind        JoinKind
	Left, Right Node
	Guard       scalar.Expr
}
