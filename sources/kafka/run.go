package kafka

import (
	"context"
	"errors"
	"maps"
	"math"
	"sync/atomic"
	"time"

	"github.com/streamdb/streamdb/internal/kafkaconn"
	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/sources"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

const (
	// batchLinger is how long a batch gathers records before it is
	// emitted short of its size limits.
	batchLinger = 50 * time.Millisecond
	// idlePoll bounds a wait for records, so that metadata results and
	// status changes are handled while the topic is quiet.
	idlePoll = 250 * time.Millisecond
	// deadLetterTimeout bounds delivery to the dead letter topic.
	deadLetterTimeout = 30 * time.Second
)

// runner is one Run of a source: the consume loop's state. Only the loop
// goroutine touches it, apart from the metadata channel the discovery
// goroutine feeds.
type runner struct {
	src   *source
	cl    *kgo.Client
	sink  sources.Sink
	dec   *recordDecoder
	batch *batchBuilder
	// batchStart is when the first record of the current batch arrived.
	batchStart time.Time

	// positions are the resume positions Run was given; read is where
	// each partition's next record is, as far as the source has read.
	positions map[int32]int64
	read      map[int32]int64
	assigned  map[int32]bool
	// topicID is the topic's identity, from the resume state or the
	// first the brokers reported (then topicIDNew until it is stored);
	// lost is why the source stopped reading (identity.go).
	topicID    [16]byte
	topicIDNew bool
	lost       error
	// started is set once the first metadata load has assigned the
	// topic's partitions; partitions found later start at their
	// beginning rather than at START OFFSET or START TIMESTAMP.
	started bool

	meta       chan metadataResult
	health     health
	brokerErrs *kafkaconn.BrokerErrors
	// group mirrors committed positions to Config.GroupID; nil without.
	group *groupCommitter

	// deadLetterFailures counts failed dead letter deliveries and
	// deadLetterLogged is when one was last logged (Unix ns); franz-go's
	// goroutines update them.
	deadLetterFailures atomic.Int64
	deadLetterLogged   atomic.Int64
}

// Run consumes the topic until ctx ends, emitting batches to sink.
//
// Each partition is assigned directly (no consumer group: the positions
// committed with the data are the only offsets that matter) and starts at
// its resume position, else at START OFFSET / START TIMESTAMP if the
// source has never committed, else at its beginning. A discovery goroutine
// polls the topic's metadata every MetadataInterval, assigning partitions
// added later and telling the loop whether the brokers are reachable.
// Transient failures (brokers down, topic missing, authentication
// refused) stall the source and are retried; Run returns nil when ctx
// ends and an error only for corrupt resume positions or when the engine
// stops accepting batches.
func (s *source) Run(ctx context.Context, resume map[string][]byte, sink sources.Sink) error {
	positions, topicID, err := decodePositions(resume)
	if err != nil {
		return err
	}
	dec, err := newRecordDecoder(&s.cfg)
	if err != nil {
		return err
	}
	brokerErrs := new(kafkaconn.BrokerErrors)
	cl, err := kgo.NewClient(append(s.clientOpts(), kgo.WithHooks(brokerErrs),
		// A fetch response is a quarter of a batch's bytes (Kafka's
		// default is 50 MiB): records arrive compressed, and what
		// franz-go holds decoded while Emit blocks (a Record struct per
		// record beside the decompressed data) is several times the
		// compressed size. On BenchmarkKafkaIngest's backlog this cut the
		// transient heap from 45 to 17 MB at the same throughput.
		kgo.FetchMaxBytes(int32(min(max(s.cfg.MaxBatchBytes/4, 1), math.MaxInt32))),
		kgo.FetchMaxPartitionBytes(int32(min(max(s.cfg.MaxBatchBytes/4, 1), 256<<10))),
		// An offset out of range means the log lost or deleted records:
		// the source stops rather than let the client move on by itself.
		kgo.ConsumeResetOffset(kgo.NoResetOffset()))...)
	if err != nil {
		return pgerr.Wrap(err, pgerr.InvalidParameterValue, "invalid kafka client configuration: %v", err)
	}
	defer cl.Close()
	r := &runner{
		src:       s,
		cl:        cl,
		sink:      sink,
		dec:       dec,
		batch:     newBatchBuilder(min(s.cfg.MaxBatchRecords*len(dec.l.columns), 1<<14)),
		positions: positions,
		read:      maps.Clone(positions),
		topicID:   topicID,
		assigned:  make(map[int32]bool),
		meta:      make(chan metadataResult, 1),

		brokerErrs: brokerErrs,
	}
	if s.cfg.GroupID != "" {
		r.group = newGroupCommitter(kadm.NewClient(cl), s.cfg.GroupID, s.cfg.Topic)
	}
	return r.run(ctx)
}

func (r *runner) run(ctx context.Context) error {
	r.sink.Status(sources.Starting, "")
	r.health.reported = sources.Starting
	dctx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		r.discover(dctx)
	}()
	defer func() {
		stop()
		<-done
		r.flushDeadLetters()
		if r.group != nil {
			r.group.wait()
		}
	}()

	cfg := &r.src.cfg
	for {
		select {
		case m := <-r.meta:
			r.applyMetadata(m)
		default:
		}
		r.reportStatus()
		if r.lost != nil {
			// Stopped for good: only ALTER SOURCE … RESET, which
			// replaces this run, goes on.
			select {
			case <-r.meta:
				continue
			case <-ctx.Done():
				return nil
			}
		}
		if len(r.assigned) == 0 {
			// Nothing to fetch until metadata assigns partitions: wait
			// for it rather than for a poll to time out, so that a new
			// source reads its first records as soon as it can.
			select {
			case m := <-r.meta:
				r.applyMetadata(m)
				continue
			case <-ctx.Done():
				return nil
			}
		}

		wait := idlePoll
		if !r.batch.empty() {
			wait = time.Until(r.batchStart.Add(batchLinger))
		}
		if wait > 0 {
			pctx, cancel := context.WithTimeout(ctx, wait)
			fetches := r.cl.PollRecords(pctx, cfg.MaxBatchRecords-r.batch.records)
			cancel()
			if ctx.Err() != nil {
				return nil
			}
			r.handle(ctx, fetches)
		}
		if r.lost != nil {
			continue
		}
		full := r.batch.records >= cfg.MaxBatchRecords || r.batch.bytes >= cfg.MaxBatchBytes
		if full || !r.batch.empty() && time.Since(r.batchStart) >= batchLinger {
			var progress map[int32]int64
			if r.group != nil {
				progress = maps.Clone(r.batch.progress)
			}
			b := r.batch.take()
			if r.topicIDNew {
				b.State = map[string][]byte{stateTopicID: r.topicID[:]}
				r.topicIDNew = false
			}
			if err := r.sink.Emit(ctx, b); err != nil {
				if ctx.Err() != nil {
					return nil
				}
				return err
			}
			if r.group != nil {
				r.group.committed(progress)
			}
		}
		if r.group != nil {
			r.group.maybeCommit(r)
		}
	}
}

