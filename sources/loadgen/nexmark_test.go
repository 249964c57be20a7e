package loadgen

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/streamdb/streamdb/sources"
	"github.com/streamdb/streamdb/types"
)

// collect returns copies of events from to from+n-1 per kind.
func collect(g *NexmarkGenerator, from, n int64) [3][]types.Row {
	var rows [3][]types.Row
	g.Events(from, n, func(kind int, row types.Row) { rows[kind] = append(rows[kind], row.Copy()) })
	return rows
}

func TestNexmarkProportions(t *testing.T) {
	var counts [3]int64
	var block [nexTotalProportion]int
	NexmarkEvents(1, 0, 50*nexTotalProportion, func(kind int, _ types.Row) { counts[kind]++ })
	if counts != [3]int64{50, 150, 2300} {
		t.Fatalf("person:auction:bid = %v over 2500 events, want 50:150:2300", counts)
	}
	for n := range int64(nexTotalProportion) {
		block[n] = NexmarkKind(n + 7*nexTotalProportion)
	}
	want := [nexTotalProportion]int{0, 1, 1, 1}
	for i := 4; i < nexTotalProportion; i++ {
		want[i] = NexmarkBid
	}
	if block != want {
		t.Fatalf("kinds in a block of 50: %v", block)
	}
	for _, from := range []int64{0, 1, 3, 4, 49, 50, 51, 12345} {
		for _, n := range []int64{0, 1, 2, 5, 49, 50, 101} {
			var c [3]int64
			for e := from; e < from+n; e++ {
				c[NexmarkKind(e)]++
			}
			p0, a0, b0 := nexmarkCounts(from)
			p1, a1, b1 := nexmarkCounts(from + n)
			if got := [3]int64{p1 - p0, a1 - a0, b1 - b0}; got != c {
				t.Fatalf("nexmarkCounts over [%d,%d) = %v, counted %v", from, from+n, got, c)
			}
		}
	}
}

func TestNexmarkModel(t *testing.T) {
	const events = 100_000
	g := NewNexmarkGenerator(3, 0)
	rows := collect(g, 0, events)
	for i, p := range rows[NexmarkPerson] {
		if p[0].Int() != nexFirstPersonID+int64(i) {
			t.Fatalf("person %d has id %d", i, p[0].Int())
		}
	}
	for i, a := range rows[NexmarkAuction] {
		if a[0].Int() != nexFirstAuctionID+int64(i) {
			t.Fatalf("auction %d has id %d", i, a[0].Int())
		}
		if a[4].Int() < a[3].Int() || a[6].Int() <= a[5].Int() {
			t.Fatalf("auction %v: reserve below initial bid or expiry not after creation", a)
		}
		if c := a[8].Int(); c < nexFirstCategoryID || c >= nexFirstCategoryID+nexNumCategories {
			t.Fatalf("auction category %d", c)
		}
	}
	people, auctions := int64(len(rows[NexmarkPerson])), int64(len(rows[NexmarkAuction]))
	var hotAuction, hotBidder, hotChannel int
	for _, b := range rows[NexmarkBid] {
		a, p := b[0].Int()-nexFirstAuctionID, b[1].Int()-nexFirstPersonID
		if a < 0 || a >= auctions+nexAuctionIDLead || p < 0 || p >= people+nexPersonIDLead {
			t.Fatalf("bid %v references an id beyond the lead", b)
		}
		if a%nexHotBlock == 0 {
			hotAuction++
		}
		if p%nexHotBlock == 1 {
			hotBidder++
		}
		if slices.Contains(nexHotChannel, b[3].Str()) {
			hotChannel++
		} else if !strings.HasPrefix(b[3].Str(), "channel-") {
			t.Fatalf("bid channel %q", b[3].Str())
		}
		if price := b[2].Int(); price < 100 || price > 100_000_000 {
			t.Fatalf("bid price %d", price)
		}
	}
	// Hot draws are 1-1/ratio of the bids; cold draws add a little.
	bids := float64(len(rows[NexmarkBid]))
	for _, c := range []struct {
		name    string
		n       int
		atLeast float64
	}{{"auction", hotAuction, 0.5}, {"bidder", hotBidder, 0.75}, {"channel", hotChannel, 0.5}} {
		if f := float64(c.n) / bids; f < c.atLeast-0.01 || f > c.atLeast+0.05 {
			t.Errorf("hot %s fraction %.3f, want about %.2f", c.name, f, c.atLeast)
		}
	}
}

