// Package scalar holds streamdb's typed scalar expressions, their compilation
// into evaluators, and the library of SQL functions, operators, aggregates,
// window functions and table functions with PostgreSQL's semantics.
//
// # Expressions
//
// An Expr is an immutable tree of typed nodes built by the binder after it
// has resolved every name and type: column references by position (ColRef),
// constants, parameters, casts, calls of resolved functions and operators
// (Call), and the nodes whose evaluation is not a plain strict function —
// AND/OR/NOT with three-valued logic, IS [NOT] NULL/TRUE/FALSE/UNKNOWN,
// IS [NOT] DISTINCT FROM, CASE and COALESCE (lazy: a branch not taken never
// raises its error), NULLIF, GREATEST/LEAST, IN lists, ARRAY[...], subscripts
// and x op ANY/ALL(array). String prints the EXPLAIN form: #3 for a column,
// SQL literals for constants, f(#1, 2) for calls and (#1 + 2) for operators.
//
// Every node exposes its children (Children, WithChildren), so Walk, Rewrite,
// ColumnsUsed, RemapColumns and Fold also work on the node kinds the planner
// adds (subqueries); Compile rejects kinds it does not know.
//
// # Evaluation
//
// Compile turns an Expr into an Evaluator, a closure tree built once per
// plan: the switch over node kinds happens at compile time, never per row,
// and evaluating fixed-width values allocates nothing. A call's argument
// slice is scratch space owned by its closure, which is why an Evaluator is
// not safe for concurrent use: compile one per goroutine (compilation is
// cheap). Strict functions (NULL in, NULL out) get their NULL check from the
// compiler, so implementations only see non-NULL arguments.
//
// # Resolution
//
// ResolveFunc, ResolveBinaryOp, ResolveUnaryOp, ResolveAggregate,
// ResolveWindowFunc and ResolveTableFunc implement PostgreSQL's chapter 10
// rules for our types: exact match; then candidates reachable by implicit
// casts, narrowed by most exact matches, then by preferred types, then by
// type category of unknown-typed arguments; polymorphic parameters
// (anyelement, anyarray, anycompatible…) are unified first. They return the
// chosen function instantiated for the argument types (its Ret concrete) and
// the type each argument must be cast to; the binder inserts the casts.
//
// # Numbers
//
// Integer arithmetic checks overflow (22003 "integer out of range"); integer
// division truncates. Numeric uses apd with PostgreSQL's display-scale
// rules: + and - keep the larger scale, * adds scales, and / picks a scale
// giving at least 16 significant digits (select_div_scale), which is also
// why avg over integers prints 1.5000000000000000. Float arithmetic raises
// "value out of range: overflow/underflow" when a finite input gives an
// infinite or vanishing result, as float.c does.
//
// # Aggregates
//
// AggFunc builds dataflow.Aggregate values. States are retraction-safe:
// diffs may be negative, and a state that saw a row and its retraction is
// indistinguishable from one that saw neither. count, sum, avg, bool_and,
// bool_or and the variance family keep O(1) invertible accumulators with
// exact sums: 128-bit integers, apd numerics (remembering how many live
// values have each scale, so sum(1.5, 2.000) prints 3.500 as PostgreSQL
// does), and for floats a fixed-point big integer wide enough for any
// float64, rounded once when read. That makes float sums exact where
// PostgreSQL's sequential float addition may differ in the last digit.
// min, max, string_agg, array_agg, jsonb_agg, jsonb_object_agg, bit_and
// and bit_or keep a counted multiset per group (ordered by the ORDER BY
// keys, then the arguments, in memcomparable encoding), so deleting the
// current extreme is correct; DISTINCT aggregates count each argument
// tuple and feed the accumulator on 0↔1 transitions. Without ORDER BY the
// order-sensitive aggregates list values in the order of their encoding.
//
// Window functions are descriptors (WindowFunc, with a WindowKind) for the
// dataflow Window operator; table functions (TableFunc: generate_series,
// unnest, the jsonb set functions, regexp_matches) emit rows for one set
// of arguments and run in the planner's FlatMap.
//
// # Time
//
// Date, timestamp and interval arithmetic follow PostgreSQL: months then
// days then time; timestamptz day and month arithmetic, date_trunc and
// extract happen on the session TimeZone's wall clock, with local times in
// a DST gap taking the offset before the transition and ambiguous ones the
// offset after it. to_char, to_date and to_timestamp(text, text) cover the
// date/time template patterns and to_char the common numeric ones (9 0 . ,
// D G S MI PL SG PR FM TH); to_number, roman numerals and EEEE are not
// implemented.
//
// # Regular expressions
//
// ~, ~*, regexp_replace and friends use Go's RE2 engine, which accepts the
// common subset of PostgreSQL's ARE flavour. The escapes that differ are
// rewritten (\y, \Y, \m, \M, \Z, and \b, a backspace in ARE);
// back-references, lookahead and the embedded-options prefix ***: are not
// supported and report 2201B, and RE2 matches leftmost-first where ARE
// matches leftmost-longest for alternations.
package scalar
