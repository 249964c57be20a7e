package kafka

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/streamdb/streamdb/sinks"
	"github.com/twmb/franz-go/pkg/kgo"
)

// topicState is what a consumer applying the data topic's committed
// records holds, in the sink's envelope: the latest value (UPSERT) or
// after-image (DEBEZIUM with a KEY) per record key, or the multiset of
// rows (DEBEZIUM without a KEY). Keys and rows are their encoded bytes,
// which the sink's encoding makes a function of the SQL value.
type topicState struct {
	latest map[string][]byte
	rows   map[string]int64
}

func newTopicState() *topicState {
	return &topicState{latest: map[string][]byte{}, rows: map[string]int64{}}
}

// stateKey is a record key as a map key: the null key differs from the
// empty one.
func stateKey(key []byte) string {
	if key == nil {
		return "\x00"
	}
	return "\x01" + string(key)
}

// debeziumValue is the part of a DEBEZIUM value the state needs.
type debeziumValue struct {
	Before json.RawMessage `json:"before"`
	After  json.RawMessage `json:"after"`
}

// apply folds one record of the data topic into the state.
func (s *topicState) apply(e *envelope, r *kgo.Record) error {
	if e.kind == EnvelopeUpsert {
		if r.Value == nil {
			delete(s.latest, stateKey(r.Key))
		} else {
			s.latest[stateKey(r.Key)] = r.Value
		}
		return nil
	}
	var v debeziumValue
	if err := json.Unmarshal(r.Value, &v); err != nil {
		return fmt.Errorf("record at %s/%d@%d is not a DEBEZIUM value: %w", r.Topic, r.Partition, r.Offset, err)
	}
	before, after := nullable(v.Before), nullable(v.After)
	if e.keyed {
		if after == nil {
			delete(s.latest, stateKey(r.Key))
		} else {
			s.latest[stateKey(r.Key)] = after
		}
		return nil
	}
	if before != nil {
		s.rows[string(before)]--
	}
	if after != nil {
		s.rows[string(after)]++
	}
	return nil
}

func nullable(raw json.RawMessage) []byte {
	if raw == nil || string(raw) == "null" {
		return nil
	}
	return raw
}

// appendSnapshotDiff appends the records that take a consumer from the
// topic's state s to the relation's snapshot: for each key whose value
// differs, the snapshot's value (for a key the snapshot holds several
// times, the one a consumer of the zipped pairs ends with: the last
// insertion); for each key the snapshot lacks, a deletion. Without a KEY
// it inserts and deletes rows to even out the two multisets.
func (e *envelope) appendSnapshotDiff(b *recordBatch, snapshot []sinks.Change, s *topicState) {
	if !e.keyed {
		e.appendMultisetDiff(b, snapshot, s)
		return
	}
	e.groupByKey(b, snapshot)
	seen := make(map[string]bool, len(e.entries))
	for g := range e.groups() {
		k := stateKey(g[0].key)
		seen[k] = true
		row := g[len(g)-1].row
		var want []byte // nil: the key should be absent
		if e.kind == EnvelopeDebezium {
			want = b.take(e.enc.appendObject(b.buf(), row), true)
		} else {
			want = e.appendRow(b, row)
		}
		have, ok := s.latest[k]
		if want == nil && !ok || want != nil && ok && bytes.Equal(have, want) {
			continue
		}
		if e.kind == EnvelopeDebezium {
			b.add(g[0].key, e.appendDebeziumRaw(b, have, want))
		} else {
			b.add(g[0].key, want)
		}
	}
	gone := make([]string, 0)
	for k := range s.latest {
		if !seen[k] {
			gone = append(gone, k)
		}
	}
	slices.Sort(gone)
	for _, k := range gone {
		var key []byte
		if k[0] == 1 {
			key = []byte(k[1:])
		}
		var value []byte
		if e.kind == EnvelopeDebezium {
			value = e.appendDebeziumRaw(b, s.latest[k], nil)
		}
		b.add(key, value)
	}
}

// appendMultisetDiff evens out the topic's rows and the snapshot's, for
// DEBEZIUM without a KEY.
func (e *envelope) appendMultisetDiff(b *recordBatch, snapshot []sinks.Change, s *topicState) {
	delta := make(map[string]int64, len(snapshot)+len(s.rows))
	for k, n := range s.rows {
		delta[k] -= n
	}
	for _, c := range snapshot {
		delta[string(e.enc.appendObject(nil, c.Row))] += c.Diff
	}
	rows := make([]string, 0, len(delta))
	for k, n := range delta {
		if n != 0 {
			rows = append(rows, k)
		}
	}
	slices.Sort(rows)
	for _, row := range rows {
		n := delta[row]
		var value []byte
		if n < 0 {
			value = e.appendDebeziumRaw(b, []byte(row), nil)
		} else {
			value = e.appendDebeziumRaw(b, nil, []byte(row))
		}
		for range abs(n) {
			b.add(nil, value)
		}
	}
}

// appendDebeziumRaw is appendDebezium for rows already encoded.
func (e *envelope) appendDebeziumRaw(b *recordBatch, before, after []byte) []byte {
	buf := append(b.buf(), `{"before":`...)
	buf = appendRawOrNull(buf, before)
	buf = append(buf, `,"after":`...)
	buf = appendRawOrNull(buf, after)
	return b.take(append(buf, '}'), true)
}

func appendRawOrNull(dst, raw []byte) []byte {
	if raw == nil {
		return append(dst, "null"...)
	}
	return append(dst, raw...)
}
