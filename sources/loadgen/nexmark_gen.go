package loadgen

import (
	"math"

	"github.com/streamdb/streamdb/sources"
	"github.com/streamdb/streamdb/types"
)

// NexmarkGenerator is the NEXMARK event stream as a pure function of (seed,
// event rate, event number): Events(from, n) produces the same rows whether
// or not the events before from were ever generated, and the NEXMARK
// source emits exactly these rows.
type NexmarkGenerator struct {
	seed  int64
	times nexmarkTimes
	vocab *nexmarkVocab
}

// NewNexmarkGenerator returns the generator of the stream a NEXMARK source
// with SEED seed and EVENTS PER SECOND eventsPerSecond (0: absent)
// produces.
func NewNexmarkGenerator(seed int64, eventsPerSecond float64) *NexmarkGenerator {
	return &NexmarkGenerator{seed: seed, times: newNexmarkTimes(eventsPerSecond), vocab: nexVocab()}
}

// NexmarkEvents calls fn with events from to from+n-1 of the stream of a
// NEXMARK source with SEED seed and no EVENTS PER SECOND; see
// NexmarkGenerator.Events.
func NexmarkEvents(seed int64, from, n int64, fn func(kind int, row types.Row)) {
	NewNexmarkGenerator(seed, 0).Events(from, n, fn)
}

// Events calls fn with the kind (NexmarkPerson, NexmarkAuction or
// NexmarkBid) and row of events from to from+n-1, in order. The row has
// the columns of the kind's output and is reused for the next event of the
// same kind: copy it (Row.Copy) to keep it. Its Datums, strings included,
// stay valid.
func (g *NexmarkGenerator) Events(from, n int64, fn func(kind int, row types.Row)) {
	rows := [...]types.Row{
		NexmarkPerson:  make(types.Row, nexPersonWidth),
		NexmarkAuction: make(types.Row, nexAuctionWidth),
		NexmarkBid:     make(types.Row, nexBidWidth),
	}
	var a arena
	for e := from; e < from+n; e++ {
		k := NexmarkKind(e)
		g.event(e, k, &a, rows[k])
		fn(k, rows[k])
	}
}

// Column counts of the three outputs.
const (
	nexPersonWidth  = 8
	nexAuctionWidth = 10
	nexBidWidth     = 7
)

var nexWidths = [...]int{NexmarkPerson: nexPersonWidth, NexmarkAuction: nexAuctionWidth, NexmarkBid: nexBidWidth}

// nexPersonBuiltBytes bounds the arena bytes of one person event: an email
// of at most 15 bytes and a 19-byte credit card number.
const nexPersonBuiltBytes = 15 + 19

// nexBatchMem is the memory of one batch's changes: the Datum slab its
// rows are carved from and the change slices. The engine hands it back
// once nothing refers to the rows (sources.Batch.Release) and a later
// batch is built in it; until then it belongs to the batch.
type nexBatchMem struct {
	datums  []types.Datum
	changes [3][]sources.Change
}

// batch returns events from to from+n-1 as the changes of one batch,
// built in m: the rows share its Datum slab and the built strings one
// arena, sized exactly, so a batch costs a handful of allocations
// whatever its size, and none but the arena's when m is one handed back
// big enough. Every Datum of every row is written, so a reused slab
// needs no clearing; the strings are never reused (a view may keep a
// value it copied out of a row), only the rows' memory.
func (g *NexmarkGenerator) batch(from, n int64, m *nexBatchMem) [][]sources.Change {
	p0, a0, b0 := nexmarkCounts(from)
	p1, a1, b1 := nexmarkCounts(from + n)
	persons, auctions, bids := p1-p0, a1-a0, b1-b0
	width := int(persons*nexPersonWidth + auctions*nexAuctionWidth + bids*nexBidWidth)
	if cap(m.datums) < width {
		m.datums = make([]types.Datum, width)
	}
	datums := m.datums[:width]
	for k, c := range [...]int64{NexmarkPerson: persons, NexmarkAuction: auctions, NexmarkBid: bids} {
		if int64(cap(m.changes[k])) < c {
			m.changes[k] = make([]sources.Change, 0, c)
		}
		m.changes[k] = m.changes[k][:0]
	}
	changes := m.changes[:]
	a := arena{chunk: int(persons) * nexPersonBuiltBytes}
	for e := from; e < from+n; e++ {
		k := NexmarkKind(e)
		w := nexWidths[k]
		row := types.Row(datums[:w:w])
		datums = datums[w:]
		g.event(e, k, &a, row)
		changes[k] = append(changes[k], sources.Change{Row: row, Diff: 1})
	}
	return changes
}

// event fills row with event n of kind k.
func (g *NexmarkGenerator) event(n int64, k int, a *arena, row types.Row) {
	r := unitRNG(g.seed, streamNexmark, n)
	ts := g.times.at(n)
	switch k {
	case NexmarkPerson:
		g.person(n, &r, ts, a, row)
	case NexmarkAuction:
		g.auction(n, &r, ts, row)
	default:
		g.bid(n, &r, ts, row)
	}
}

