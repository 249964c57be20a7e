package loadgen

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/streamdb/streamdb/sources"
	"github.com/streamdb/streamdb/types"
)

// runTPCH returns the whole snapshot of a TPCH source.
func runTPCH(t *testing.T, opts Options) (sources.Source, *recorder) {
	t.Helper()
	src := newTestSource(t, "TPCH", opts, newVirtualClock(testEpoch))
	total := newTPCHPlan(opts.ScaleFactor).total()
	r := run(t, src, nil, func(r *recorder) bool { return lastPosition(t, r.batches) == total }, time.Minute)
	return src, r
}

func TestTPCHCardinalities(t *testing.T) {
	src, r := runTPCH(t, Options{ScaleFactor: 0.01})
	checkSchema(t, src.Outputs(), r.batches)
	for i, b := range r.batches {
		n := 0
		for _, chs := range b.Changes {
			n += len(chs)
		}
		if n == 0 || n > MaxBatchChanges {
			t.Fatalf("batch %d has %d changes", i, n)
		}
	}
	for i, b := range r.batches {
		orders := map[int64]bool{}
		for _, ch := range b.Changes[tpchOrdersOut] {
			orders[ch.Row[0].Int()] = true
		}
		for _, ch := range b.Changes[tpchLineitemOut] {
			if !orders[ch.Row[0].Int()] {
				t.Fatalf("batch %d has a line of order %d but not the order", i, ch.Row[0].Int())
			}
		}
	}
	rows := outputRows(r.batches, tpchNumOutputs)
	for out, want := range map[int]int{
		tpchRegionOut: 5, tpchNationOut: 25, tpchSupplierOut: 100, tpchCustomerOut: 1500,
		tpchPartOut: 2000, tpchPartsuppOut: 8000, tpchOrdersOut: 15_000,
	} {
		if got := len(rows[out]); got != want {
			t.Errorf("%s: %d rows, want %d", tpchOutputs()[out].Name, got, want)
		}
	}
	// About 4 lines per order: SF 1 has 6,001,215 lineitems.
	if n := len(rows[tpchLineitemOut]); n < 58_000 || n > 62_000 {
		t.Errorf("lineitem: %d rows, want about 60000", n)
	}
}

