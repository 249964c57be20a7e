package loadgen

import "time"

// The Nexmark event model, with the default configuration of Beam's and
// Flink's NexmarkGenerator: in every 50 events, 1 is a new person, 3 are new
// auctions and 46 are bids. Ids are derived from the event number alone
// (the n-th person event creates person 1000+n), and references point at
// recent ids with "hot" skew: half the bids go to the auction at the start
// of the latest block of 100 auctions, three quarters of bids and auctions
// come from the people at the start of the latest block of 100 people.
// Everything else is drawn from the per-event RNG.

// Event kinds, which are also the output indexes of NEXMARK.
const (
	NexmarkPerson = iota
	NexmarkAuction
	NexmarkBid
)

const (
	nexPersonProportion  = 1
	nexAuctionProportion = 3
	nexBidProportion     = 46
	nexTotalProportion   = nexPersonProportion + nexAuctionProportion + nexBidProportion

	nexFirstPersonID   = 1000
	nexFirstAuctionID  = 1000
	nexFirstCategoryID = 10
	nexNumCategories   = 5

	// Choosing among active people and in-flight auctions, plus a lead of
	// ids not generated yet (which makes some events look out of order).
	nexNumActivePeople     = 1000
	nexNumInFlightAuctions = 100
	nexPersonIDLead        = 10
	nexAuctionIDLead       = 10

	// One in ratio draws is not hot; hot ids are the first of the latest
	// block of nexHotBlock ids.
	nexHotAuctionRatio = 2
	nexHotSellersRatio = 4
	nexHotBiddersRatio = 4
	nexHotChannelRatio = 2
	nexHotBlock        = 100

	// Average sizes the extra columns pad events to.
	nexAvgPersonBytes  = 200
	nexAvgAuctionBytes = 500
	nexAvgBidBytes     = 100

	// nexDefaultRate spaces event times when EVENTS PER SECOND is absent.
	nexDefaultRate = 10_000
)

// nexmarkBaseTime is the event time of event 0. It is fixed, not the start
// time, so that event times are a function of the event number and a
// restarted source continues the same timeline.
var nexmarkBaseTime = time.Date(2024, time.January, 1, 0, 0, 0, 0, time.UTC).UnixMilli()

// NexmarkKind returns the kind of event n: NexmarkPerson, NexmarkAuction or
// NexmarkBid.
func NexmarkKind(n int64) int {
	switch rem := n % nexTotalProportion; {
	case rem < nexPersonProportion:
		return NexmarkPerson
	case rem < nexPersonProportion+nexAuctionProportion:
		return NexmarkAuction
	}
	return NexmarkBid
}

// nexmarkCounts returns how many events of each kind are among the first n.
func nexmarkCounts(n int64) (persons, auctions, bids int64) {
	epochs, rem := n/nexTotalProportion, n%nexTotalProportion
	persons = epochs*nexPersonProportion + min(rem, nexPersonProportion)
	auctions = epochs*nexAuctionProportion + min(max(rem-nexPersonProportion, 0), nexAuctionProportion)
	return persons, auctions, n - persons - auctions
}

// lastBase0PersonID is the id (counted from 0) of the latest person
// created at or before event n.
func lastBase0PersonID(n int64) int64 {
	epoch, off := n/nexTotalProportion, n%nexTotalProportion
	if off >= nexPersonProportion {
		off = nexPersonProportion - 1
	}
	return epoch*nexPersonProportion + off
}

// lastBase0AuctionID is the id (counted from 0) of the latest auction
// created at or before event n; -1 before the first.
func lastBase0AuctionID(n int64) int64 {
	epoch, off := n/nexTotalProportion, n%nexTotalProportion
	switch {
	case off < nexPersonProportion:
		epoch--
		off = nexAuctionProportion - 1
	case off >= nexPersonProportion+nexAuctionProportion:
		off = nexAuctionProportion - 1
	default:
		off -= nexPersonProportion
	}
	return epoch*nexAuctionProportion + off
}

// nextBase0PersonID draws one of the active people, or a few ahead.
func nextBase0PersonID(n int64, r *rng) int64 {
	people := lastBase0PersonID(n) + 1
	active := min(people, nexNumActivePeople)
	return people - active + r.intn(active+nexPersonIDLead)
}

// nextBase0AuctionID draws one of the auctions likely still in flight, or
// a few ahead.
func nextBase0AuctionID(n int64, r *rng) int64 {
	hi := lastBase0AuctionID(n)
	lo := max(hi-nexNumInFlightAuctions, 0)
	return lo + r.intn(hi-lo+1+nexAuctionIDLead)
}

// nexmarkTimes maps event numbers to event times.
type nexmarkTimes struct {
	rate float64 // events per second
}

func newNexmarkTimes(eventsPerSecond float64) nexmarkTimes {
	if eventsPerSecond <= 0 {
		eventsPerSecond = nexDefaultRate
	}
	return nexmarkTimes{rate: eventsPerSecond}
}

// at returns the event time of event n in milliseconds since 1970, the
// precision Nexmark's generators use: n/rate after the base time, rounded
// down.
func (t nexmarkTimes) at(n int64) int64 {
	return nexmarkBaseTime + int64(float64(n)*1000/t.rate)
}

// auctionLength draws an auction's duration in milliseconds: on average
// the time until nexNumInFlightAuctions more auctions have been created,
// so that about that many are open at any time.
func (t nexmarkTimes) auctionLength(n, now int64, r *rng) int64 {
	const eventsForAuctions = nexNumInFlightAuctions * nexTotalProportion / nexAuctionProportion
	horizon := t.at(n+eventsForAuctions) - now
	return 1 + r.intn(max(horizon*2, 1))
}
