package scalar

import (
	"strings"
	"time"

	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/types"
)

// to_date(text, format) and to_timestamp(text, format): the inverse of
// to_char for the numeric date/time fields (YYYY YY MM DD DDD HH24 HH12 HH
// MI SS MS US), AM/PM markers and month names (MONTH Month MON Mon…), with
// PostgreSQL's lenient matching: FM is ignored, separators in the format
// skip one character of input, quoted text skips its length, and missing
// fields default to January 1 of 1 BC at midnight.

type parsedTime struct {
	year, month, day, doy int
	hour, min, sec, us    int
	pm, hour12, haveYear  bool
}

type dateField struct {
	name  string
	width int
	set   func(p *parsedTime, v int)
}

var dateFields = []dateField{
	{"HH24", 2, func(p *parsedTime, v int) { p.hour = v }},
	{"HH12", 2, func(p *parsedTime, v int) { p.hour, p.hour12 = v, true }},
	{"HH", 2, func(p *parsedTime, v int) { p.hour, p.hour12 = v, true }},
	{"MI", 2, func(p *parsedTime, v int) { p.min = v }},
	{"SS", 2, func(p *parsedTime, v int) { p.sec = v }},
	{"MS", 3, func(p *parsedTime, v int) { p.us = v * 1000 }},
	{"US", 6, func(p *parsedTime, v int) { p.us = v }},
	{"YYYY", 4, func(p *parsedTime, v int) { p.year, p.haveYear = v, true }},
	{"YYY", 3, func(p *parsedTime, v int) { p.year, p.haveYear = 2000+v, true }},
	{"YY", 2, func(p *parsedTime, v int) { p.year, p.haveYear = yy(v), true }},
	{"DDD", 3, func(p *parsedTime, v int) { p.doy = v }},
	{"DD", 2, func(p *parsedTime, v int) { p.day = v }},
	{"MM", 2, func(p *parsedTime, v int) { p.month = v }},
}

// yy maps a two-digit year to the nearest to 2020, as PostgreSQL does.
func yy(v int) int {
	if v < 70 {
		return 2000 + v
	}
	return 1900 + v
}

