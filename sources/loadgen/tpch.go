package loadgen

import (
	"context"
	"math"
	"time"

	"github.com/streamdb/streamdb/sources"
	"github.com/streamdb/streamdb/types"
)

// tpch is TPCH: the eight TPC-H tables at a scale factor, emitted once as a
// snapshot in batches of at most MaxBatchChanges rows, after which the
// source idles or, with TICK INTERVAL, replaces one order per tick (see
// tpchUpdates). Its position counts snapshot entities in the order region,
// nation, supplier, customer, part, partsupp, orders, then update ticks; an
// order entity carries its 1 to 7 lineitems, so an order and its lines
// always arrive together.
type tpch struct {
	clk  clock
	plan tpchPlan
	seed int64
	// interval is the time between order updates; 0 disables them.
	interval time.Duration
}

var _ sources.Source = (*tpch)(nil)

// Output indexes of TPCH, in Materialize's order.
const (
	tpchSupplierOut = iota
	tpchPartOut
	tpchPartsuppOut
	tpchCustomerOut
	tpchOrdersOut
	tpchLineitemOut
	tpchNationOut
	tpchRegionOut
	tpchNumOutputs
)

// Entity segments, in emission order.
const (
	segRegion = iota
	segNation
	segSupplier
	segCustomer
	segPart
	segPartsupp
	segOrders
	numSegs
)

// tpchPlan holds the cardinalities of one scale factor.
type tpchPlan struct {
	suppliers, parts, customers, orders, clerks int64
	// segs is the number of entities of each segment.
	segs [numSegs]int64
}

func newTPCHPlan(sf float64) tpchPlan {
	if sf == 0 {
		sf = 0.01
	}
	scaled := func(base int64) int64 { return max(int64(math.Round(sf*float64(base))), 1) }
	p := tpchPlan{
		// Every part has 4 distinct suppliers.
		suppliers: max(scaled(tpchSuppliersPerSF), tpchSuppliersPerPart),
		parts:     scaled(tpchPartsPerSF),
		customers: scaled(tpchCustomersPerSF),
		orders:    scaled(tpchOrdersPerSF),
		clerks:    scaled(tpchClerksPerSF),
	}
	p.segs = [numSegs]int64{
		segRegion:   int64(len(tpchRegions)),
		segNation:   int64(len(tpchNations)),
		segSupplier: p.suppliers,
		segCustomer: p.customers,
		segPart:     p.parts,
		segPartsupp: p.parts * tpchSuppliersPerPart,
		segOrders:   p.orders,
	}
	return p
}

// total is the number of entities, the final position.
func (p tpchPlan) total() int64 {
	var n int64
	for _, c := range p.segs {
		n += c
	}
	return n
}

// locate returns the segment of entity pos and its index within it.
func (p tpchPlan) locate(pos int64) (seg int, i int64) {
	for seg, c := range p.segs {
		if pos < c {
			return seg, pos
		}
		pos -= c
	}
	return numSegs, pos
}

func newTPCH(opts Options, clk clock) *tpch {
	return &tpch{clk: clk, plan: newTPCHPlan(opts.ScaleFactor), seed: opts.Seed, interval: opts.TickInterval}
}

// tpchOutputs are the TPC-H tables with Materialize's column types: int8
// keys, text strings, numeric(15,2) money, int4 small numbers and dates.
func tpchOutputs() []sources.Output {
	key, text, i4, date := types.TypeInt8, types.TypeText, types.TypeInt4, types.TypeDate
	money := types.Type{Family: types.Numeric, Mod: types.NumericMod(15, 2)}
	return []sources.Output{
		tpchSupplierOut: {Name: "supplier", Columns: notNull(
			col("s_suppkey", key), col("s_name", text), col("s_address", text), col("s_nationkey", key),
			col("s_phone", text), col("s_acctbal", money), col("s_comment", text))},
		tpchPartOut: {Name: "part", Columns: notNull(
			col("p_partkey", key), col("p_name", text), col("p_mfgr", text), col("p_brand", text),
			col("p_type", text), col("p_size", i4), col("p_container", text), col("p_retailprice", money),
			col("p_comment", text))},
		tpchPartsuppOut: {Name: "partsupp", Columns: notNull(
			col("ps_partkey", key), col("ps_suppkey", key), col("ps_availqty", i4),
			col("ps_supplycost", money), col("ps_comment", text))},
		tpchCustomerOut: {Name: "customer", Columns: notNull(
			col("c_custkey", key), col("c_name", text), col("c_address", text), col("c_nationkey", key),
			col("c_phone", text), col("c_acctbal", money), col("c_mktsegment", text), col("c_comment", text))},
		tpchOrdersOut: {Name: "orders", Columns: notNull(
			col("o_orderkey", key), col("o_custkey", key), col("o_orderstatus", text), col("o_totalprice", money),
			col("o_orderdate", date), col("o_orderpriority", text), col("o_clerk", text),
			col("o_shippriority", i4), col("o_comment", text)),
			// The refresh stream (TICK INTERVAL) deletes orders with their lines.
			Retracts: true},
		tpchLineitemOut: {Name: "lineitem", Columns: notNull(
			col("l_orderkey", key), col("l_partkey", key), col("l_suppkey", key), col("l_linenumber", i4),
			col("l_quantity", money), col("l_extendedprice", money), col("l_discount", money), col("l_tax", money),
			col("l_returnflag", text), col("l_linestatus", text), col("l_shipdate", date),
			col("l_commitdate", date), col("l_receiptdate", date), col("l_shipinstruct", text),
			col("l_shipmode", text), col("l_comment", text)),
			Retracts: true},
		tpchNationOut: {Name: "nation", Columns: notNull(
			col("n_nationkey", key), col("n_name", text), col("n_regionkey", key), col("n_comment", text))},
		tpchRegionOut: {Name: "region", Columns: notNull(
			col("r_regionkey", key), col("r_name", text), col("r_comment", text))},
	}
}

func (t *tpch) Outputs() []sources.Output { return tpchOutputs() }

func (t *tpch) Run(ctx context.Context, resume map[string][]byte, sink sources.Sink) error {
	pos, err := decodePosition(resume)
	if err != nil {
		return err
	}
	sink.Status(sources.Running, "")
	g := newTPCHGen(t.seed, &t.plan)
	total := t.plan.total()
	for pos < total {
		if err := ctx.Err(); err != nil {
			return err
		}
		now := t.clk.Now()
		changes, next := g.batch(pos, total)
		if err := sink.Emit(ctx, newBatch(changes, next, now)); err != nil {
			return err
		}
		pos = next
	}
	if t.interval == 0 {
		return idle(ctx)
	}
	done := pos - total
	return runTicks(ctx, t.clk, t.interval, total, done, 0, sink, newTPCHUpdates(g, done).tick)
}
