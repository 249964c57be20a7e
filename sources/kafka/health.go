package kafka

import (
	"time"

	"github.com/streamdb/streamdb/internal/kafkaconn"
	"github.com/streamdb/streamdb/sources"
)

// health tracks whether the source can make progress, from the metadata
// polls (is the cluster reachable, does the topic exist, are we allowed
// in) and from the errors the client reports while fetching.
type health struct {
	// lost is why the source stopped reading for good (stopReading).
	lost       error
	metaErr    error
	fetchErr   error
	fetchErrAt time.Time

	reported sources.State
	reason   string
}

// The errors are redacted (kafkaconn.Redact): they become the reason
// SHOW SOURCES shows.
func (h *health) metadata(err error) { h.metaErr = kafkaconn.Redact(err) }

func (h *health) fetchFailed(err error) {
	h.fetchErr = kafkaconn.Redact(err)
	h.fetchErrAt = time.Now()
}

// fetched clears a fetch error once records flow again.
func (h *health) fetched() { h.fetchErr = nil }

// state is the state to report: stalled while metadata fails or a fetch
// error is recent (the client repeats persistent ones), running once the
// first metadata load assigned the partitions.
func (h *health) state(started bool, quiet time.Duration) (sources.State, string) {
	switch {
	case h.lost != nil:
		return sources.Stalled, h.lost.Error()
	case h.metaErr != nil:
		return sources.Stalled, h.metaErr.Error()
	case h.fetchErr != nil && time.Since(h.fetchErrAt) < quiet:
		return sources.Stalled, h.fetchErr.Error()
	case !started:
		return sources.Starting, ""
	}
	return sources.Running, ""
}

// reportStatus tells the sink about state changes, and only about those.
func (r *runner) reportStatus() {
	state, reason := r.health.state(r.started, 2*r.src.cfg.MetadataInterval)
	if state == r.health.reported && reason == r.health.reason {
		return
	}
	r.health.reported, r.health.reason = state, reason
	if state == sources.Stalled {
		r.src.log.Warn("kafka source stalled", "reason", reason)
	} else {
		r.src.log.Info("kafka source state", "state", string(state))
	}
	r.sink.Status(state, reason)
}