// TestTPCHIntegrity checks keys, references and derived values at a small
// scale factor.
func TestTPCHIntegrity(t *testing.T) {
	_, r := runTPCH(t, Options{ScaleFactor: 0.002, Seed: 9})
	rows := outputRows(r.batches, tpchNumOutputs)
	plan := newTPCHPlan(0.002)
	partsupp := map[[2]int64]bool{}
	for _, ch := range rows[tpchPartsuppOut] {
		key := [2]int64{ch.Row[0].Int(), ch.Row[1].Int()}
		if partsupp[key] {
			t.Fatalf("partsupp %v repeats", key)
		}
		partsupp[key] = true
	}
	retail := map[int64]string{}
	for i, ch := range rows[tpchPartOut] {
		if ch.Row[0].Int() != int64(i+1) {
			t.Fatalf("part %d has key %d", i, ch.Row[0].Int())
		}
		retail[ch.Row[0].Int()] = types.FormatText(ch.Row[7], types.TypeNumeric, nil)
		if words := strings.Fields(ch.Row[1].Str()); len(words) != 5 {
			t.Fatalf("part name %q", ch.Row[1].Str())
		}
	}
	phone := regexp.MustCompile(`^(\d\d)-\d{3}-\d{3}-\d{4}$`)
	for _, ch := range rows[tpchCustomerOut] {
		m := phone.FindStringSubmatch(ch.Row[4].Str())
		if m == nil || m[1] != fmt.Sprint(ch.Row[3].Int()+10) {
			t.Fatalf("customer %v: phone does not start with its country code", ch.Row)
		}
		if !strings.HasPrefix(ch.Row[1].Str(), "Customer#") || len(ch.Row[1].Str()) != 18 {
			t.Fatalf("customer name %q", ch.Row[1].Str())
		}
	}
	lines := map[int64][]types.Row{}
	for _, ch := range rows[tpchLineitemOut] {
		l := ch.Row
		if !partsupp[[2]int64{l[1].Int(), l[2].Int()}] {
			t.Fatalf("lineitem %v: (part, supplier) not in partsupp", l)
		}
		if l[10].Int() <= 0 || l[12].Int() <= l[10].Int() {
			t.Fatalf("lineitem %v: receipt not after shipment", l)
		}
		lines[l[0].Int()] = append(lines[l[0].Int()], l)
	}
	orderKeys := map[int64]bool{}
	for i, ch := range rows[tpchOrdersOut] {
		o := ch.Row
		key := o[0].Int()
		if want := int64(i/8*32 + i%8 + 1); key != want || orderKeys[key] {
			t.Fatalf("order %d has key %d, want %d", i, key, want)
		}
		orderKeys[key] = true
		if c := o[1].Int(); c%3 == 0 || c < 1 || c > plan.customers {
			t.Fatalf("order %d by customer %d", key, c)
		}
		ls := lines[key]
		if len(ls) < 1 || len(ls) > tpchMaxLines {
			t.Fatalf("order %d has %d lines", key, len(ls))
		}
		var total int64
		statuses := map[string]bool{}
		for j, l := range ls {
			if l[3].Int() != int64(j+1) || l[10].Int() <= o[4].Int() {
				t.Fatalf("order %d line %v", key, l)
			}
			price, disc, tax := cents(l[5]), cents(l[6]), cents(l[7])
			if want := cents(l[4]) / 100 * retailCents(t, retail[l[1].Int()]); price != want {
				t.Fatalf("line %v: extended price %d, want %d", l, price, want)
			}
			total += price * (100 - disc) / 100 * (100 + tax) / 100
			statuses[l[9].Str()] = true
		}
		if cents(o[3]) != total {
			t.Fatalf("order %d total %d, lines add up to %d", key, cents(o[3]), total)
		}
		want := "P"
		if len(statuses) == 1 {
			for s := range statuses {
				want = s
			}
		}
		if o[2].Str() != want {
			t.Fatalf("order %d status %s with line statuses %v", key, o[2].Str(), statuses)
		}
	}
}

func cents(d types.Datum) int64 {
	dec := d.Decimal()
	if dec.Exponent != -2 {
		panic("numeric without scale 2")
	}
	v := dec.Coeff.Int64()
	if dec.Negative {
		v = -v
	}
	return v
}

func retailCents(t *testing.T, s string) int64 {
	var whole, frac int64
	if _, err := fmt.Sscanf(s, "%d.%d", &whole, &frac); err != nil {
		t.Fatalf("retail price %q: %v", s, err)
	}
	return whole*100 + frac
}

// TestTPCHGolden pins the first rows of every table at SF 0.01, seed 0.
func TestTPCHGolden(t *testing.T) {
	outs := tpchOutputs()
	plan := newTPCHPlan(0)
	gen := newTPCHGen(0, &plan)
	var b strings.Builder
	var first int64 // the first entity of the segment
	for _, count := range plan.segs {
		changes := make([][]sources.Change, tpchNumOutputs)
		for i := range int64(2) {
			gen.entity(first+i, changes)
		}
		first += count
		for oi, chs := range changes {
			for _, ch := range chs {
				fmt.Fprintf(&b, "%s: %s\n", outs[oi].Name, formatRow(ch.Row, outs[oi].Columns))
			}
		}
	}
	checkGolden(t, "tpch.golden", b.String())
}

