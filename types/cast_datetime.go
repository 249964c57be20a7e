package types

import "github.com/streamdb/streamdb/pgerr"

// castDateTime converts among date, time, timestamp, timestamptz and
// interval; ok is false when the pair is not one of these casts.
// Conversions to and from timestamptz read the wall clock in
// cfg.Location.
func castDateTime(d Datum, ff, tf Family, cfg *TextConfig) (Datum, bool, error) {
	v := d.i
	inf := v == PosInf || v == NegInf
	switch [2]Family{ff, tf} {
	case [2]Family{Date, Timestamp}, [2]Family{Date, TimestampTZ}:
		if inf {
			return Datum{head: head{kind: tf}, i: v}, true, nil
		}
		if v > 106751991 || v*usecsPerDay < minTimestamp {
			return Null, true, pgerr.New(pgerr.DatetimeFieldOverflow, "date out of range for timestamp")
		}
		ts := v * usecsPerDay
		if tf == TimestampTZ {
			ts -= localToUTC(cfg.Location, v*secsPerDay) * usecsPerSec
		}
		return Datum{head: head{kind: tf}, i: ts}, true, nil
	case [2]Family{Timestamp, Date}, [2]Family{TimestampTZ, Date}:
		if inf {
			return NewDate(v), true, nil
		}
		lv, ok := localMicros(v, ff, cfg)
		if !ok {
			return Null, true, errTimestampRange()
		}
		days, _ := floorDiv(lv, usecsPerDay)
		return NewDate(days), true, nil
	case [2]Family{Timestamp, Time}, [2]Family{TimestampTZ, Time}:
		if inf {
			// timestamp_time returns NULL for infinite timestamps.
			return Null, true, nil
		}
		lv, ok := localMicros(v, ff, cfg)
		if !ok {
			return Null, true, errTimestampRange()
		}
		_, tod := floorDiv(lv, usecsPerDay)
		return NewTime(tod), true, nil
	case [2]Family{Timestamp, TimestampTZ}:
		if inf {
			return Datum{head: head{kind: tf}, i: v}, true, nil
		}
		secs, _ := floorDiv(v, usecsPerSec)
		r := v
		if !addOK(&r, -localToUTC(cfg.Location, secs)*usecsPerSec) || r < minTimestamp || r == PosInf {
			return Null, true, errTimestampRange()
		}
		return Datum{head: head{kind: tf}, i: r}, true, nil
	case [2]Family{TimestampTZ, Timestamp}:
		if inf {
			return Datum{head: head{kind: tf}, i: v}, true, nil
		}
		r, ok := localMicros(v, ff, cfg)
		if !ok || r < minTimestamp || r == PosInf {
			return Null, true, errTimestampRange()
		}
		return Datum{head: head{kind: tf}, i: r}, true, nil
	case [2]Family{Time, Interval}:
		return NewInterval(IntervalValue{Micros: v}), true, nil
	case [2]Family{Interval, Time}:
		_, tod := floorDiv(d.Interval().Micros, usecsPerDay)
		return NewTime(tod), true, nil
	}
	return Null, false, nil
}

func errTimestampRange() error {
	return pgerr.New(pgerr.DatetimeFieldOverflow, "timestamp out of range")
}

// localMicros returns a timestamp payload as wall-clock microseconds: as
// is for timestamp, shifted to cfg.Location for timestamptz; ok is false
// when the shift overflows.
func localMicros(v int64, f Family, cfg *TextConfig) (int64, bool) {
	if f != TimestampTZ {
		return v, true
	}
	secs, _ := floorDiv(v, usecsPerSec)
	off, _ := zoneOffset(cfg.Location, secs)
	ok := addOK(&v, off*usecsPerSec)
	return v, ok
}
