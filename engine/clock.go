package engine

import (
	"fmt"
	"time"
)

// heartbeatInterval is how often the coordinator tells every change feed
// how far the clock has come, with a tick of its own when nothing else
// ticked meanwhile: an idle view's subscribers see progress at least this
// often, so that an idle view never looks like a stuck one.
const heartbeatInterval = 500 * time.Millisecond

// heartbeat runs between ticks every heartbeatInterval. When no tick has
// run since the last heartbeat it advances the clock with an empty tick,
// whose timestamp it stores (without waiting for the disk: a later tick
// never reuses a time a feed has already reported, since the clock is
// the wall clock's milliseconds and at least the stored time). It then
// reports the time to every change feed, forgets history past its window
// and trims the sinks' history.
func (e *Engine) heartbeat(ticked bool) error {
	if !ticked {
		ts := e.nextTS()
		batch := e.store.NewBatch()
		batch.SetMeta("ts", tsValue(ts))
		e.trimSinkHistory(batch)
		if err := batch.CommitUnsynced(); err != nil {
			return fmt.Errorf("commit clock tick: %w", err)
		}
		e.ts = ts
		e.publish()
	}
	e.hist.trim(time.Now())
	e.heartbeatSubscriptions()
	return nil
}