func TestTPCHSeed(t *testing.T) {
	rows := func(seed int64) string {
		_, r := runTPCH(t, Options{ScaleFactor: 0.001, Seed: seed})
		var b strings.Builder
		for _, ch := range outputRows(r.batches, tpchNumOutputs)[tpchLineitemOut] {
			b.WriteString(formatRow(ch.Row, tpchOutputs()[tpchLineitemOut].Columns) + "\n")
		}
		return b.String()
	}
	if a, b := rows(1), rows(1); a != b {
		t.Fatal("same seed, different rows")
	}
	if rows(1) == rows(2) {
		t.Fatal("different seeds, same rows")
	}
}

func TestTPCHPlan(t *testing.T) {
	for _, tc := range []struct {
		sf                                  float64
		suppliers, parts, customers, orders int64
	}{
		{0, 100, 2000, 1500, 15_000},
		{0.01, 100, 2000, 1500, 15_000},
		{1, 10_000, 200_000, 150_000, 1_500_000},
		{0.00001, 4, 2, 2, 15},
	} {
		p := newTPCHPlan(tc.sf)
		if p.suppliers != tc.suppliers || p.parts != tc.parts || p.customers != tc.customers || p.orders != tc.orders {
			t.Errorf("SF %v: %+v", tc.sf, p)
		}
		seg, i := p.locate(p.total() - 1)
		if seg != segOrders || i != p.orders-1 {
			t.Errorf("SF %v: last entity is %d/%d", tc.sf, seg, i)
		}
	}
}

// TestTPCHUpdates checks the order updates after the snapshot: each tick
// retracts one current order with its lines and inserts a new version
// under the same key, so the tables keep their cardinalities and keys.
func TestTPCHUpdates(t *testing.T) {
	const ticks = 300
	opts := Options{ScaleFactor: 0.001, Seed: 5, TickInterval: 2 * time.Second}
	plan := newTPCHPlan(opts.ScaleFactor)
	total := plan.total()
	src := newTestSource(t, "TPCH", opts, newVirtualClock(testEpoch))
	r := run(t, src, nil, func(r *recorder) bool { return lastPosition(t, r.batches) == total+ticks }, time.Minute)
	outs := src.Outputs()
	state := make([]map[string]int64, tpchNumOutputs)
	for i := range state {
		state[i] = map[string]int64{}
	}
	var tickTimes []time.Time
	for _, b := range r.batches {
		pos := lastPosition(t, []*sources.Batch{b})
		if pos > total {
			tickTimes = append(tickTimes, b.Time)
			o := b.Changes[tpchOrdersOut]
			if len(o) != 2 || o[0].Diff != -1 || o[1].Diff != 1 || o[0].Row[0].Int() != o[1].Row[0].Int() {
				t.Fatalf("tick %d: order changes %v", pos-total, o)
			}
		}
		for oi, chs := range b.Changes {
			for _, ch := range chs {
				key := formatRow(ch.Row, outs[oi].Columns)
				state[oi][key] += ch.Diff
				if m := state[oi][key]; m < 0 || m > 1 {
					t.Fatalf("%s row %q has multiplicity %d", outs[oi].Name, key, m)
				}
			}
		}
	}
	for i, at := range tickTimes {
		if want := tickTimes[0].Add(time.Duration(i) * opts.TickInterval); !at.Equal(want) {
			t.Fatalf("tick %d at %v, want %v", i, at, want)
		}
	}
	orders := map[string]bool{}
	for row, m := range state[tpchOrdersOut] {
		if m == 1 {
			key, _, _ := strings.Cut(row, " |")
			if orders[key] {
				t.Fatalf("order %s appears twice", key)
			}
			orders[key] = true
		}
	}
	if int64(len(orders)) != plan.orders {
		t.Fatalf("%d orders after the updates, want %d", len(orders), plan.orders)
	}
	for row, m := range state[tpchLineitemOut] {
		if key, _, _ := strings.Cut(row, " |"); m == 1 && !orders[key] {
			t.Fatalf("line %q of no current order", row)
		}
	}
}
