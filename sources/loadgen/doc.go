// Package loadgen implements streamdb's built-in load generators (CREATE
// SOURCE ... FROM LOAD GENERATOR): COUNTER, AUCTION and TPCH with
// Materialize's schemas, and NEXMARK with the standard Nexmark event model.
// Each is a sources.Source; New builds one from a kind name and Options,
// Tables describes a kind's outputs without running it.
//
// # Determinism and resuming
//
// Every generator is a pure function of its options and a position: the
// number of units (ticks or events) already emitted. A unit's random
// choices come from an RNG seeded by mixing (seed, table, unit number), never
// from a stream shared across units, so producing unit n costs the same
// whether the source has run for a second or a year. The position travels in
// Batch.Progress under the single partition "0" as 8 big-endian bytes; Run
// hands it back on restart and the generator continues with exactly the
// next unit. Only wall-clock timestamps (AUCTION's times, Batch.Time) depend
// on when a unit is produced; NEXMARK's event times do not: they derive from
// the event number and the configured rate, so a resumed NEXMARK stream is
// byte-identical to an uninterrupted one.
//
// The units per kind:
//
//	COUNTER  one tick: the next integer (and, with MAX CARDINALITY n, the
//	         retraction of the value n ticks older)
//	AUCTION  tick 0: the organizations, users and accounts; tick k: auction
//	         k and 2 to 9 bids on the auctions still open
//	TPCH     one entity: a region, nation, supplier, customer, part or
//	         partsupp row, or an order together with its lineitems, in that
//	         table order; after the snapshot, with TICK INTERVAL, one tick
//	         replaces an order and its lineitems, otherwise the source idles
//	NEXMARK  one event: person, auction or bid by the event number (1:3:46
//	         in every 50), as in Beam's and Flink's NexmarkGenerator
//
// The data follows its models in distribution, not byte for byte: TPCH
// uses dbgen's formulas for keys, prices, dates and flags but its own word
// lists for comments; NEXMARK keeps Beam's ids, proportions, hot ratios,
// price and length distributions and vocabularies, but draws from another
// RNG, so its strings and numbers differ from Beam's and Flink's.
//
// # Pacing
//
// COUNTER and AUCTION emit one tick per TICK INTERVAL (default one second,
// as in Materialize). TPCH emits its snapshot as fast as the sink accepts
// it, then its order updates one per TICK INTERVAL. NEXMARK either runs at saturation (EVENTS PER SECOND absent: batches
// as fast as Emit returns, the next one generated while the engine commits
// the current one) or emits, every TICK INTERVAL (default 10ms), the
// events whose schedule (start + k/rate) has passed. A batch never holds
// more than MaxBatchChanges changes, so a slow consumer sees many short
// batches rather than one huge one. MAX EVENTS stops a generator after that
// many units; it then idles until its context ends.
//
// # Allocation
//
// Rows of one batch are carved from one []Datum slab, strings that must be
// built (emails, phone numbers, names with numbers) are copied into a
// per-batch byte arena, and free text (comments, Nexmark's extra fields)
// is a substring of a fixed random text pool, so the generators allocate per
// batch rather than per row or value. NEXMARK goes further: when the engine
// hands a batch's memory back (sources.Batch.Release: nothing kept its
// rows, as for a source that is not stored whose views build rows of
// their own), the next batches are built in it, so that a saturated
// source allocates nothing per event and the garbage collector has no
// rows to scan (a batch costs 45 ns per event instead of 220). Strings are
// never reused: a view may keep a value it copied out of a row.
// NexmarkEvents exposes the raw NEXMARK event stream without batching, for
// hand-written baselines that must see exactly the rows the source
// produces.
package loadgen
