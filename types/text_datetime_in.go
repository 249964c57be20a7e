package types

import (
	"math"

	"github.com/streamdb/streamdb/pgerr"
)

// dtError converts a decoding failure into PostgreSQL's error for input s
// of type t.
func dtError(e dtErr, r *dtResult, t Type, s string) error {
	switch e {
	case dtFieldOverflow:
		return pgerr.New(pgerr.DatetimeFieldOverflow, "date/time field value out of range: %s", quoteValue(s))
	case dtTZOverflow:
		return pgerr.New(pgerr.InvalidTimeZoneDisplacement, "time zone displacement out of range: %s", quoteValue(s))
	case dtBadZone:
		return pgerr.New(pgerr.InvalidParameterValue, "time zone %s not recognized", quoteValue(r.zoneName))
	}
	return pgerr.New(pgerr.InvalidDatetimeFormat, "invalid input syntax for type %s: %s", typeName(t), quoteValue(s))
}

func decodeInput(s string, t Type, timeOnly bool, cfg *TextConfig) (dtResult, error) {
	var buf [16]dtField
	fields, ok := lexDateTime(s, buf[:0])
	if !ok {
		return dtResult{}, dtError(dtBadFormat, nil, t, s)
	}
	r, e := decodeDateTime(fields, timeOnly, cfg.DateOrder)
	if e != dtOK {
		return r, dtError(e, &r, t, s)
	}
	return r, nil
}

// parseDate reads date input in any of PostgreSQL's accepted formats,
// with cfg.DateOrder resolving ambiguous field orders.
func parseDate(s string, cfg *TextConfig) (Datum, error) {
	r, err := decodeInput(s, TypeDate, false, cfg)
	if err != nil {
		return Null, err
	}
	switch r.special {
	case "epoch":
		return NewDate(0), nil
	case "infinity":
		return NewDate(PosInf), nil
	case "-infinity":
		return NewDate(NegInf), nil
	}
	if !validJulian(r.year, r.mon, r.mday) {
		return Null, pgerr.New(pgerr.DatetimeFieldOverflow, "date out of range: %s", quoteValue(s))
	}
	jd := date2j(r.year, r.mon, r.mday)
	if jd >= endDateJulian {
		return Null, pgerr.New(pgerr.DatetimeFieldOverflow, "date out of range: %s", quoteValue(s))
	}
	return NewDate(jd - unixEpochJDate), nil
}

// parseTime reads time-of-day input; dates and zones in it are ignored.
func parseTime(s string, cfg *TextConfig) (Datum, error) {
	r, err := decodeInput(s, TypeTime, true, cfg)
	if err != nil {
		return Null, err
	}
	return NewTime(((r.hour*60+r.min)*60+r.sec)*usecsPerSec + r.usec), nil
}

func errTimestampInput(s string) error {
	return pgerr.New(pgerr.DatetimeFieldOverflow, "timestamp out of range: %s", quoteValue(s))
}

// parseTimestamp reads timestamp input; with tz, an explicit offset,
// abbreviation or zone name in the input wins over cfg.Location.
// Timestamp without time zone ignores any zone in the input.
func parseTimestamp(s string, tz bool, cfg *TextConfig) (Datum, error) {
	t := TypeTimestamp
	if tz {
		t = TypeTimestampTZ
	}
	r, err := decodeInput(s, t, false, cfg)
	if err != nil {
		return Null, err
	}
	switch r.special {
	case "epoch":
		return Datum{head: head{kind: t.Family}}, nil
	case "infinity":
		return Datum{head: head{kind: t.Family}, i: PosInf}, nil
	case "-infinity":
		return Datum{head: head{kind: t.Family}, i: NegInf}, nil
	}
	if !validJulian(r.year, r.mon, r.mday) {
		return Null, errTimestampInput(s)
	}
	days := date2j(r.year, r.mon, r.mday) - unixEpochJDate
	if days > math.MaxInt64/usecsPerDay {
		return Null, errTimestampInput(s)
	}
	secs := days*secsPerDay + (r.hour*60+r.min)*60 + r.sec
	if tz {
		switch {
		case r.zone != nil:
			secs -= localToUTC(r.zone, secs)
		case r.fmask&fTZ != 0:
			secs -= r.tzOff
		default:
			secs -= localToUTC(cfg.Location, secs)
		}
	}
	if secs > 9223372036854 || secs < minTimestamp/usecsPerSec-1 {
		return Null, errTimestampInput(s)
	}
	v := secs*usecsPerSec + r.usec
	if v < minTimestamp || v >= PosInf || v < 0 && secs > 0 {
		return Null, errTimestampInput(s)
	}
	return Datum{head: head{kind: t.Family}, i: v}, nil
}