func TestNexmarkStrings(t *testing.T) {
	email := regexp.MustCompile(`^[a-z]{3,6}@[a-z]{3,4}\.com$`)
	card := regexp.MustCompile(`^\d{4} \d{4} \d{4} \d{4}$`)
	url := regexp.MustCompile(`^https://www\.nexmark\.com/[a-z_]{3,4}/[a-z_]{3,4}/[a-z_]{3,4}/item\.htm\?query=1(&channel_id=\d+)?$`)
	rows := collect(NewNexmarkGenerator(5, 0), 0, 20_000)
	for _, p := range rows[NexmarkPerson] {
		if !email.MatchString(p[2].Str()) || !card.MatchString(p[3].Str()) ||
			!slices.Contains(nexCities, p[4].Str()) || !slices.Contains(nexStates, p[5].Str()) {
			t.Fatalf("person %v", p)
		}
		if size := len(p[1].Str()) + len(p[2].Str()) + len(p[3].Str()) + len(p[4].Str()) + len(p[5].Str()) + 8 + len(p[7].Str()); size < 160 || size > 240 {
			t.Fatalf("person of %d bytes, want about %d", size, nexAvgPersonBytes)
		}
	}
	for _, a := range rows[NexmarkAuction] {
		if n := len(a[1].Str()); n < 1 || n > 19 || strings.TrimSpace(a[1].Str()) != a[1].Str() {
			t.Fatalf("auction item name %q", a[1].Str())
		}
		if n := len(a[2].Str()); n < 1 || n > 99 {
			t.Fatalf("auction description %q", a[2].Str())
		}
	}
	for _, b := range rows[NexmarkBid] {
		if !url.MatchString(b[4].Str()) {
			t.Fatalf("bid url %q", b[4].Str())
		}
		if n := len(b[6].Str()); n < 54 || n > 82 {
			t.Fatalf("bid extra of %d bytes", n)
		}
	}
}

func TestNexmarkTimes(t *testing.T) {
	for _, rate := range []float64{0, 1000, 3} {
		g := NewNexmarkGenerator(1, rate)
		perSecond := float64(nexDefaultRate)
		if rate > 0 {
			perSecond = rate
		}
		var n int64
		col := [3]int{NexmarkPerson: 6, NexmarkAuction: 5, NexmarkBid: 5}
		g.Events(0, 2000, func(kind int, row types.Row) {
			want := (nexmarkBaseTime + n*1000/int64(perSecond)) * 1000
			if got := row[col[kind]].Int(); got != want {
				t.Fatalf("rate %v: event %d at %d, want %d", rate, n, got, want)
			}
			n++
		})
	}
}

// TestNexmarkPure checks that events depend only on (seed, number): a
// range generated on its own equals the same range of a longer run, the
// same seed repeats and another seed differs.
func TestNexmarkPure(t *testing.T) {
	g := NewNexmarkGenerator(11, 0)
	full := collect(g, 0, 5000)
	// Events 3210.. begin with the bids of block 64 (3200 + 10).
	part := collect(g, 3210, 1790)
	for k := range part {
		got, want := part[k], full[k][len(full[k])-len(part[k]):]
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("kind %d: events from 3210 differ from the same events of a run from 0", k)
		}
	}
	if fmt.Sprint(collect(NewNexmarkGenerator(11, 0), 0, 5000)) != fmt.Sprint(full) {
		t.Fatal("same seed, different events")
	}
	if fmt.Sprint(collect(NewNexmarkGenerator(12, 0), 0, 5000)) == fmt.Sprint(full) {
		t.Fatal("different seeds, same events")
	}
}

// TestNexmarkSource checks that the source emits the NexmarkEvents stream
// in bounded batches with growing positions.
func TestNexmarkSource(t *testing.T) {
	clk := newVirtualClock(testEpoch)
	src := newTestSource(t, "NEXMARK", Options{Seed: 4}, clk)
	r := run(t, src, nil, afterBatches(3), time.Minute)
	checkSchema(t, src.Outputs(), r.batches)
	for i, b := range r.batches {
		n := 0
		for _, chs := range b.Changes {
			n += len(chs)
		}
		if n != MaxBatchChanges {
			t.Fatalf("batch %d has %d changes, want %d at saturation", i, n, MaxBatchChanges)
		}
		if p := lastPosition(t, r.batches[:i+1]); p != int64(i+1)*MaxBatchChanges {
			t.Fatalf("position after batch %d is %d", i, p)
		}
		if !b.Time.Equal(testEpoch) {
			t.Fatalf("batch time %v, want the clock's %v", b.Time, testEpoch)
		}
	}
	got := outputRows(r.batches, 3)
	want := collect(NewNexmarkGenerator(4, 0), 0, 3*MaxBatchChanges)
	for k := range want {
		if len(got[k]) != len(want[k]) {
			t.Fatalf("kind %d: %d rows, want %d", k, len(got[k]), len(want[k]))
		}
		for i, ch := range got[k] {
			if ch.Diff != 1 || types.CompareRows(ch.Row, want[k][i]) != 0 {
				t.Fatalf("kind %d row %d: %v %+d, want %v +1", k, i, ch.Row, ch.Diff, want[k][i])
			}
		}
	}
}

func TestNexmarkMaxEvents(t *testing.T) {
	src := newTestSource(t, "NEXMARK", Options{MaxEvents: 25_000}, newVirtualClock(testEpoch))
	r := run(t, src, nil, nil, 200*time.Millisecond)
	var sizes []int
	for _, b := range r.batches {
		n := 0
		for _, chs := range b.Changes {
			n += len(chs)
		}
		sizes = append(sizes, n)
	}
	if !slices.Equal(sizes, []int{10_000, 10_000, 5_000}) || lastPosition(t, r.batches) != 25_000 {
		t.Fatalf("batches of %v, want 10000, 10000, 5000", sizes)
	}
}

