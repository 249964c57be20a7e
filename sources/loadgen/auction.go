package loadgen

import (
	"context"
	"time"

	"github.com/streamdb/streamdb/sources"
	"github.com/streamdb/streamdb/types"
)

// auction is AUCTION, Materialize's auction house: organizations with users
// and accounts (emitted once, at tick 0), then per tick one new auction
// that closes ten seconds later and 2 to 9 bids on the auctions still open.
//
// Tick k (k >= 1) creates auction k; its bids have ids 10k..10k+8. Which
// auctions are open at tick k is decided by tick numbers, not wall time:
// the last ceil(10s / TICK INTERVAL) auctions, so every choice is a pure
// function of (seed, interval, k) and a resumed source continues exactly.
type auction struct {
	clk      clock
	interval time.Duration
	seed     int64
	limit    int64
	// open is how many of the latest auctions accept bids.
	open int64
}

var _ sources.Source = (*auction)(nil)

// Output indexes of AUCTION.
const (
	auctionOrganizationsOut = iota
	auctionUsersOut
	auctionAccountsOut
	auctionAuctionsOut
	auctionBidsOut
	auctionNumOutputs
)

const (
	auctionDuration    = 10 * time.Second
	auctionMaxBids     = 10 // bid ids are auction*auctionMaxBids + i
	auctionMaxOpen     = 100
	auctionBalance     = 10_000
	auctionMaxAmount   = 99
	auctionMinBidCount = 2
)

func newAuction(opts Options, clk clock) *auction {
	interval := opts.tickInterval(time.Second)
	open := int64((auctionDuration + interval - 1) / interval)
	return &auction{
		clk:      clk,
		interval: interval,
		seed:     opts.Seed,
		limit:    opts.MaxEvents,
		open:     min(max(open, 1), auctionMaxOpen),
	}
}

// auctionOutputs are Materialize's auction tables, in its order.
func auctionOutputs() []sources.Output {
	i8, text, tstz := types.TypeInt8, types.TypeText, types.TypeTimestampTZ
	return []sources.Output{
		{Name: "organizations", Columns: notNull(col("id", i8), col("name", text))},
		{Name: "users", Columns: notNull(col("id", i8), col("org_id", i8), col("name", text))},
		{Name: "accounts", Columns: notNull(col("id", i8), col("org_id", i8), col("balance", i8))},
		{Name: "auctions", Columns: notNull(col("id", i8), col("seller", i8), col("item", text), col("end_time", tstz))},
		{Name: "bids", Columns: notNull(col("id", i8), col("buyer", i8), col("auction_id", i8), col("amount", types.TypeInt4), col("bid_time", tstz))},
	}
}

func (a *auction) Outputs() []sources.Output { return auctionOutputs() }

func (a *auction) Run(ctx context.Context, resume map[string][]byte, sink sources.Sink) error {
	start, err := decodePosition(resume)
	if err != nil {
		return err
	}
	return runTicks(ctx, a.clk, a.interval, 0, start, a.limit, sink, a.tick)
}

func (a *auction) tick(k int64, now time.Time) [][]sources.Change {
	changes := make([][]sources.Change, auctionNumOutputs)
	if k == 0 {
		a.static(changes)
		return changes
	}
	r := unitRNG(a.seed, streamAuction, k)
	users := int64(auctionUserCount())
	nowMicros := now.UnixMicro()
	bids := auctionMinBidCount + r.intn(auctionMaxBids-auctionMinBidCount)
	rows := make([]types.Datum, 4+5*bids)

	row := rows[:4:4]
	row[0] = types.NewInt8(k)
	row[1] = types.NewInt8(r.between(1, users))
	row[2] = types.NewText(auctionItems[r.intn(int64(len(auctionItems)))])
	row[3] = types.NewTimestampTZ(nowMicros + auctionDuration.Microseconds())
	changes[auctionAuctionsOut] = []sources.Change{{Row: row, Diff: 1}}

	firstOpen := max(k-a.open+1, 1)
	bidChanges := make([]sources.Change, bids)
	for i := range bids {
		row := rows[4+5*i : 9+5*i : 9+5*i]
		row[0] = types.NewInt8(k*auctionMaxBids + i)
		row[1] = types.NewInt8(r.between(1, users))
		row[2] = types.NewInt8(r.between(firstOpen, k))
		row[3] = types.NewInt4(int32(r.between(1, auctionMaxAmount)))
		row[4] = types.NewTimestampTZ(nowMicros)
		bidChanges[i] = sources.Change{Row: row, Diff: 1}
	}
	changes[auctionBidsOut] = bidChanges
	return changes
}

// static fills the organizations, users and accounts of tick 0. User i
// works for organization (7i mod n) + 1, which spreads each first name over
// several organizations.
func (a *auction) static(changes [][]sources.Change) {
	orgs := int64(len(auctionOrganizations))
	for i, name := range auctionOrganizations {
		id := int64(i + 1)
		changes[auctionOrganizationsOut] = append(changes[auctionOrganizationsOut],
			sources.Change{Row: types.Row{types.NewInt8(id), types.NewText(name)}, Diff: 1})
		changes[auctionAccountsOut] = append(changes[auctionAccountsOut],
			sources.Change{Row: types.Row{types.NewInt8(id), types.NewInt8(id), types.NewInt8(auctionBalance)}, Diff: 1})
	}
	for i := range int64(auctionUserCount()) {
		first := auctionFirstNames[i%int64(len(auctionFirstNames))]
		last := auctionLastNames[i/int64(len(auctionFirstNames))]
		changes[auctionUsersOut] = append(changes[auctionUsersOut], sources.Change{
			Row:  types.Row{types.NewInt8(i + 1), types.NewInt8(i*7%orgs + 1), types.NewText(first + " " + last)},
			Diff: 1,
		})
	}
}

func auctionUserCount() int { return len(auctionFirstNames) * len(auctionLastNames) }

// col and notNull shorten schema declarations.
func col(name string, t types.Type) sources.Column { return sources.Column{Name: name, Type: t} }

func notNull(cols ...sources.Column) []sources.Column {
	for i := range cols {
		cols[i].NotNull = true
	}
	return cols
}
