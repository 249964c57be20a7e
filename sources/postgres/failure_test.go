package postgres

import (
	"context"
	"encoding/binary"
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/streamdb/streamdb/internal/pgtest"
	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/sources"
)

// TestSlotDroppedBehindOurBack drops the source's slot upstream while it
// streams: the source must stop with a message saying what was lost and
// what to do, not create a new slot and carry on with a gap.
func TestSlotDroppedBehindOurBack(t *testing.T) {
	u := newUpstream(t, nil)
	u.exec(ledgerSchema)
	src := open(t, u.config("dropped", "pub"))
	m := newModel(src.Outputs())
	r := start(t, src, m, nil)
	waitEqual(t, m, u, ledgerQueries)
	deadline := time.Now().Add(30 * time.Second)
	for u.slotExists("dropped") {
		// The source reconnects at once; terminate its walsender until
		// the drop gets in between.
		u.exec(`SELECT pg_terminate_backend(active_pid) FROM pg_replication_slots WHERE slot_name = 'dropped' AND active_pid IS NOT NULL`)
		_, _ = u.conn.Exec(context.Background(), `SELECT pg_drop_replication_slot('dropped')`)
		if time.Now().After(deadline) {
			t.Fatal("could not drop the slot")
		}
	}
	err := r.wait(t, 30*time.Second)
	if err == nil || !strings.Contains(err.Error(), `replication slot "dropped" no longer exists`) || !strings.Contains(err.Error(), "CREATE SOURCE") {
		t.Fatalf("Run returned %v", err)
	}
	if st := src.Status(); st.State != sources.Stalled || st.Reason != err.Error() {
		t.Errorf("status %s %q", st.State, st.Reason)
	}
	if u.slotExists("dropped") {
		t.Error("the source created the slot again")
	}
}

// TestUpstreamRestart stops the upstream server under a running source:
// the source reports itself stalled with the reason, retries, and once
// upstream is back resumes from its committed position.
func TestUpstreamRestart(t *testing.T) {
	if !pgtest.Available() {
		t.Skip("PostgreSQL 15 server binaries not found")
	}
	c, err := pgtest.StartCluster(clusterSettings...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Stop)
	u := newUpstream(t, c)
	u.exec(ledgerSchema)
	src := open(t, u.config("restart", "pub"))
	m := newModel(src.Outputs())
	start(t, src, m, nil)
	w := startWriter(t, u)
	time.Sleep(300 * time.Millisecond)
	w.halt(t)
	waitEqual(t, m, u, ledgerQueries)
	for range 2 {
		c.StopServer()
		reason := m.waitState(t, sources.Stalled)
		if reason == "" {
			t.Error("stalled without a reason")
		}
		t.Logf("stalled: %s", reason)
		if err := c.StartServer(); err != nil {
			t.Fatal(err)
		}
		u.reconnect()
		w = startWriter(t, u)
		m.waitState(t, sources.Running)
		time.Sleep(200 * time.Millisecond)
		w.halt(t)
		waitEqual(t, m, u, ledgerQueries)
	}
}

// TestRestoredUpstream hands the source positions an upstream restored
// from a backup or replaced by another server would produce: an LSN past
// the end of upstream's WAL, another system identifier. Both stop the
// source with an actionable error.
func TestRestoredUpstream(t *testing.T) {
	u := newUpstream(t, nil)
	u.exec(ledgerSchema)
	cfg := u.config("restored", "pub")
	src := open(t, cfg)
	m := newModel(src.Outputs())
	r := start(t, src, m, nil)
	waitEqual(t, m, u, ledgerQueries)
	if err := r.stop(); err != nil {
		t.Fatal(err)
	}
	good := m.committed()

	ahead := maps.Clone(good)
	ahead[partLSN] = binary.BigEndian.AppendUint64(nil, binary.BigEndian.Uint64(good[partLSN])+1<<32)
	other := maps.Clone(good)
	other[partState] = append([]byte(nil), good[partState]...)
	binary.BigEndian.PutUint64(other[partState][1:], 12345)
	for name, resume := range map[string]map[string][]byte{"lsn ahead": ahead, "other system": other} {
		src, err := Open(cfg, src.Tables())
		if err != nil {
			t.Fatal(err)
		}
		err = start(t, src, newModel(src.Outputs()), resume).wait(t, 30*time.Second)
		e := pgerr.As(err)
		if e == nil || e.Code != pgerr.ObjectNotInPrerequisiteState || !strings.Contains(e.Message, "DROP SOURCE and CREATE SOURCE") {
			t.Errorf("%s: Run returned %v", name, err)
		}
	}
	// The real position still works.
	u.exec(`INSERT INTO ledger VALUES (1, 2, 3)`)
	src, err := Open(cfg, src.Tables())
	if err != nil {
		t.Fatal(err)
	}
	start(t, src, m, good)
	waitEqual(t, m, u, ledgerQueries)
}

