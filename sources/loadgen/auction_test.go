package loadgen

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestAuction(t *testing.T) {
	const ticks = 200
	src := newTestSource(t, "AUCTION", Options{Seed: 7}, newVirtualClock(testEpoch))
	r := run(t, src, nil, afterBatches(ticks), time.Minute)
	outs := src.Outputs()
	checkSchema(t, outs, r.batches)

	first := r.batches[0].Changes
	if n := len(first[auctionOrganizationsOut]); n != len(auctionOrganizations) {
		t.Fatalf("%d organizations", n)
	}
	if n := len(first[auctionUsersOut]); n != auctionUserCount() {
		t.Fatalf("%d users", n)
	}
	if n := len(first[auctionAccountsOut]); n != len(auctionOrganizations) {
		t.Fatalf("%d accounts", n)
	}
	if len(first[auctionAuctionsOut])+len(first[auctionBidsOut]) != 0 {
		t.Fatal("tick 0 creates auctions")
	}
	users := int64(auctionUserCount())
	bidIDs := map[int64]bool{}
	endTimes := map[int64]int64{}
	for k := int64(1); k < ticks; k++ {
		b := r.batches[k]
		if len(b.Changes[auctionOrganizationsOut])+len(b.Changes[auctionUsersOut])+len(b.Changes[auctionAccountsOut]) != 0 {
			t.Fatalf("tick %d repeats static rows", k)
		}
		au := b.Changes[auctionAuctionsOut]
		if len(au) != 1 || au[0].Row[0].Int() != k {
			t.Fatalf("tick %d auctions %v", k, au)
		}
		if s := au[0].Row[1].Int(); s < 1 || s > users {
			t.Fatalf("seller %d is not a user", s)
		}
		now := b.Time.UnixMicro()
		if end := au[0].Row[3].Int(); end != now+auctionDuration.Microseconds() {
			t.Fatalf("auction %d ends at %d, created at %d", k, end, now)
		}
		endTimes[k] = au[0].Row[3].Int()
		bids := b.Changes[auctionBidsOut]
		if len(bids) < auctionMinBidCount || len(bids) >= auctionMaxBids {
			t.Fatalf("tick %d has %d bids", k, len(bids))
		}
		for _, ch := range bids {
			id, buyer, auctionID, amount, at := ch.Row[0].Int(), ch.Row[1].Int(), ch.Row[2].Int(), ch.Row[3].Int(), ch.Row[4].Int()
			if bidIDs[id] {
				t.Fatalf("bid id %d repeats", id)
			}
			bidIDs[id] = true
			if buyer < 1 || buyer > users || amount < 1 || amount > auctionMaxAmount {
				t.Fatalf("bid %v out of range", ch.Row)
			}
			if end, ok := endTimes[auctionID]; !ok || at >= end || at != now {
				t.Fatalf("bid %v at %d on an auction that is not open (ends %d)", ch.Row, at, end)
			}
		}
	}
}

// TestAuctionDeterminism checks that the seed alone decides the rows.
func TestAuctionDeterminism(t *testing.T) {
	rows := func(seed int64) string {
		src := newTestSource(t, "AUCTION", Options{Seed: seed}, newVirtualClock(testEpoch))
		r := run(t, src, nil, afterBatches(20), time.Minute)
		return fmt.Sprint(outputRows(r.batches, auctionNumOutputs))
	}
	if a, b := rows(1), rows(1); a != b {
		t.Fatal("same seed, different rows")
	}
	if rows(1) == rows(2) {
		t.Fatal("different seeds, same rows")
	}
}

// TestAuctionGolden pins the first ticks of seed 1.
func TestAuctionGolden(t *testing.T) {
	src := newTestSource(t, "AUCTION", Options{Seed: 1}, newVirtualClock(testEpoch))
	r := run(t, src, nil, afterBatches(4), time.Minute)
	outs := src.Outputs()
	var b strings.Builder
	for k, batch := range r.batches {
		fmt.Fprintf(&b, "tick %d\n", k)
		for oi, chs := range batch.Changes {
			for i, ch := range chs {
				if k == 0 && i >= 3 {
					fmt.Fprintf(&b, "  %s: ... %d rows\n", outs[oi].Name, len(chs))
					break
				}
				fmt.Fprintf(&b, "  %s %+d: %s\n", outs[oi].Name, ch.Diff, formatRow(ch.Row, outs[oi].Columns))
			}
		}
	}
	checkGolden(t, "auction.golden", b.String())
}
