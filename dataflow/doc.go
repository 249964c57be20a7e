// Package dataflow is streamdb's incremental engine: Z-set batches,
// operators over them, arrangements (indexed operator state), the per-tick
// scheduler, errors as data, and maintained outputs that other goroutines
// read through immutable snapshots. It knows nothing of SQL: operators
// take Go functions (filter predicates, projections, key extractors,
// aggregates, comparators and sort keys) that the planner builds from
// compiled expressions, in the style of feldera/dbsp.
//
// # Z-sets and ticks
//
// A collection is a multiset of rows; a change to it is a Z-set, a Batch
// of rows with int64 weights (+1 insert, −1 delete, an update is −old
// +new). A Graph is a list of operators in topological order; Step runs
// every operator once, in that order, on the deltas of one tick. Each
// operator turns the deltas of its inputs into its own delta:
//
//   - linear operators (Filter, Map, FlatMap, Union, Negate) transform a
//     delta on its own and keep no state;
//   - Join is bilinear, Δ(A⋈B) = ΔA⋈B_old + A_new⋈ΔB, over both inputs
//     arranged by key; SemiJoin and AntiJoin arrange the left side and
//     count the right side per key;
//   - Reduce keeps one accumulator per group and aggregate (never the
//     input rows for invertible aggregates) and emits −old +new for the
//     groups a tick touches; Distinct and Threshold keep a count per
//     distinct row; TopK keeps each group's rows ordered and emits the
//     change of its window; Window keeps each partition's rows in window
//     order and re-evaluates only the rows whose values a change can
//     reach;
//   - Recursive (WITH RECURSIVE) keeps one copy of its step's graph per
//     iteration and feeds each tick's changes through the copies in
//     turn, until an iteration has nothing left to change.
//
// The cost of a tick follows the size of its deltas and of the state they
// touch, not the size of the collections. Batch-at-a-time processing is
// the rule: there is no goroutine or channel per row, operators reuse
// their buffers between ticks, emitted rows are carved from shared slabs,
// and only stateful operators and sinks consolidate (sort by key encoding,
// merge, drop zeros); between linear operators a batch may repeat rows.
//
// One implementation serves both worlds: a one-tick graph over a snapshot
// of its inputs is the batch query, so batch and incremental results
// cannot drift apart. The package's defining test checks exactly that,
// for random input histories split into ticks in many ways, and compares
// with naive reference implementations.
//
// A one-tick graph's only step (StepFinal) streams: rows move between
// operators in chunks of a few thousand, depth first, from inputs that
// may produce them lazily (Input.Feed) to a Sink that hands them to the
// query's client as they come. Each operator's Step is its absorb of
// each input's delta followed by its finish, and a final step calls the
// same two, absorb once per chunk; stateful operators keep their state
// as in any tick and emit at finish. So an ad hoc query holds its
// operators' state and a chunk per stream, never a whole intermediate
// result (see final.go); it checks ctx and a memory budget as it goes.
//
// # State
//
// Rows are identified by the memcomparable key encoding of types
// where equality must follow types.Compare, and stored in its exact value
// encoding where they are kept for output. Three containers hold state:
//
//   - table, an open-addressing hash table whose slots are integers and
//     whose records live in one byte arena: join and semi-join
//     arrangements, semi-join key counts, distinct and threshold counts.
//     A lookup is two dependent memory accesses and the garbage collector
//     never scans it, so million-row states cost little per delta;
//     operators hash a chunk of keys and touch their slots before using
//     them, so that the cache misses of a chunk overlap.
//   - rowIndex, a hash index from key rows (hashed and compared as Datums,
//     without encoding) to dense positions, for per-key Go objects:
//     Reduce's groups of aggregate states, TopK's per-group B-trees,
//     Window's partitions.
//   - ordered structures: TopK's B-trees of (key prefix, entry) pairs,
//     Window's chunked sequences counted with Fenwick trees, and the
//     copy-on-write B-tree of each Output.
//
// Graph.StateBytes and Node.StateBytes estimate the memory held, for
// benchmarks and introspection.
//
// # Errors as data
//
// A function that fails on a row (division by zero in a projection, a
// failing aggregate) does not fail the tick. The error joins the
// operator's error stream with the row's weight; errors flow downstream
// alongside the data of every operator (never negated or thresholded), and
// each Output keeps the consolidated error collection of everything
// upstream of it. While that collection is non-empty the view reads as its
// first error; when the offending row is retracted, the function fails the
// same way with the opposite weight, the error cancels, and the view reads
// normally again (Materialize's design). Only internal failures — a
// canceled context, corrupt state — fail Step, and they poison the graph.
//
// # Reading
//
// Output maintains a collection in a copy-on-write B-tree ordered by the
// key encoding of the rows (Index: of chosen key columns); an Output
// reading a Reduce keeps the Reduce's own group rows instead, by group key.
// Snapshot hands readers an O(1) immutable copy they can scan, seek and
// look up on any goroutine while later ticks proceed. Delta and Collect
// expose the consolidated change of the last tick, to feed dependent
// graphs and to read one-tick queries.
package dataflow
