package scalar

import (
	"math"
	"time"

	"github.com/streamdb/streamdb/types"
)

// Session functions for applications and migration tools: advisory
// locks, pg_notify, pg_get_serial_sequence, and the version functions
// dbt-materialize asks for. All reach the session through Session and
// are volatile: each call may take or release a lock, or depend on the
// catalog as it is now.

var voidT = types.TypeVoid

// voidDatum is the one value of type void.
var voidDatum = types.NewString(types.Void, "")

// advisoryKeys are the two spellings of an advisory lock's key: one
// bigint, or two integers.
var advisoryKeys = []struct {
	params []types.Type
	key    func(a []types.Datum) int64
	pair   bool
}{
	{params: ts(int8T), key: func(a []types.Datum) int64 { return a[0].Int() }},
	{params: ts(int4T, int4T), key: func(a []types.Datum) int64 { return a[0].Int()<<32 | int64(uint32(a[1].Int())) }, pair: true},
}

// volatileSessionFn is a strict, volatile function of the session.
func volatileSessionFn(name string, params []types.Type, ret types.Type, impl func(s Session, a []types.Datum) (types.Datum, error)) *Func {
	f := sessionFn(name, params, ret, func(s Session, _ *EvalContext, a []types.Datum) (types.Datum, error) { return impl(s, a) })
	f.Volatility = Volatile
	return f
}

// sleepFor is the wait of pg_sleep(seconds): none for a negative or NaN
// count, and at most what a time.Duration holds.
func sleepFor(seconds float64) time.Duration {
	if !(seconds > 0) {
		return 0
	}
	if seconds >= math.MaxInt64/float64(time.Second) {
		return math.MaxInt64
	}
	return time.Duration(seconds * float64(time.Second))
}

func init() {
	addFunc(volatileSessionFn("pg_sleep", ts(f8), voidT, func(s Session, a []types.Datum) (types.Datum, error) {
		return voidDatum, s.Sleep(sleepFor(a[0].Float()))
	}))
	for _, k := range advisoryKeys {
		for _, shared := range []bool{false, true} {
			suffix := ""
			if shared {
				suffix = "_shared"
			}
			for _, xact := range []bool{false, true} {
				infix := "_"
				if xact {
					infix = "_xact_"
				}
				addFunc(
					volatileSessionFn("pg_advisory"+infix+"lock"+suffix, k.params, voidT, func(s Session, a []types.Datum) (types.Datum, error) {
						_, err := s.AdvisoryLock(k.key(a), k.pair, shared, xact, true)
						return voidDatum, err
					}),
					volatileSessionFn("pg_try_advisory"+infix+"lock"+suffix, k.params, boolT, func(s Session, a []types.Datum) (types.Datum, error) {
						ok, err := s.AdvisoryLock(k.key(a), k.pair, shared, xact, false)
						return types.NewBool(ok), err
					}),
				)
			}
			addFunc(volatileSessionFn("pg_advisory_unlock"+suffix, k.params, boolT, func(s Session, a []types.Datum) (types.Datum, error) {
				return types.NewBool(s.AdvisoryUnlock(k.key(a), k.pair, shared)), nil
			}))
		}
	}
	addFunc(
		volatileSessionFn("pg_advisory_unlock_all", nil, voidT, func(s Session, _ []types.Datum) (types.Datum, error) {
			s.AdvisoryUnlockAll()
			return voidDatum, nil
		}),
		// pg_notify is not strict: a NULL payload is the empty one, a
		// NULL channel an error.
		&Func{Name: "pg_notify", Params: ts(textT, textT), Ret: voidT, Volatility: Volatile,
			Impl: func(ctx *EvalContext, a []types.Datum) (types.Datum, error) {
				s, err := ctx.session("pg_notify")
				if err != nil {
					return types.Null, err
				}
				channel, payload := "", ""
				if !a[0].IsNull() {
					channel = a[0].Str()
				}
				if !a[1].IsNull() {
					payload = a[1].Str()
				}
				return voidDatum, s.Notify(channel, payload)
			}},
		sessionFn("pg_get_serial_sequence", ts(textT, textT), textT, func(s Session, _ *EvalContext, a []types.Datum) (types.Datum, error) {
			name, ok, err := s.SerialSequence(a[0].Str(), a[1].Str())
			if err != nil || !ok {
				return types.Null, err
			}
			return types.NewText(name), nil
		}),
	)
}