// TestNexmarkRate checks EVENTS PER SECOND on a virtual clock: the events
// emitted by one second after the start number the rate, give or take a
// tick's worth.
func TestNexmarkRate(t *testing.T) {
	for _, tc := range []struct {
		rate float64
		tick time.Duration
	}{{1000, 0}, {50, 0}, {200_000, 0}, {1000, 100 * time.Millisecond}} {
		t.Run(fmt.Sprintf("%v/s tick %v", tc.rate, tc.tick), func(t *testing.T) {
			clk := newVirtualClock(testEpoch)
			src := newTestSource(t, "NEXMARK", Options{EventsPerSecond: tc.rate, TickInterval: tc.tick}, clk)
			end := testEpoch.Add(time.Second)
			r := run(t, src, nil, func(r *recorder) bool { return r.batches[len(r.batches)-1].Time.After(end) }, time.Minute)
			var n int64
			var last time.Time
			for _, b := range r.batches {
				if b.Time.Before(last) {
					t.Fatal("batch times go backwards")
				}
				last = b.Time
				if !b.Time.After(end) {
					n = lastPosition(t, []*sources.Batch{b})
				}
			}
			tick := tc.tick
			if tick == 0 {
				tick = 10 * time.Millisecond
			}
			slack := int64(tc.rate*tick.Seconds()) + 1
			if want := int64(tc.rate); n < want-slack || n > want+1 {
				t.Fatalf("%d events in the first second, want %d (-%d)", n, want, slack)
			}
		})
	}
}

// TestNexmarkGolden pins the first 60 events of seed 1.
func TestNexmarkGolden(t *testing.T) {
	outs := nexmarkOutputs()
	var b strings.Builder
	var n int64
	NexmarkEvents(1, 0, 60, func(kind int, row types.Row) {
		fmt.Fprintf(&b, "%d %s: %s\n", n, outs[kind].Name, formatRow(row, outs[kind].Columns))
		n++
	})
	checkGolden(t, "nexmark.golden", b.String())
}

// TestNexmarkPacedSlowCommit paces NEXMARK on a virtual clock whose
// every emission takes 8 ms (the engine's commit): the generator must
// wake a tick (10 ms) after its last wake-up, not a tick after the
// emission ended, so that batches stay a tick apart and no event waits
// for both.
func TestNexmarkPacedSlowCommit(t *testing.T) {
	clk := newVirtualClock(testEpoch)
	src := newTestSource(t, "NEXMARK", Options{EventsPerSecond: 100_000}, clk)
	r := run(t, src, nil, func(r *recorder) bool {
		_ = clk.Sleep(context.Background(), 8*time.Millisecond)
		return len(r.batches) >= 20
	}, time.Minute)
	if got := r.batches[19].Time.Sub(r.batches[9].Time); got != 100*time.Millisecond {
		t.Errorf("10 batches took %v, want 100ms (one tick each)", got)
	}
}

// releasing copies each batch's rows and hands its memory back at once,
// as the engine does when nothing keeps the rows.
type releasing struct {
	rows    [][]types.Row
	first   []*types.Datum // the first bid row's memory, per batch
	batches int
	cancel  context.CancelFunc
}

func (r *releasing) Emit(ctx context.Context, b *sources.Batch) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	for k, chs := range b.Changes {
		for len(r.rows) <= k {
			r.rows = append(r.rows, nil)
		}
		for _, ch := range chs {
			r.rows[k] = append(r.rows[k], slices.Clone(ch.Row))
		}
	}
	r.first = append(r.first, &b.Changes[NexmarkBid][0].Row[0])
	b.Release()
	if r.batches++; r.batches == 6 {
		r.cancel()
	}
	return nil
}

func (r *releasing) Status(sources.State, string) {}

// TestNexmarkReleasedMemory checks that batches built in memory the
// engine handed back hold the same events as fresh ones, and that the
// memory is indeed reused.
func TestNexmarkReleasedMemory(t *testing.T) {
	src := newTestSource(t, "NEXMARK", Options{Seed: 5}, newVirtualClock(testEpoch))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	r := &releasing{cancel: cancel}
	if err := src.Run(ctx, nil, r); !errors.Is(err, context.Canceled) {
		t.Fatalf("Run returned %v", err)
	}
	want := collect(NewNexmarkGenerator(5, 0), 0, 6*MaxBatchChanges)
	for k := range want {
		if len(r.rows[k]) != len(want[k]) {
			t.Fatalf("kind %d: %d rows, want %d", k, len(r.rows[k]), len(want[k]))
		}
		for i, row := range r.rows[k] {
			if types.CompareRows(row, want[k][i]) != 0 {
				t.Fatalf("kind %d row %d: %v, want %v", k, i, row, want[k][i])
			}
		}
	}
	reused := false
	for i, p := range r.first {
		reused = reused || slices.Contains(r.first[:i], p)
	}
	if !reused {
		t.Error("no batch was built in the memory of an earlier one")
	}
}
