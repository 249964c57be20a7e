package kafka

import (
	"context"
	"fmt"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// readCommitted calls fn for every committed record of topic, in offset
// order per partition, up to the partitions' last stable offsets at the
// time of the call. After the sink's producer has fenced its
// predecessors no transaction of the sink is open, so that is
// everything the sink ever committed.
//
// It reads with its own short-lived client (read_committed, control
// records kept: a partition's last offset is often a transaction
// marker, and seeing it is how the read knows it reached the end).
func (s *sink) readCommitted(ctx context.Context, adm *kadm.Client, topic string, fn func(*kgo.Record) error) error {
	starts, err := adm.ListStartOffsets(ctx, topic)
	if err == nil {
		err = starts.Error()
	}
	if err != nil {
		return fmt.Errorf("listing start offsets of %q: %w", topic, err)
	}
	ends, err := adm.ListCommittedOffsets(ctx, topic)
	if err == nil {
		err = ends.Error()
	}
	if err != nil {
		return fmt.Errorf("listing committed offsets of %q: %w", topic, err)
	}
	from := map[int32]kgo.Offset{}
	remaining := map[int32]int64{} // partition → last offset to read
	ends.Each(func(o kadm.ListedOffset) {
		start, _ := starts.Lookup(topic, o.Partition)
		if o.Offset > start.Offset {
			from[o.Partition] = kgo.NewOffset().At(start.Offset)
			remaining[o.Partition] = o.Offset - 1
		}
	})
	if len(remaining) == 0 {
		return nil
	}
	cl, err := kgo.NewClient(append(s.cfg.ClientOpts(s.log),
		kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{topic: from}),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()),
		kgo.KeepControlRecords(),
	)...)
	if err != nil {
		return err
	}
	defer cl.Close()
	seen := map[int32]int64{} // partition → last offset read
	for len(remaining) > 0 {
		fetches := cl.PollFetches(ctx)
		if err := ctx.Err(); err != nil {
			// A partition whose last records were compacted away never
			// shows the last offset; say where the read stopped.
			return fmt.Errorf("reading %q: %w after offsets %v of partitions ending at %v", topic, err, seen, remaining)
		}
		var ferr error
		fetches.EachError(func(t string, p int32, err error) {
			ferr = fmt.Errorf("reading %s/%d: %w", t, p, err)
		})
		if ferr != nil {
			return ferr
		}
		for it := fetches.RecordIter(); !it.Done(); {
			r := it.Next()
			last, ok := remaining[r.Partition]
			if !ok || r.Offset > last {
				continue
			}
			seen[r.Partition] = r.Offset
			if r.Offset == last {
				delete(remaining, r.Partition)
			}
			if r.Attrs.IsControl() {
				continue
			}
			if err := fn(r); err != nil {
				return err
			}
		}
	}
	return nil
}
