package engine

import (
	"testing"

	"github.com/streamdb/streamdb/sources"
)

// TestReplayable: a tick commits without waiting for the disk only when
// every request in it is a replayable source batch.
func TestReplayable(t *testing.T) {
	replay := &coordReq{source: &runningSource{}, batch: &sources.Batch{Replayable: true}}
	kafka := &coordReq{source: &runningSource{}, batch: &sources.Batch{}}
	write := &coordReq{writes: &WriteSet{}}
	for _, tc := range []struct {
		name string
		reqs []*coordReq
		want bool
	}{
		{"replayable batches", []*coordReq{replay, replay}, true},
		{"with another source's batch", []*coordReq{replay, kafka}, false},
		{"with a client's write", []*coordReq{write, replay}, false},
		{"a client's write", []*coordReq{write}, false},
	} {
		if got := replayable(tc.reqs); got != tc.want {
			t.Errorf("%s: replayable = %v, want %v", tc.name, got, tc.want)
		}
	}
}
