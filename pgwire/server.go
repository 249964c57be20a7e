package pgwire

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"errors"
	"log/slog"
	"net"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// Config configures a Server.
type Config struct {
	// Listen is the TCP address to listen on, such as "127.0.0.1:6875";
	// port 0 picks a free port (see Server.Addr).
	Listen string
	Engine Engine
	// Logger receives connection-level events and internal errors; nil
	// discards them.
	Logger *slog.Logger
	// TLS enables SSL: with it, an SSLRequest is answered 'S' and the
	// connection upgraded; without it, 'N'.
	TLS *tls.Config
	// Auth is the authentication policy; the zero value trusts everyone.
	Auth AuthConfig
	// Roles looks up the role a client names; see Roles for nil.
	Roles Roles
	// MaxConnections bounds the clients connected at once, counted from
	// their StartupMessage (authenticating or not) until they leave; one
	// more is refused with 53300 "sorry, too many clients already", while
	// CancelRequests are still served. Zero means 100, PostgreSQL's
	// max_connections.
	MaxConnections int
	// MaxMessageSize bounds a client message body; a larger length prefix
	// closes the connection. Zero means 64 MiB.
	MaxMessageSize int
	// AuthTimeout bounds the startup handshake. Zero means one minute,
	// PostgreSQL's authentication_timeout.
	AuthTimeout time.Duration
}

// Server accepts PostgreSQL clients and serves each on its own goroutine.
type Server struct {
	cfg   Config
	log   *slog.Logger
	ready chan struct{}
	addr  net.Addr // set before ready is closed

	// cbind is the tls-server-end-point data of the certificate, nil
	// without TLS or when channel binding is not offered.
	cbind     []byte
	mockNonce []byte
	// kdf rations cleartext password checks, which run PBKDF2.
	kdf chan struct{}

	mu       sync.Mutex
	live     map[*conn]struct{}
	byPID    map[uint32]*conn // sessions that may be cancelled
	nextPID  uint32
	admitted int // connections counted against MaxConnections
	closing  bool
	wg       sync.WaitGroup

	// streaming counts the live results being streamed (see live.go).
	streaming atomic.Int64
}

// NewServer returns a server for cfg. It does nothing until Run or Serve.
func NewServer(cfg Config) *Server {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.MaxMessageSize <= 0 {
		cfg.MaxMessageSize = 64 << 20
	}
	if cfg.AuthTimeout <= 0 {
		cfg.AuthTimeout = time.Minute
	}
	if cfg.MaxConnections <= 0 {
		cfg.MaxConnections = 100
	}
	if cfg.Auth.FailureDelay == 0 {
		cfg.Auth.FailureDelay = time.Second
	}
	nonce := cfg.Auth.MockNonce
	if nonce == nil {
		nonce = make([]byte, 32)
		rand.Read(nonce)
	}
	return &Server{
		cfg:       cfg,
		log:       cfg.Logger,
		ready:     make(chan struct{}),
		live:      make(map[*conn]struct{}),
		byPID:     make(map[uint32]*conn),
		cbind:     endPoint(cfg.TLS),
		mockNonce: nonce,
		kdf:       make(chan struct{}, max(1, runtime.GOMAXPROCS(0)/2)),
	}
}

// Run listens on cfg.Listen and serves until ctx is done; see Serve.
func (s *Server) Run(ctx context.Context) error {
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", s.cfg.Listen)
	if err != nil {
		return err
	}
	return s.Serve(ctx, ln)
}

// Ready is closed once the server is listening.
func (s *Server) Ready() <-chan struct{} { return s.ready }

// Addr returns the address the server listens on; nil before Ready.
func (s *Server) Addr() net.Addr {
	select {
	case <-s.ready:
		return s.addr
	default:
		return nil
	}
}

// Serve accepts connections on ln until ctx is done. Then it closes ln,
// ends every connection (a running statement is cancelled; each client
// gets FATAL 57P01 "terminating connection due to administrator command")
// and returns nil once all are closed. It returns an error if accepting
// fails for a reason other than shutdown. A Server serves once.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	s.addr = ln.Addr()
	close(s.ready)
	s.log.Info("listening", "addr", s.addr.String())

	// Connections outlive ctx: shutdown ends each one itself, with
	// errAdminShutdown as the cause.
	connCtx := context.WithoutCancel(ctx)
	acceptDone := make(chan struct{})
	defer close(acceptDone)
	go func() {
		select {
		case <-ctx.Done():
		case <-acceptDone:
		}
		ln.Close()
	}()

	err := s.acceptLoop(ctx, connCtx, ln)
	s.shutdown()
	s.wg.Wait()
	return err
}

func (s *Server) acceptLoop(ctx, connCtx context.Context, ln net.Listener) error {
	var backoff time.Duration
	for {
		nc, err := ln.Accept()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			if errors.Is(err, net.ErrClosed) {
				return err
			}
			// Out of file descriptors and the like: wait and retry, as
			// net/http does.
			backoff = min(max(2*backoff, 5*time.Millisecond), time.Second)
			s.log.Warn("accept failed", "err", err, "retry_in", backoff)
			time.Sleep(backoff)
			continue
		}
		backoff = 0
		if !s.start(connCtx, nc) {
			nc.Close()
		}
	}
}

// start launches the goroutine that serves nc; false when shutting down.
func (s *Server) start(ctx context.Context, nc net.Conn) bool {
	ctx, stop := context.WithCancelCause(ctx)
	c := s.newConn(nc, stop)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing {
		stop(nil)
		return false
	}
	s.live[c] = struct{}{}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer stop(nil)
		defer s.forget(c)
		c.serve(ctx)
	}()
	return true
}

// newConn prepares the state of a connection; stop cancels its context.
func (s *Server) newConn(nc net.Conn, stop context.CancelCauseFunc) *conn {
	return &conn{
		srv:     s,
		nc:      nc,
		r:       newMsgReader(nc, s.cfg.MaxMessageSize),
		w:       newWriter(nc),
		log:     s.log.With("remote_addr", nc.RemoteAddr().String()),
		stmts:   make(map[string]*prepared),
		portals: make(map[string]*portal),
		stop:    stop,
	}
}

// forget removes c from the set of live connections.
func (s *Server) forget(c *conn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.live, c)
	if c.admitted {
		s.admitted--
	}
}

// admit counts c against MaxConnections; false when the server is full.
func (s *Server) admit(c *conn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.admitted >= s.cfg.MaxConnections {
		return false
	}
	s.admitted++
	c.admitted = true
	return true
}

// shutdown ends every live connection.
func (s *Server) shutdown() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closing = true
	for c := range s.live {
		c.shutdown()
	}
}
