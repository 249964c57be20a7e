package kafka

import (
	"context"
	"strconv"
	"time"

	"github.com/streamdb/streamdb/sources"
	"github.com/twmb/franz-go/pkg/kgo"
)

// Headers of a record produced to the dead letter topic, besides the
// original record's own headers.
const (
	headerError     = "streamdb.error"
	headerTopic     = "streamdb.topic"
	headerPartition = "streamdb.partition"
	headerOffset    = "streamdb.offset"
)

// deadLetter produces a record that failed to decode to the dead letter
// topic, if there is one: the original key, value and headers, plus
// headers naming the error and where the record came from. Production is
// asynchronous and best effort (at least once: a record whose batch is
// not committed before a crash is produced again after the restart); a
// full buffer or a failed delivery is logged, never allowed to stall
// ingestion. The dead letter relation the engine keeps is the
// authoritative record.
func (r *runner) deadLetter(rec *kgo.Record, dl sources.DeadLetter) {
	topic := r.src.cfg.DeadLetterTopic
	if topic == "" {
		return
	}
	headers := make([]kgo.RecordHeader, 0, len(rec.Headers)+4)
	for _, h := range rec.Headers {
		headers = append(headers, kgo.RecordHeader{Key: h.Key, Value: append([]byte(nil), h.Value...)})
	}
	headers = append(headers,
		kgo.RecordHeader{Key: headerError, Value: []byte(dl.Err)},
		kgo.RecordHeader{Key: headerTopic, Value: []byte(rec.Topic)},
		kgo.RecordHeader{Key: headerPartition, Value: []byte(dl.Partition)},
		kgo.RecordHeader{Key: headerOffset, Value: strconv.AppendInt(nil, dl.Offset, 10)},
	)
	out := &kgo.Record{Topic: topic, Key: dl.Key, Value: dl.Value, Headers: headers, Timestamp: rec.Timestamp}
	// The delivery timeout bounds it, not Run's context, so that the
	// flush at the end of Run can still deliver.
	r.cl.TryProduce(context.Background(), out, func(_ *kgo.Record, err error) {
		if err != nil {
			r.deadLetterFailed(topic, dl, err)
		}
	})
}

// deadLetterLogEvery spaces out the warnings about failed dead letter
// deliveries: with the topic gone, every bad record would fail.
const deadLetterLogEvery = 10 * time.Second

// deadLetterFailed counts a failed delivery and logs it, at most once per
// deadLetterLogEvery. It runs on franz-go's goroutines.
func (r *runner) deadLetterFailed(topic string, dl sources.DeadLetter, err error) {
	n := r.deadLetterFailures.Add(1)
	now := time.Now().UnixNano()
	last := r.deadLetterLogged.Load()
	if now-last < int64(deadLetterLogEvery) || !r.deadLetterLogged.CompareAndSwap(last, now) {
		return
	}
	r.src.log.Warn("kafka dead letter not produced", "dead_letter_topic", topic,
		"partition", dl.Partition, "offset", dl.Offset, "err", err, "failures_total", n)
}

// flushDeadLetters waits briefly for dead letters still in flight when Run
// ends.
func (r *runner) flushDeadLetters() {
	if r.src.cfg.DeadLetterTopic == "" {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := r.cl.Flush(ctx); err != nil {
		r.src.log.Warn("kafka dead letters not flushed", "err", err)
	}
}
