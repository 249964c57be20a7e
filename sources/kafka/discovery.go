package kafka

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// metadataResult is one metadata poll: the topic's partitions, or why
// they could not be had.
type metadataResult struct {
	partitions []int32
	topicID    [16]byte
	err        error
}

// discover polls the topic's metadata until ctx ends, every
// MetadataInterval while it succeeds and with exponential backoff (from a
// quarter of the interval up to four intervals, at most 10 s) while it
// fails. The loop picks up the latest result between polls of records.
func (r *runner) discover(ctx context.Context) {
	interval := r.src.cfg.MetadataInterval
	maxBackoff := min(4*interval, 10*time.Second)
	backoff := time.Duration(0)
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-timer.C:
		}
		res := r.loadMetadata(ctx)
		if ctx.Err() != nil {
			return
		}
		r.publish(res)
		wait := interval
		if res.err != nil {
			backoff = min(max(2*backoff, interval/4), maxBackoff)
			wait = backoff
		} else {
			backoff = 0
		}
		timer.Reset(wait)
	}
}

// publish hands res to the loop, replacing a result it has not read yet.
func (r *runner) publish(res metadataResult) {
	for {
		select {
		case r.meta <- res:
			return
		default:
			select {
			case <-r.meta:
			default:
			}
		}
	}
}

// loadMetadata asks the cluster for the topic's partitions. It asks
// directly rather than through the client's metadata cache, so that an
// unreachable cluster shows at once.
func (r *runner) loadMetadata(ctx context.Context) metadataResult {
	topic := r.src.cfg.Topic
	ctx, cancel := context.WithTimeout(ctx, max(2*r.src.cfg.MetadataInterval, 2*time.Second))
	defer cancel()
	req := kmsg.NewPtrMetadataRequest()
	rt := kmsg.NewMetadataRequestTopic()
	rt.Topic = kmsg.StringPtr(topic)
	req.Topics = append(req.Topics, rt)
	began := time.Now()
	resp, err := req.RequestWith(ctx, r.cl)
	if err != nil {
		if underlying := r.brokerErrs.Since(began); underlying != nil && ctx.Err() != nil {
			err = underlying
		}
		return metadataResult{err: fmt.Errorf("fetching metadata from %v: %w", r.src.cfg.Brokers, err)}
	}
	for _, t := range resp.Topics {
		if t.Topic == nil || *t.Topic != topic {
			continue
		}
		if err := kerr.ErrorForCode(t.ErrorCode); err != nil {
			if errors.Is(err, kerr.UnknownTopicOrPartition) {
				return metadataResult{err: fmt.Errorf("topic %q does not exist", topic)}
			}
			return metadataResult{err: fmt.Errorf("topic %q: %w", topic, err)}
		}
		res := metadataResult{partitions: make([]int32, 0, len(t.Partitions)), topicID: t.TopicID}
		for _, p := range t.Partitions {
			res.partitions = append(res.partitions, p.Partition)
		}
		slices.Sort(res.partitions)
		return res
	}
	return metadataResult{err: fmt.Errorf("topic %q does not exist", topic)}
}

// applyMetadata records the cluster's health and assigns partitions not
// yet consumed.
func (r *runner) applyMetadata(m metadataResult) {
	r.health.metadata(m.err)
	if m.err != nil || !r.checkTopicID(m.topicID) {
		return
	}
	var bounds startBounds
	if !r.started && len(r.positions) == 0 && len(r.src.cfg.StartOffsets) > 0 {
		var err error
		if bounds, err = r.listBounds(); err != nil {
			r.health.metadata(err)
			return
		}
	}
	add := make(map[int32]kgo.Offset)
	for _, p := range m.partitions {
		if r.assigned[p] {
			continue
		}
		r.assigned[p] = true
		add[p] = r.startOffset(p, bounds)
	}
	r.started = true
	if len(add) == 0 {
		return
	}
	r.src.log.Info("kafka partitions assigned", "partitions", slices.Sorted(maps.Keys(add)))
	r.cl.AddConsumePartitions(map[string]map[int32]kgo.Offset{r.src.cfg.Topic: add})
}

// startOffset is where partition p starts: its resume position, else the
// START options if the source never committed and p existed when it
// started, else the partition's beginning. A START OFFSET outside the
// partition's log (bounds) starts at the log's nearer end: the client
// never moves an offset that is out of range by itself (identity.go), and
// records before START OFFSET are skipped as they arrive (beforeStart).
func (r *runner) startOffset(p int32, bounds startBounds) kgo.Offset {
	if off, ok := r.positions[p]; ok {
		return kgo.NewOffset().At(off)
	}
	cfg := &r.src.cfg
	if !r.started && len(r.positions) == 0 {
		if cfg.StartTimestamp >= 0 {
			return kgo.NewOffset().AfterMilli(cfg.StartTimestamp)
		}
		if int(p) < len(cfg.StartOffsets) {
			off := cfg.StartOffsets[p]
			if b, ok := bounds[p]; ok && off > b[1] {
				return kgo.NewOffset().At(b[1])
			}
			if b, ok := bounds[p]; !ok || off >= b[0] {
				return kgo.NewOffset().At(off)
			}
		}
	}
	return kgo.NewOffset().AtStart()
}

// startBounds holds each partition's log start and end offsets.
type startBounds map[int32][2]int64

// listBounds asks the brokers where each partition's log starts and ends.
func (r *runner) listBounds() (startBounds, error) {
	ctx, cancel := context.WithTimeout(context.Background(), max(2*r.src.cfg.MetadataInterval, 5*time.Second))
	defer cancel()
	topic := r.src.cfg.Topic
	adm := kadm.NewClient(r.cl)
	starts, err := adm.ListStartOffsets(ctx, topic)
	if err == nil {
		err = starts.Error()
	}
	if err != nil {
		return nil, fmt.Errorf("listing the start offsets of topic %q: %w", topic, err)
	}
	ends, err := adm.ListEndOffsets(ctx, topic)
	if err == nil {
		err = ends.Error()
	}
	if err != nil {
		return nil, fmt.Errorf("listing the end offsets of topic %q: %w", topic, err)
	}
	out := startBounds{}
	starts.Each(func(o kadm.ListedOffset) {
		if e, ok := ends.Lookup(topic, o.Partition); ok {
			out[o.Partition] = [2]int64{o.Offset, e.Offset}
		}
	})
	return out, nil
}
