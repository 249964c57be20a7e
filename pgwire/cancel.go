package pgwire

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/binary"
)

// Query cancellation follows PostgreSQL: at startup each session gets a
// process ID and a random secret key (BackendKeyData). To cancel, a client
// opens a new connection and sends both in a CancelRequest; if they match a
// session, that session's running statement is cancelled. The requesting
// connection is closed without an answer either way, so a guesser learns
// nothing.

// register assigns c a process ID and secret key and makes it reachable by
// cancel requests.
func (s *Server) register(c *conn) {
	rand.Read(c.secret[:])
	s.mu.Lock()
	defer s.mu.Unlock()
	for {
		s.nextPID++
		if _, taken := s.byPID[s.nextPID]; s.nextPID != 0 && !taken {
			break
		}
	}
	c.pid = s.nextPID
	s.byPID[c.pid] = c
}

// unregister forgets c.
func (s *Server) unregister(c *conn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.byPID[c.pid] == c {
		delete(s.byPID, c.pid)
	}
}

// cancelRequest handles the body of a CancelRequest packet: request code,
// process ID, secret key.
func (s *Server) cancelRequest(body []byte) {
	if len(body) != 12 {
		return
	}
	pid := binary.BigEndian.Uint32(body[4:])
	s.mu.Lock()
	c := s.byPID[pid]
	s.mu.Unlock()
	if c == nil || subtle.ConstantTimeCompare(c.secret[:], body[8:]) != 1 {
		s.log.Debug("cancel request for unknown session", "pid", pid)
		return
	}
	c.cancel()
}