func errBadValue(val, field string) error {
	return pgerr.New(pgerr.InvalidDatetimeFormat, "invalid value \"%s\" for \"%s\"", val, field).
		WithDetail("Value must be an integer.")
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// parseTemplate reads s according to format.
func parseTemplate(s, format string) (parsedTime, error) {
	p := parsedTime{month: 1, day: 1}
	i := 0
	skipSpace := func() {
		for i < len(s) && s[i] == ' ' {
			i++
		}
	}
	for f := 0; f < len(format); {
		if strings.HasPrefix(format[f:], "FM") {
			f += 2
			continue
		}
		if format[f] == '"' {
			end := strings.IndexByte(format[f+1:], '"')
			if end < 0 {
				end = len(format) - f - 1
			}
			i = min(len(s), i+end)
			f += end + 2
			continue
		}
		matched := false
		for _, df := range dateFields {
			if !strings.HasPrefix(format[f:], df.name) {
				continue
			}
			f += len(df.name)
			skipSpace()
			start := i
			width := df.width
			// The last field of a run, or one followed by a separator,
			// takes every digit; adjacent fields take their width.
			if f >= len(format) || !isLetter(format[f]) {
				width = 1 << 20
			}
			for i < len(s) && isDigit(s[i]) && i-start < width {
				i++
			}
			if i == start {
				end := min(len(s), start+df.width)
				return p, errBadValue(s[start:end], df.name)
			}
			v := 0
			for _, c := range s[start:i] {
				v = v*10 + int(c-'0')
			}
			df.set(&p, v)
			matched = true
			break
		}
		if matched {
			continue
		}
		if name, ok := matchMarker(format[f:]); ok {
			f += len(name)
			skipSpace()
			if err := p.readMarker(s, &i, name); err != nil {
				return p, err
			}
			continue
		}
		// A separator or literal in the format skips one input character.
		if i < len(s) {
			i++
		}
		f++
	}
	return p, nil
}

func isLetter(c byte) bool { return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' }

var markers = []string{"MONTH", "Month", "month", "MON", "Mon", "mon", "A.M.", "P.M.", "a.m.", "p.m.", "AM", "PM", "am", "pm"}

func matchMarker(f string) (string, bool) {
	for _, m := range markers {
		if strings.HasPrefix(f, m) {
			return m, true
		}
	}
	return "", false
}

func (p *parsedTime) readMarker(s string, i *int, name string) error {
	rest := strings.ToLower(s[*i:])
	switch strings.ToLower(name) {
	case "month", "mon":
		for m := time.January; m <= time.December; m++ {
			full := strings.ToLower(m.String())
			for _, cand := range []string{full, full[:3]} {
				if strings.HasPrefix(rest, cand) && (strings.ToLower(name) == "month" || len(cand) == 3) {
					p.month = int(m)
					*i += len(cand)
					return nil
				}
			}
		}
		end := min(len(s), *i+3)
		return pgerr.New(pgerr.InvalidDatetimeFormat, "invalid value \"%s\" for \"%s\"", s[*i:end], name).
			WithDetail("The given value did not match any of the allowed values for this field.")
	}
	for _, cand := range []string{"a.m.", "p.m.", "am", "pm"} {
		if strings.HasPrefix(rest, cand) {
			p.pm = cand[0] == 'p'
			p.hour12 = true
			*i += len(cand)
			return nil
		}
	}
	end := min(len(s), *i+len(name))
	return pgerr.New(pgerr.InvalidDatetimeFormat, "invalid value \"%s\" for \"%s\"", s[*i:end], name).
		WithDetail("The given value did not match any of the allowed values for this field.")
}

// local returns the parsed wall-clock time in microseconds.
func (p *parsedTime) local(input string) (int64, error) {
	bad := func() error {
		return pgerr.New(pgerr.DatetimeFieldOverflow, "date/time field value out of range: \"%s\"", input)
	}
	if p.hour12 {
		if p.hour < 1 || p.hour > 12 {
			return 0, pgerr.New(pgerr.InvalidDatetimeFormat, "hour \"%d\" is invalid for the 12-hour clock", p.hour).
				WithHint("Use the 24-hour clock, or give an hour between 1 and 12.")
		}
		if p.hour == 12 {
			p.hour = 0
		}
		if p.pm {
			p.hour += 12
		}
	}
	if p.month < 1 || p.month > 12 || p.hour > 24 || p.min > 59 || p.sec > 60 {
		return 0, bad()
	}
	y := p.year
	if !p.haveYear {
		y = 0
	}
	if p.doy > 0 {
		t := time.Date(y, 1, p.doy, 0, 0, 0, 0, time.UTC)
		p.month, p.day = int(t.Month()), t.Day()
	}
	if p.day < 1 || p.day > daysIn(y, time.Month(p.month)) {
		return 0, bad()
	}
	t := time.Date(y, time.Month(p.month), p.day, p.hour, p.min, p.sec, 0, time.UTC)
	return t.UnixMicro() + int64(p.us), nil
}

func toDate(_ *EvalContext, a []types.Datum) (types.Datum, error) {
	p, err := parseTemplate(a[0].Str(), a[1].Str())
	if err != nil {
		return types.Null, err
	}
	us, err := p.local(a[0].Str())
	if err != nil {
		return types.Null, err
	}
	return checkDate(floorDiv64(us, usPerDay))
}

func toTimestampText(ctx *EvalContext, a []types.Datum) (types.Datum, error) {
	p, err := parseTemplate(a[0].Str(), a[1].Str())
	if err != nil {
		return types.Null, err
	}
	us, err := p.local(a[0].Str())
	if err != nil {
		return types.Null, err
	}
	return checkTimestamp(types.TimestampTZ, localToUTC(us, ctx.location()))
}

func init() {
	addFunc(
		&Func{Name: "to_date", Params: ts(textT, textT), Ret: dateT, Strict: true, Volatility: Stable, Impl: toDate},
		&Func{Name: "to_timestamp", Params: ts(textT, textT), Ret: tstzT, Strict: true, Volatility: Stable, Impl: toTimestampText},
	)
}
