package postgres

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/streamdb/streamdb/sources"
	"github.com/streamdb/streamdb/types"
)

// model is a sources.Sink that applies batches to in-memory relations the
// way the engine does: upsert outputs by key, append outputs as multisets,
// with AddColumns, Truncate, OldKey and Unchanged as package sources
// documents them, and the committed positions beside. It is the engine's
// contract with the source, executed; the upstream it is compared with is
// a real PostgreSQL.
type model struct {
	mu   sync.Mutex
	cond *sync.Cond

	outputs  []sources.Output
	keyed    []map[string]types.Row // upsert outputs: key encoding → row
	multiset []map[string]*counted  // append outputs: row encoding → row and count
	progress map[string][]byte
	dead     []sources.DeadLetter
	batches  []*sources.Batch
	// anomalies are contract violations: a retraction of an absent row,
	// a row of the wrong width.
	anomalies []string

	state  sources.State
	reason string
	states []sources.State

	// fail, when set, is called before a batch is applied; an error
	// returned leaves the batch unapplied and is Emit's result, as when
	// the engine dies before committing.
	fail func(b *sources.Batch) error
	// delay, when set, is slept in each Emit, as a slow commit.
	delay time.Duration
	// hold, when set, is called in each Emit before the batch is
	// applied, outside the model's lock: a commit that takes as long as
	// the test wants.
	hold func()
}

type counted struct {
	row types.Row
	n   int64
}

func newModel(outputs []sources.Output) *model {
	m := &model{progress: make(map[string][]byte)}
	m.cond = sync.NewCond(&m.mu)
	for _, o := range outputs {
		o.Columns = slices.Clone(o.Columns)
		m.outputs = append(m.outputs, o)
		m.keyed = append(m.keyed, make(map[string]types.Row))
		m.multiset = append(m.multiset, make(map[string]*counted))
	}
	return m
}

// addOutput adds an output, as the engine does for ADD SUBSOURCE.
func (m *model) addOutput(o sources.Output) {
	m.mu.Lock()
	defer m.mu.Unlock()
	o.Columns = slices.Clone(o.Columns)
	m.outputs = append(m.outputs, o)
	m.keyed = append(m.keyed, make(map[string]types.Row))
	m.multiset = append(m.multiset, make(map[string]*counted))
}

func (m *model) Emit(ctx context.Context, b *sources.Batch) error {
	if m.hold != nil {
		m.hold()
	}
	if m.delay > 0 {
		select {
		case <-time.After(m.delay):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.fail != nil {
		if err := m.fail(b); err != nil {
			return err
		}
	}
	m.apply(b)
	m.batches = append(m.batches, b)
	m.cond.Broadcast()
	return nil
}

func (m *model) Status(s sources.State, reason string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.state, m.reason = s, reason
	m.states = append(m.states, s)
	m.cond.Broadcast()
}

func (m *model) apply(b *sources.Batch) {
	for _, ac := range b.AddColumns {
		o := &m.outputs[ac.Output]
		o.Columns = append(o.Columns, ac.Column)
		for k, row := range m.keyed[ac.Output] {
			m.keyed[ac.Output][k] = append(row, ac.Fill)
		}
		old := m.multiset[ac.Output]
		m.multiset[ac.Output] = make(map[string]*counted)
		for _, c := range old {
			c.row = append(c.row, ac.Fill)
			m.multiset[ac.Output][string(types.AppendKeyRow(nil, c.row))] = c
		}
	}
	for _, o := range b.Truncate {
		clear(m.keyed[o])
		clear(m.multiset[o])
	}
	for o, changes := range b.Changes {
		for _, c := range changes {
			m.change(o, c)
		}
	}
	m.dead = append(m.dead, b.DeadLetters...)
	maps.Copy(m.progress, b.Progress)
}

func (m *model) change(o int, c sources.Change) {
	out := &m.outputs[o]
	if c.Row != nil && len(c.Row) != len(out.Columns) {
		m.anomalies = append(m.anomalies, fmt.Sprintf("%s: row of %d columns, output has %d", out.Name, len(c.Row), len(out.Columns)))
		return
	}
	if out.Key == nil {
		k := string(types.AppendKeyRow(nil, c.Row))
		e := m.multiset[o][k]
		if e == nil {
			e = &counted{row: c.Row}
			m.multiset[o][k] = e
		}
		e.n += c.Diff
		switch {
		case e.n < 0:
			m.anomalies = append(m.anomalies, fmt.Sprintf("%s: retraction of absent row %s", out.Name, formatRow(out.Columns, c.Row)))
		case e.n == 0:
			delete(m.multiset[o], k)
		}
		return
	}
	key := string(types.AppendKeyRow(nil, c.Key))
	from := key
	if c.OldKey != nil {
		from = string(types.AppendKeyRow(nil, c.OldKey))
	}
	prev, had := m.keyed[o][from]
	if c.OldKey != nil {
		delete(m.keyed[o], from)
	}
	if c.Row == nil {
		delete(m.keyed[o], key)
		return
	}
	row := c.Row
	if len(c.Unchanged) > 0 {
		if !had {
			// Its insert was a dead letter: the row stays absent.
			return
		}
		row = slices.Clone(row)
		for _, i := range c.Unchanged {
			row[i] = prev[i]
		}
	}
	m.keyed[o][key] = row
}

// rows renders an output's rows as sorted text lines.
func (m *model) rows(name string) []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.rowsLocked(name)
}

func (m *model) rowsLocked(name string) []string {
	o := slices.IndexFunc(m.outputs, func(o sources.Output) bool { return o.Name == name })
	if o < 0 {
		panic("no output " + name)
	}
	var out []string
	cols := m.outputs[o].Columns
	for _, r := range m.keyed[o] {
		out = append(out, formatRow(cols, r))
	}
	for _, c := range m.multiset[o] {
		for range c.n {
			out = append(out, formatRow(cols, c.row))
		}
	}
	slices.Sort(out)
	return out
}

// formatRow renders a row as PostgreSQL prints it (under the settings
// the source sets upstream), NULL as \N, columns split by " | ".
func formatRow(cols []sources.Column, row types.Row) string {
	parts := make([]string, len(row))
	for i, d := range row {
		if d.IsNull() {
			parts[i] = `\N`
			continue
		}
		parts[i] = types.FormatText(d, cols[i].Type, nil)
	}
	return strings.Join(parts, " | ")
}

// waitFor waits until cond holds under the model's lock.
func (m *model) waitFor(t testing.TB, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	stop := time.AfterFunc(d, func() {
		m.mu.Lock()
		m.cond.Broadcast()
		m.mu.Unlock()
	})
	defer stop.Stop()
	m.mu.Lock()
	defer m.mu.Unlock()
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s; state %s (%s), %d batches, anomalies %v",
				what, m.state, m.reason, len(m.batches), m.anomalies)
		}
		m.cond.Wait()
	}
}

func (m *model) waitState(t testing.TB, st sources.State) string {
	t.Helper()
	m.waitFor(t, 60*time.Second, "state "+string(st), func() bool { return m.state == st })
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.reason
}

// committed returns a copy of the committed positions, as the engine
// would hand them back to Run.
func (m *model) committed() map[string][]byte {
	m.mu.Lock()
	defer m.mu.Unlock()
	return maps.Clone(m.progress)
}

func (m *model) checkAnomalies(t testing.TB) {
	t.Helper()
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.anomalies) > 0 {
		t.Fatalf("contract violations:\n%s", strings.Join(m.anomalies, "\n"))
	}
}

// deadLetters returns the dead letters so far.
func (m *model) deadLetters() []sources.DeadLetter {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.dead)
}
