package kafka

import (
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// brokerErrors is a franz-go hook remembering the last failed dial or
// response read. franz-go retries such failures until the request's
// context ends, and then reports only the context's error; the stall
// reason is more useful with the failure underneath ("connection
// refused", or a broker hanging up on a SASLAuthenticate).
type brokerErrors struct {
	mu   sync.Mutex
	err  error
	when time.Time
}

var (
	_ kgo.HookBrokerConnect = (*brokerErrors)(nil)
	_ kgo.HookBrokerRead    = (*brokerErrors)(nil)
)

func (h *brokerErrors) OnBrokerConnect(meta kgo.BrokerMetadata, _ time.Duration, _ net.Conn, err error) {
	// Failures after the dial (SASL, ApiVersions) show up as the read
	// that failed, which says more than the connection's error.
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		h.note(fmt.Errorf("connecting to %s:%d: %w", meta.Host, meta.Port, err))
	}
}

func (h *brokerErrors) OnBrokerRead(meta kgo.BrokerMetadata, key int16, _ int, _, _ time.Duration, err error) {
	if err != nil {
		h.note(fmt.Errorf("%s request to %s:%d failed: %w", kmsg.NameForKey(key), meta.Host, meta.Port, err))
	}
}

func (h *brokerErrors) note(err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.err, h.when = err, time.Now()
}

// since returns the last error noted after t, or nil.
func (h *brokerErrors) since(t time.Time) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.err == nil || h.when.Before(t) {
		return nil
	}
	return h.err
}
