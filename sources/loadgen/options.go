package loadgen

import (
	"math"
	"strings"
	"time"

	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/sources"
)

// Options configures a load generator. The zero value of every field means
// "absent": the kind's default applies.
type Options struct {
	// TickInterval is the time between COUNTER and AUCTION ticks (default
	// 1s), between rate-limited NEXMARK batches (default 10ms) and, if set,
	// between the order updates TPCH makes after its snapshot.
	TickInterval time.Duration
	// MaxCardinality makes COUNTER keep only that many most recent values,
	// retracting older ones.
	MaxCardinality int64
	// ScaleFactor sizes TPCH (default 0.01: 15,000 orders).
	ScaleFactor float64
	// EventsPerSecond limits NEXMARK's rate and sets the spacing of its
	// event times; absent, NEXMARK runs as fast as the engine accepts and
	// spaces event times at Nexmark's default 10,000 events per second.
	EventsPerSecond float64
	// MaxEvents stops COUNTER, AUCTION (ticks) and NEXMARK (events) after
	// that many units in total over the source's life.
	MaxEvents int64
	// Seed selects the pseudo-random data of AUCTION, TPCH and NEXMARK.
	Seed int64
	// Now is the clock for generated timestamps, Batch.Time and pacing
	// (default time.Now). It must advance like the wall clock.
	Now func() time.Time
}

// MaxBatchChanges bounds the number of changes in one emitted batch, so
// that the engine can keep its ticks short.
const MaxBatchChanges = 10_000

// kind identifies a load generator.
type kind uint8

const (
	kindCounter kind = iota
	kindAuction
	kindTPCH
	kindNexmark
)

func (k kind) String() string {
	switch k {
	case kindCounter:
		return "COUNTER"
	case kindAuction:
		return "AUCTION"
	case kindTPCH:
		return "TPCH"
	case kindNexmark:
		return "NEXMARK"
	}
	return "UNKNOWN"
}

// parseKind accepts a generator name in any letter case.
func parseKind(name string) (kind, error) {
	for _, k := range []kind{kindCounter, kindAuction, kindTPCH, kindNexmark} {
		if strings.EqualFold(name, k.String()) {
			return k, nil
		}
	}
	return 0, pgerr.New(pgerr.FeatureNotSupported, "load generator %q is not supported", name).
		WithHint("Supported load generators are COUNTER, AUCTION, TPCH and NEXMARK.")
}

// New returns a load generator of the named kind (case-insensitive). Unknown
// kinds fail with 0A000, invalid or inapplicable options with 22023.
func New(kindName string, opts Options) (sources.Source, error) {
	k, err := parseKind(kindName)
	if err != nil {
		return nil, err
	}
	if err := opts.validate(k); err != nil {
		return nil, err
	}
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	return newSource(k, opts, wallClock{now: now}), nil
}

// newSource builds the generator of kind k on clock clk; options are valid.
func newSource(k kind, opts Options, clk clock) sources.Source {
	switch k {
	case kindCounter:
		return newCounter(opts, clk)
	case kindAuction:
		return newAuction(opts, clk)
	case kindTPCH:
		return newTPCH(opts, clk)
	case kindNexmark:
		return newNexmarkSource(opts, clk)
	}
	panic("loadgen: unhandled kind " + k.String())
}

// Tables describes the outputs of the named generator kind without
// creating it; they do not depend on options.
func Tables(kindName string) ([]sources.Output, error) {
	k, err := parseKind(kindName)
	if err != nil {
		return nil, err
	}
	switch k {
	case kindCounter:
		return counterOutputs(), nil
	case kindAuction:
		return auctionOutputs(), nil
	case kindTPCH:
		return tpchOutputs(), nil
	case kindNexmark:
		return nexmarkOutputs(), nil
	}
	panic("loadgen: unhandled kind " + k.String())
}

// maxScaleFactor is TPC-H's largest official scale factor.
const maxScaleFactor = 100_000

// validate rejects negative or non-finite values and options the kind does
// not use, so that a typo in CREATE SOURCE is not silently ignored.
func (o *Options) validate(k kind) error {
	switch {
	case o.TickInterval < 0:
		return invalidOption("TICK INTERVAL must not be negative")
	case o.MaxCardinality < 0:
		return invalidOption("MAX CARDINALITY must not be negative")
	case o.MaxCardinality > 0 && k != kindCounter:
		return invalidOption("MAX CARDINALITY is only valid for COUNTER")
	case math.IsNaN(o.ScaleFactor) || o.ScaleFactor < 0 || o.ScaleFactor > maxScaleFactor:
		return invalidOption("SCALE FACTOR must be between 0 and %d", maxScaleFactor)
	case o.ScaleFactor > 0 && k != kindTPCH:
		return invalidOption("SCALE FACTOR is only valid for TPCH")
	case math.IsNaN(o.EventsPerSecond) || math.IsInf(o.EventsPerSecond, 0) || o.EventsPerSecond < 0:
		return invalidOption("EVENTS PER SECOND must be a finite number not less than 0")
	case o.EventsPerSecond > 0 && k != kindNexmark:
		return invalidOption("EVENTS PER SECOND is only valid for NEXMARK")
	case o.MaxEvents < 0:
		return invalidOption("MAX EVENTS must not be negative")
	case o.MaxEvents > 0 && k == kindTPCH:
		return invalidOption("MAX EVENTS is not valid for TPCH")
	}
	return nil
}

func invalidOption(format string, args ...any) error {
	return pgerr.New(pgerr.InvalidParameterValue, format, args...)
}

// tickInterval returns the configured interval or def.
func (o *Options) tickInterval(def time.Duration) time.Duration {
	if o.TickInterval > 0 {
		return o.TickInterval
	}
	return def
}