// person: id, name, email_address, credit_card, city, state, date_time,
// extra.
func (g *NexmarkGenerator) person(n int64, r *rng, ts int64, a *arena, row types.Row) {
	v := g.vocab
	name := v.names[r.intn(int64(len(v.names)))]
	var buf [nexPersonBuiltBytes]byte
	b := append(buf[:0], v.exact(r, 3+r.intn(4))...)
	b = append(b, '@')
	b = append(b, v.exact(r, 3+r.intn(2))...)
	b = append(b, ".com"...)
	email := a.string(b)
	b = buf[:0]
	for i := range 4 {
		if i > 0 {
			b = append(b, ' ')
		}
		b = appendPadded(b, r.intn(10_000), 4)
	}
	card := a.string(b)
	city := nexCities[r.intn(int64(len(nexCities)))]
	state := nexStates[r.intn(int64(len(nexStates)))]
	size := int64(8 + len(name) + len(email) + len(card) + len(city) + len(state))

	row[0] = types.NewInt8(lastBase0PersonID(n) + nexFirstPersonID)
	row[1] = types.NewText(name)
	row[2] = types.NewText(email)
	row[3] = types.NewText(card)
	row[4] = types.NewText(city)
	row[5] = types.NewText(state)
	row[6] = types.NewTimestamp(ts * 1000)
	row[7] = types.NewText(v.extra(r, size, nexAvgPersonBytes))
}

// auction: id, item_name, description, initial_bid, reserve, date_time,
// expires, seller, category, extra.
func (g *NexmarkGenerator) auction(n int64, r *rng, ts int64, row types.Row) {
	v := g.vocab
	var seller int64
	if r.intn(nexHotSellersRatio) > 0 {
		seller = lastBase0PersonID(n) / nexHotBlock * nexHotBlock
	} else {
		seller = nextBase0PersonID(n, r)
	}
	category := nexFirstCategoryID + r.intn(nexNumCategories)
	initial := v.price(r)
	reserve := initial + v.price(r)
	expires := ts + g.times.auctionLength(n, ts, r)
	item := v.text(r, 20)
	desc := v.text(r, 100)
	size := int64(8 + len(item) + len(desc) + 8 + 8 + 8 + 8 + 8)

	row[0] = types.NewInt8(lastBase0AuctionID(n) + nexFirstAuctionID)
	row[1] = types.NewText(item)
	row[2] = types.NewText(desc)
	row[3] = types.NewInt8(initial)
	row[4] = types.NewInt8(reserve)
	row[5] = types.NewTimestamp(ts * 1000)
	row[6] = types.NewTimestamp(expires * 1000)
	row[7] = types.NewInt8(seller + nexFirstPersonID)
	row[8] = types.NewInt8(category)
	row[9] = types.NewText(v.extra(r, size, nexAvgAuctionBytes))
}

// bid: auction, bidder, price, channel, url, date_time, extra.
func (g *NexmarkGenerator) bid(n int64, r *rng, ts int64, row types.Row) {
	v := g.vocab
	var auction, bidder int64
	if r.intn(nexHotAuctionRatio) > 0 {
		auction = lastBase0AuctionID(n) / nexHotBlock * nexHotBlock
	} else {
		auction = nextBase0AuctionID(n, r)
	}
	if r.intn(nexHotBiddersRatio) > 0 {
		// The second of the block, so hot bidders are not the hot sellers.
		bidder = lastBase0PersonID(n)/nexHotBlock*nexHotBlock + 1
	} else {
		bidder = nextBase0PersonID(n, r)
	}
	var channel, url string
	if r.intn(nexHotChannelRatio) > 0 {
		i := r.intn(int64(len(nexHotChannel)))
		channel, url = nexHotChannel[i], v.hotURLs[i]
	} else {
		i := r.intn(nexChannelCount)
		channel, url = v.channels[i], v.urls[i]
	}

	row[0] = types.NewInt8(auction + nexFirstAuctionID)
	row[1] = types.NewInt8(bidder + nexFirstPersonID)
	row[2] = types.NewInt8(v.price(r))
	row[3] = types.NewText(channel)
	row[4] = types.NewText(url)
	row[5] = types.NewTimestamp(ts * 1000)
	row[6] = types.NewText(v.extra(r, 8+8+8+8, nexAvgBidBytes))
}

// price is Beam's PriceGenerator, round(10^(6u) * 100) cents for a
// uniform u: log-uniform from $1 to $1M. 10^(6u) is interpolated linearly
// in a table of 4096 steps (relative error below 2e-6), which is several
// times faster than math.Pow and leaves the distribution unchanged.
func (v *nexmarkVocab) price(r *rng) int64 {
	x := r.float64() * nexPriceSteps
	i := int(x)
	lo := v.prices[i]
	return int64((lo+(v.prices[i+1]-lo)*(x-float64(i)))*100 + 0.5)
}

// nexPriceSteps is the resolution of the price table.
const nexPriceSteps = 4096

// priceTable returns 10^(6i/nexPriceSteps) for i in 0..nexPriceSteps.
func priceTable() []float64 {
	t := make([]float64, nexPriceSteps+1)
	for i := range t {
		t[i] = math.Pow(10, 6*float64(i)/nexPriceSteps)
	}
	return t
}

// appendPadded appends v (non-negative) in decimal, zero-padded to width.
func appendPadded(b []byte, v int64, width int) []byte {
	var digits [20]byte
	i := len(digits)
	for v >= 10 {
		i--
		digits[i] = byte('0' + v%10)
		v /= 10
	}
	i--
	digits[i] = byte('0' + v)
	for pad := width - (len(digits) - i); pad > 0; pad-- {
		b = append(b, '0')
	}
	return append(b, digits[i:]...)
}
