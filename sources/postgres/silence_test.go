package postgres

import (
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/streamdb/streamdb/sources"
)

// freezer is a TCP proxy to upstream whose connections can be frozen:
// they stop carrying anything without closing, as behind a network that
// drops every packet. Connections made later work.
type freezer struct {
	l      net.Listener
	closed atomic.Bool
	mu     sync.Mutex
	pairs  []*frozenPair
}

type frozenPair struct {
	a, b   net.Conn
	frozen atomic.Bool
}

func newFreezer(t *testing.T, target string) *freezer {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f := &freezer{l: l}
	t.Cleanup(func() {
		f.closed.Store(true)
		l.Close()
		f.mu.Lock()
		for _, p := range f.pairs {
			p.a.Close()
			p.b.Close()
		}
		f.mu.Unlock()
	})
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			u, err := net.Dial("tcp", target)
			if err != nil {
				c.Close()
				continue
			}
			p := &frozenPair{a: c, b: u}
			f.mu.Lock()
			f.pairs = append(f.pairs, p)
			f.mu.Unlock()
			go f.pipe(p, c, u)
			go f.pipe(p, u, c)
		}
	}()
	return f
}

func (f *freezer) pipe(p *frozenPair, dst, src net.Conn) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		for p.frozen.Load() {
			if f.closed.Load() {
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
		if n > 0 {
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			dst.Close()
			return
		}
	}
}

// freeze freezes the connections open now, for good.
func (f *freezer) freeze() {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, p := range f.pairs {
		p.frozen.Store(true)
	}
}

func (f *freezer) port() int { return f.l.Addr().(*net.TCPAddr).Port }

// TestSilentUpstream freezes the network under a streaming source: no
// reset, no error, just silence. The source must notice within its
// silence limit, report itself stalled, and carry on over a new
// connection once upstream lets go of the slot.
func TestSilentUpstream(t *testing.T) {
	u := newUpstream(t, nil)
	// The frozen connection's walsender holds the slot until upstream
	// times it out; the source waits for that.
	u.exec(ledgerSchema, `ALTER DATABASE `+quoteIdent(u.db)+` SET wal_sender_timeout = '2s'`)
	fz := newFreezer(t, net.JoinHostPort("127.0.0.1", strconv.Itoa(u.c.Port)))
	cfg := u.config("silent", "pub")
	cfg.Connection.Port = fz.port()
	src := open(t, cfg)
	m := newModel(src.Outputs())
	start(t, src, m, nil)
	waitEqual(t, m, u, ledgerQueries)
	m.waitState(t, sources.Running)
	fz.freeze()
	reason := m.waitState(t, sources.Stalled)
	t.Logf("stalled: %s", reason)
	u.exec(`INSERT INTO ledger VALUES (9, 9, 9)`)
	m.waitState(t, sources.Running)
	waitEqual(t, m, u, ledgerQueries)
}
