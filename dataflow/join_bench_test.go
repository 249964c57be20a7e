package dataflow

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/streamdb/streamdb/types"
)

// BenchmarkJoinNexmark: a join shaped like Nexmark q20's, bids joined
// with the auctions of one category, in ticks of a saturated
// generator's size: 9,200 bids and 120 auctions, half of the bids on
// the block's hot auction and the rest spread over the hundred newest,
// a fifth of them matching,
// so that most keys hold about fifteen rows and a few hold hundreds.
// Both sides keep every column the output reads (JoinSpec's Keep), as
// the planner lowers q20; persisted writes each change of state to a
// writer that drops it, so that the cost of building the entries counts
// and the store's does not. rows/s and cpu-ns/row count the input rows of both sides.
func BenchmarkJoinNexmark(b *testing.B) {
	for _, persisted := range []bool{false, true} {
		b.Run(fmt.Sprintf("persisted=%t", persisted), func(b *testing.B) {
			g := NewGraph()
			if persisted {
				g.Persist(discardState{})
			}
			bids, auctions := g.Input(), g.Input()
			const bw, aw = 7, 10
			bidKeep, auctionKeep := []int{0, 1, 2, 3, 4, 5}, []int{0, 1, 2, 3, 4, 5, 6, 7, 8}
			var slab RowSlab
			spec := JoinSpec{
				LeftKey: firstCol, RightKey: firstCol,
				LeftKeep: bidKeep, RightKeep: auctionKeep,
				Output: func(l, r types.Row) types.Row {
					out := slab.Row(bw + aw)
					for _, c := range bidKeep {
						out[c] = l[c]
					}
					for _, c := range auctionKeep {
						out[bw+c] = r[c]
					}
					return slab.Detach(out)
				},
			}
			g.Collect(g.Join(bids.Node(), auctions.Node(), spec))
			gen := newNexmarkJoinGen()
			ctx := context.Background()
			rows := 0
			var cpu time.Duration
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				// A tick's rows are made outside the timer: made
				// ahead for every tick, they held hundreds of MB
				// for the garbage collector to scan.
				b.StopTimer()
				bd, ad := gen.tick()
				rows += len(bd) + len(ad)
				bids.Push(bd)
				auctions.Push(ad)
				b.StartTimer()
				cpu0 := cpuTime()
				if err := g.Step(ctx); err != nil {
					b.Fatal(err)
				}
				cpu += cpuTime() - cpu0
			}
			b.StopTimer()
			b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "rows/s")
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(rows), "cpu-ns/row")
			b.ReportMetric(float64(g.StateBytes())/float64(rows), "state-bytes/row")
		})
	}
}

// nexmarkJoinGen makes the bids and auctions of BenchmarkJoinNexmark's
// ticks.
type nexmarkJoinGen struct {
	rng      *rand.Rand
	auction  int64 // the next auction's id
	ts       int64
	urls     []string
	channels []string
	text     string
}

func newNexmarkJoinGen() *nexmarkJoinGen {
	g := &nexmarkJoinGen{rng: rand.New(rand.NewPCG(1, 2)), text: strings.Repeat("abcdefghij", 40)}
	for i := range 1000 {
		g.channels = append(g.channels, fmt.Sprintf("channel-%d", i))
		g.urls = append(g.urls, fmt.Sprintf("https://www.nexmark.com/item.htm?query=1&channel_id=%d", i))
	}
	return g
}

// tick returns a tick's bids and the auctions of the category kept.
func (g *nexmarkJoinGen) tick() (bids, auctions Batch) {
	const perTick, bidsPerAuction, categories = 600, 46 / 3, 5
	for range perTick {
		id := g.auction
		g.auction++
		g.ts += 1000
		if g.rng.IntN(categories) == 0 {
			row := types.Row{types.NewInt8(id), types.NewText(g.text[:20]), types.NewText(g.text[:100]),
				types.NewInt8(100), types.NewInt8(200), types.NewTimestamp(g.ts), types.NewTimestamp(g.ts + 1e7),
				types.NewInt8(id / 7), types.NewInt8(10), types.NewText(g.text[:g.rng.IntN(400)])}
			auctions = append(auctions, Update{Row: row, Diff: 1})
		}
		for range bidsPerAuction {
			key := id / 100 * 100
			if g.rng.IntN(2) == 0 {
				key = max(id-100, 0) + g.rng.Int64N(min(id, 100)+11)
			}
			c := g.rng.IntN(len(g.urls))
			row := types.Row{types.NewInt8(key), types.NewInt8(g.rng.Int64N(10000)), types.NewInt8(g.rng.Int64N(1e6)),
				types.NewText(g.channels[c]), types.NewText(g.urls[c]), types.NewTimestamp(g.ts), types.NewText(g.text[:g.rng.IntN(100)])}
			bids = append(bids, Update{Row: row, Diff: 1})
		}
	}
	return bids, auctions
}

// firstCol keys a row by its first column, a slice of the row as the
// planner's key functions take adjacent columns.
func firstCol(r types.Row) (types.Row, bool) { return r[:1:1], !r[0].IsNull() }
