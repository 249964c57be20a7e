package kafka

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// A progress record says that every tick up to a time is in the data
// topic. The sink writes one in every transaction, so it commits or
// aborts with the data it vouches for. Its key names the sink (the
// progress topic is shared by the sinks of a connection and compacted to
// each one's last record); its value is {"version": 1, "timestamp": t}.
type progress struct {
	Version   int    `json:"version"`
	Timestamp uint64 `json:"timestamp"`
}

// progressVersion is the progress value's layout version.
const progressVersion = 1

// progressKey is the sink's key in the progress topic.
func (s *sink) progressKey() []byte { return []byte("streamdb-sink-" + s.cfg.ID) }

// transactionalID is the sink's transactional id: the same across
// restarts, so that a new instance fences the old one.
func (s *sink) transactionalID() string { return "streamdb-sink-" + s.cfg.ID }

// progressRecord is the record committing ticks up to t.
func (s *sink) progressRecord(t uint64) *kgo.Record {
	v := strconv.AppendUint([]byte(`{"version":1,"timestamp":`), t, 10)
	return &kgo.Record{Topic: s.cfg.ProgressTopic, Key: s.progressKey(), Value: append(v, '}')}
}

// readProgress returns the time of the sink's last committed tick; ok is
// false when it has never committed.
func (s *sink) readProgress(ctx context.Context, adm *kadm.Client) (t uint64, ok bool, err error) {
	key := string(s.progressKey())
	err = s.readCommitted(ctx, adm, s.cfg.ProgressTopic, func(r *kgo.Record) error {
		if string(r.Key) != key {
			return nil
		}
		if r.Value == nil { // a tombstone: the sink's progress was reset
			t, ok = 0, false
			return nil
		}
		var p progress
		if err := json.Unmarshal(r.Value, &p); err != nil || p.Version != progressVersion {
			return fmt.Errorf("progress record at %s/%d@%d is not a version %d progress record: %q", r.Topic, r.Partition, r.Offset, progressVersion, r.Value)
		}
		t, ok = p.Timestamp, true
		return nil
	})
	return t, ok, err
}