// handle adds a poll's records to the batch and notes its errors. A
// poll that shows the topic's identity changed, or a partition's position
// gone from its log, stops the source before any of its records count.
func (r *runner) handle(ctx context.Context, fetches kgo.Fetches) {
	fetches.EachError(func(_ string, partition int32, err error) {
		switch {
		case errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled), errors.Is(err, kgo.ErrClientClosed):
		case isOffsetOutOfRange(err):
			r.offsetLost(ctx, partition, err)
		default:
			r.health.fetchFailed(err)
		}
	})
	fetches.EachTopic(func(t kgo.FetchTopic) { r.checkTopicID(t.TopicID) })
	if r.lost != nil {
		return
	}
	for it := fetches.RecordIter(); !it.Done(); {
		rec := it.Next()
		r.read[rec.Partition] = rec.Offset + 1
		if r.batch.empty() {
			r.batchStart = time.Now()
		}
		r.batch.noteRecord(rec)
		if r.beforeStart(rec) {
			continue
		}
		n := len(r.batch.changes)
		if err := r.dec.add(r.batch, rec); err != nil {
			r.deadLetter(rec, r.batch.deadLetter(rec, err))
			continue
		}
		r.batch.locate(n, rec)
	}
	if !fetches.Empty() {
		r.health.fetched()
	}
}

// beforeStart reports whether rec precedes its partition's START OFFSET.
// Such records are read when START OFFSET lies past the partition's end
// (franz-go then resets to the beginning rather than wait for the offset
// to exist), and after a restart by partitions that had no position yet.
// They are skipped, but still advance the partition's position.
func (r *runner) beforeStart(rec *kgo.Record) bool {
	offs := r.src.cfg.StartOffsets
	return int(rec.Partition) < len(offs) && rec.Offset < offs[rec.Partition]
}

func isDataLoss(err error) bool {
	var dl *kgo.ErrDataLoss
	return errors.As(err, &dl)
}
