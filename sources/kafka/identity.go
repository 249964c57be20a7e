package kafka

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

// A source's positions are offsets, and an offset means something only
// in the topic it was read from. When the topic is deleted and created
// again (or an in-memory broker restarts and creates it anew), the same
// offsets name other records; when a broker loses records it had
// acknowledged, it hands their offsets out again. Reading on by offset
// would then skip records or read records twice, silently. So a source
// remembers its topic's identity (Kafka's topic ID, stored with its
// positions) and checks it in every metadata poll and every fetch, and
// its client never moves a partition on its own when an offset is out of
// range (kgo.NoResetOffset): the broker saying so means the log lost or
// deleted records. In either case the source stops reading and stalls
// with what happened and how to go on: ALTER SOURCE … RESET, which
// starts it over on the topic as it is now, or recreating it. It never
// goes on by itself, since only the user knows whether the new records
// repeat the old ones.

// stateTopicID is the resume state holding the topic's ID (16 bytes).
const stateTopicID = "topic_id"

// noTopicID is the ID of a topic whose broker does not report one.
var noTopicID [16]byte

func topicIDText(id [16]byte) string { return hex.EncodeToString(id[:]) }

// checkTopicID compares a topic ID the brokers report with the one the
// source read from, adopting the first it sees, and stops reading when
// they differ.
func (r *runner) checkTopicID(id [16]byte) bool {
	switch {
	case id == noTopicID || r.lost != nil:
		return r.lost == nil
	case r.topicID == noTopicID:
		r.topicID, r.topicIDNew = id, true
		return true
	case id == r.topicID:
		return true
	}
	cfg := &r.src.cfg
	r.stopReading(fmt.Errorf("topic %q is not the topic this source read: its topic ID is %s, not %s (the topic was deleted and created again, or the broker restarted without it); streamdb stopped reading it rather than skip or repeat records by their offsets. %s",
		cfg.Topic, topicIDText(id), topicIDText(r.topicID), r.howToGoOn()))
	return false
}

// howToGoOn is the remedy every stop of reading names.
func (r *runner) howToGoOn() string {
	name := r.src.cfg.Name
	if name == "" {
		name = "…"
	}
	return fmt.Sprintf("ALTER SOURCE %s RESET reads the topic as it is now from its beginning, keeping the rows already ingested; or drop the source and create it again", name)
}

// offsetLost stops reading after the brokers said that a partition's
// position is no longer in its log: err is the fetch error, an offset
// out of range or the client's report of lost data.
func (r *runner) offsetLost(ctx context.Context, partition int32, err error) {
	cfg := &r.src.cfg
	var dl *kgo.ErrDataLoss
	if errors.As(err, &dl) {
		r.stopReading(fmt.Errorf("partition %d of topic %q lost records: this source had read up to offset %d and the log now ends at %d (the broker lost records it had acknowledged, or the topic was created again); streamdb stopped reading rather than skip or repeat records. %s",
			partition, cfg.Topic, dl.ConsumedTo, dl.ResetTo, r.howToGoOn()))
		return
	}
	at := r.read[partition]
	lctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	adm := kadm.NewClient(r.cl)
	starts, serr := adm.ListStartOffsets(lctx, cfg.Topic)
	ends, eerr := adm.ListEndOffsets(lctx, cfg.Topic)
	start, sok := starts.Lookup(cfg.Topic, partition)
	end, eok := ends.Lookup(cfg.Topic, partition)
	switch {
	case serr == nil && eerr == nil && sok && eok && end.Offset < at:
		r.stopReading(fmt.Errorf("partition %d of topic %q ends at offset %d, before offset %d that this source has read up to: the broker lost records it had acknowledged, or the topic was created again; streamdb stopped reading rather than skip or repeat records. %s",
			partition, cfg.Topic, end.Offset, at, r.howToGoOn()))
	case serr == nil && eerr == nil && sok && eok && start.Offset > at:
		r.stopReading(fmt.Errorf("partition %d of topic %q starts at offset %d, after offset %d that this source has read up to: records were deleted (by retention) before this source read them; streamdb stopped reading rather than skip them silently. %s",
			partition, cfg.Topic, start.Offset, at, r.howToGoOn()))
	default:
		r.stopReading(fmt.Errorf("partition %d of topic %q no longer holds offset %d that this source has read up to (%v); streamdb stopped reading rather than skip or repeat records. %s",
			partition, cfg.Topic, at, err, r.howToGoOn()))
	}
}

// stopReading stops the source for good (until ALTER SOURCE … RESET
// replaces it): the batch not yet emitted is dropped, fetching stops,
// and the source reports itself stalled with reason.
func (r *runner) stopReading(reason error) {
	if r.lost != nil {
		return
	}
	r.lost = reason
	r.health.lost = reason
	r.batch.take()
	r.cl.PauseFetchTopics(r.src.cfg.Topic)
	r.src.log.Error("kafka source stopped reading", "err", reason)
}

// isOffsetOutOfRange reports whether a fetch error says a partition's
// position is outside its log, or that the client found lost records.
func isOffsetOutOfRange(err error) bool {
	return errors.Is(err, kerr.OffsetOutOfRange) || isDataLoss(err)
}
