package kafka

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/streamdb/streamdb/internal/kafkaconn"
	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/sinks"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

// ErrFenced is returned by Run when another instance of the sink (the
// same id) took over its transactional id (sinks.ErrFenced).
var ErrFenced = sinks.ErrFenced

// conn is one transactional producer of the sink, with the progress it
// found when it started. A conn that failed is closed and replaced: a
// new producer's initialization fences the old one and aborts whatever
// transaction it left open, which is simpler and safer than recovering
// a producer in an unknown transaction state.
type conn struct {
	cl   *kgo.Client
	adm  *kadm.Client
	errs *kafkaconn.BrokerErrors
	// committed is the time of the sink's last committed tick, when ok.
	committed uint64
	ok        bool
}

// connect builds a producer, makes sure both topics exist, fences every
// earlier producer of the sink, and reads the sink's progress.
func (s *sink) connect(ctx context.Context) (*conn, error) {
	errs := new(kafkaconn.BrokerErrors)
	cl, err := kgo.NewClient(append(s.cfg.ClientOpts(s.log),
		kgo.WithHooks(errs),
		kgo.TransactionalID(s.transactionalID()),
		kgo.TransactionTimeout(s.cfg.TransactionTimeout),
		kgo.RecordPartitioner(kgo.StickyKeyPartitioner(nil)),
		kgo.RecordDeliveryTimeout(s.cfg.Timeout),
		kgo.ProducerLinger(0),
		kgo.MaxBufferedRecords(64<<10),
		kgo.MaxBufferedBytes(64<<20),
	)...)
	if err != nil {
		return nil, pgerr.Wrap(err, pgerr.InvalidParameterValue, "invalid kafka client configuration: %v", err)
	}
	c := &conn{cl: cl, adm: kadm.NewClient(cl), errs: errs}
	began := time.Now()
	ctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	defer cancel()
	if err := s.ensureTopics(ctx, c); err != nil {
		c.close()
		return nil, errs.Explain(err, began)
	}
	if _, _, err := cl.ProducerID(ctx); err != nil {
		c.close()
		return nil, errs.Explain(fmt.Errorf("initializing the transactional producer: %w", err), began)
	}
	if c.committed, c.ok, err = s.readProgress(ctx, c.adm); err != nil {
		c.close()
		return nil, errs.Explain(fmt.Errorf("reading progress: %w", err), began)
	}
	return c, nil
}

func (c *conn) close() { c.cl.Close() }

// commit writes recs and the progress record for time t in one
// transaction. recs must not have been produced before (see
// recordBatch.abandon).
func (s *sink) commit(ctx context.Context, c *conn, recs []kgo.Record, t uint64) error {
	began := time.Now()
	if err := c.cl.BeginTransaction(); err != nil {
		return err
	}
	var (
		mu       sync.Mutex
		firstErr error
	)
	promise := func(_ *kgo.Record, err error) {
		if err != nil {
			mu.Lock()
			if firstErr == nil {
				firstErr = err
			}
			mu.Unlock()
		}
	}
	for i := range recs {
		c.cl.Produce(ctx, &recs[i], promise)
	}
	c.cl.Produce(ctx, s.progressRecord(t), promise)
	fctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	defer cancel()
	if err := c.cl.Flush(fctx); err != nil {
		return c.errs.Explain(fmt.Errorf("delivering the transaction: %w", err), began)
	}
	mu.Lock()
	err := firstErr
	mu.Unlock()
	if err != nil {
		return c.errs.Explain(fmt.Errorf("delivering the transaction: %w", err), began)
	}
	if s.hooks != nil && s.hooks.beforeCommit != nil {
		s.hooks.beforeCommit()
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	ectx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	defer cancel()
	if err := c.cl.EndTransaction(ectx, kgo.TryCommit); err != nil {
		return c.errs.Explain(fmt.Errorf("committing the transaction: %w", err), began)
	}
	return nil
}

// fenced reports whether err says another producer with the sink's
// transactional id took over.
func fenced(err error) bool {
	return errors.Is(err, kerr.ProducerFenced) || errors.Is(err, kerr.InvalidProducerEpoch)
}
