package kafkaconn

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// BrokerErrors is a franz-go hook remembering the last failed dial or
// response read. franz-go retries such failures until the request's
// context ends, and then reports only the context's error; a stall
// reason is more useful with the failure underneath ("connection
// refused", or a broker hanging up on a SASLAuthenticate). Install it
// with kgo.WithHooks; the zero value is ready to use.
type BrokerErrors struct {
	mu   sync.Mutex
	err  error
	when time.Time
}

var (
	_ kgo.HookBrokerConnect = (*BrokerErrors)(nil)
	_ kgo.HookBrokerRead    = (*BrokerErrors)(nil)
)

// OnBrokerConnect implements kgo.HookBrokerConnect.
func (h *BrokerErrors) OnBrokerConnect(meta kgo.BrokerMetadata, _ time.Duration, _ net.Conn, err error) {
	// Failures after the dial (SASL, ApiVersions) show up as the read
	// that failed, which says more than the connection's error.
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		h.note(fmt.Errorf("connecting to %s:%d: %w", meta.Host, meta.Port, err))
	}
}

// OnBrokerRead implements kgo.HookBrokerRead.
func (h *BrokerErrors) OnBrokerRead(meta kgo.BrokerMetadata, key int16, _ int, _, _ time.Duration, err error) {
	if err != nil {
		h.note(fmt.Errorf("%s request to %s:%d failed: %w", kmsg.NameForKey(key), meta.Host, meta.Port, err))
	}
}

func (h *BrokerErrors) note(err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.err, h.when = Redact(err), time.Now()
}

// Since returns the last error noted after t, or nil.
func (h *BrokerErrors) Since(t time.Time) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.err == nil || h.when.Before(t) {
		return nil
	}
	return h.err
}

// Explain returns err, or the broker failure noted since began when err
// is only the expiry of ctx: franz-go retried that failure until ctx
// ended, and it says why the request could not be served.
func (h *BrokerErrors) Explain(err error, began time.Time) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		if underlying := h.Since(began); underlying != nil {
			return underlying
		}
	}
	return err
}