// TestPublicationLosesTable removes a table from the publication while
// the source streams: that table stalls with a message saying how to
// recover, the others go on.
func TestPublicationLosesTable(t *testing.T) {
	u := newUpstream(t, nil)
	u.exec(`CREATE TABLE kept (id int PRIMARY KEY)`, `CREATE TABLE lost (id int PRIMARY KEY)`,
		`CREATE PUBLICATION pub FOR TABLE kept, lost`)
	src := open(t, u.config("publost", "pub"))
	m := newModel(src.Outputs())
	start(t, src, m, nil)
	m.waitState(t, sources.Running)
	u.exec(`ALTER PUBLICATION pub DROP TABLE lost`, `INSERT INTO lost VALUES (1)`, `INSERT INTO kept VALUES (1)`)
	waitEqual(t, m, u, map[string]string{"kept": "SELECT * FROM kept"})
	deadline := time.Now().Add(30 * time.Second)
	for {
		st := src.Status()
		lost := st.Tables[outputIndex(src.Outputs(), "lost")]
		if strings.Contains(lost.Stalled, `publication "pub" no longer covers upstream table public.lost`) {
			if !strings.Contains(lost.Stalled, "DROP SUBSOURCE lost") || st.Tables[outputIndex(src.Outputs(), "kept")].Stalled != "" {
				t.Fatalf("table status %+v", st.Tables)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("table status %+v", st.Tables)
		}
		time.Sleep(50 * time.Millisecond)
	}
	u.exec(`INSERT INTO kept VALUES (2)`)
	waitEqual(t, m, u, map[string]string{"kept": "SELECT * FROM kept"})
	// The stall is part of the committed position: a restart knows it.
	p, err := decodePosition(m.committed())
	if err != nil {
		t.Fatal(err)
	}
	if p.tables[src.Tables()[outputIndex(src.Outputs(), "lost")].ID].stalled == "" {
		t.Error("the committed position does not record the stall")
	}
}

// TestDiscoverRefusals checks CREATE SOURCE's errors about upstream's
// setup.
func TestDiscoverRefusals(t *testing.T) {
	u := newUpstream(t, nil)
	u.exec(`CREATE TABLE a (id int PRIMARY KEY)`, `CREATE TABLE b (id int PRIMARY KEY)`,
		`CREATE PUBLICATION pub FOR TABLE a`, `CREATE PUBLICATION inserts FOR TABLE a WITH (publish = 'insert')`)
	cases := []struct {
		name string
		edit func(*Config)
		code pgerr.Code
		text string
	}{
		{"no publication", func(c *Config) { c.Publication = "nope" }, pgerr.UndefinedObject, `publication "nope" does not exist`},
		{"insert only", func(c *Config) { c.Publication = "inserts" }, pgerr.ObjectNotInPrerequisiteState, "every kind of change"},
		{"table not covered", func(c *Config) { c.AllTables, c.Tables = false, []TableRef{{Name: "b"}} }, pgerr.ObjectNotInPrerequisiteState, "does not cover table public.b"},
		{"duplicate names", func(c *Config) { c.AllTables, c.Tables = false, []TableRef{{Name: "a"}, {Name: "a"}} }, pgerr.DuplicateTable, "would both become"},
		{"bad slot", func(c *Config) { c.Slot = "Bad-Slot" }, pgerr.InvalidParameterValue, "invalid replication slot name"},
		{"no selection", func(c *Config) { c.AllTables = false }, pgerr.SyntaxError, "exactly one of"},
		{"unreachable", func(c *Config) { c.Connection.Port = 1 }, pgerr.ConnectionException, "connecting to upstream"},
		{"unknown database", func(c *Config) { c.Connection.Database = "nope" }, "3D000", `database "nope" does not exist`},
		{"bad ssl mode", func(c *Config) { c.Connection.SSLMode = "prefer" }, pgerr.InvalidParameterValue, "invalid SSL MODE"},
		{"ssl required", func(c *Config) { c.Connection.SSLMode = "require" }, pgerr.ConnectionException, "connecting to upstream"},
	}
	for _, tc := range cases {
		cfg := u.config("refusals", "pub")
		tc.edit(&cfg)
		_, err := Discover(context.Background(), cfg)
		e := pgerr.As(err)
		if e == nil || e.Code != tc.code || !strings.Contains(e.Message, tc.text) {
			t.Errorf("%s: %v (%s), want %s containing %q", tc.name, err, pgerr.CodeOf(err), tc.code, tc.text)
		}
	}
	tables, err := Discover(context.Background(), func() Config {
		c := u.config("refusals", "pub")
		c.AllTables, c.Tables = false, []TableRef{{Schema: "public", Name: "a", As: "renamed"}}
		return c
	}())
	if err != nil || tables[0].Output.Name != "renamed" {
		t.Errorf("FOR TABLES (public.a AS renamed): %v %+v", err, tables)
	}
}
