package postgres

import (
	"context"
	"errors"
	"net"
	"strings"
	"sync/atomic"
	"testing"
)

// TestDialThroughConnection checks that every upstream socket, the
// discovery's and the replication stream's alike, is opened by the
// connection's Dial (the server's egress policy), and that a refusal
// there is what the caller gets back.
func TestDialThroughConnection(t *testing.T) {
	u := newUpstream(t, nil)
	u.exec(`CREATE TABLE a (id int PRIMARY KEY, v text)`, `CREATE PUBLICATION pub FOR ALL TABLES`, `INSERT INTO a VALUES (1, 'x')`)

	var dials atomic.Int32
	cfg := u.config("dial", "pub")
	cfg.Connection.Dial = func(ctx context.Context, network, address string) (net.Conn, error) {
		dials.Add(1)
		var d net.Dialer
		return d.DialContext(ctx, network, address)
	}
	src := open(t, cfg)
	afterDiscovery := dials.Load()
	if afterDiscovery == 0 {
		t.Fatal("discovery connected without the connection's Dial")
	}
	m := newModel(src.Outputs())
	start(t, src, m, nil)
	waitEqual(t, m, u, map[string]string{"a": `SELECT id, v FROM a`})
	if dials.Load() <= afterDiscovery {
		t.Error("the snapshot and stream connected without the connection's Dial")
	}

	refused := errors.New("egress refused")
	cfg = u.config("dial_refused", "pub")
	cfg.Connection.Dial = func(context.Context, string, string) (net.Conn, error) { return nil, refused }
	if _, err := New(context.Background(), cfg); err == nil || !strings.Contains(err.Error(), refused.Error()) {
		t.Errorf("New with a refusing Dial: %v, want the refusal", err)
	}
}
