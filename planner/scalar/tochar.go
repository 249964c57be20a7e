package scalar

import (
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/streamdb/streamdb/types"
)

// to_char(timestamp[tz], format) with PostgreSQL's common template
// patterns: year (YYYY YYY YY Y IYYY CC), month (MM MONTH Month month MON
// Mon mon), day (DD DDD D ID DAY Day day DY Dy dy), week (WW IW), Q, time
// (HH HH12 HH24 MI SS MS US SSSS AM PM A.M. P.M. and lower case), time zone
// (TZ tz OF), J, the FM fill-mode prefix and the TH/th suffix, "quoted
// text" and backslash escapes. Numeric to_char is not implemented.

type charPattern struct {
	name string
	fn   func(c *charCtx) string
	// numeric patterns are zero padded; FM trims their zeros (others'
	// trailing blanks), and only they take a TH suffix.
	numeric bool
}

type charCtx struct {
	t      time.Time
	us     int64
	zone   string
	offset int
}

var charPatterns []charPattern

func pad(n, width int) string {
	s := strconv.Itoa(abs(n))
	for len(s) < width {
		s = "0" + s
	}
	if n < 0 {
		return "-" + s
	}
	return s
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

func init() {
	num := func(name string, width int, f func(c *charCtx) int) charPattern {
		return charPattern{name, func(c *charCtx) string { return pad(f(c), width) }, true}
	}
	word := func(name string, f func(c *charCtx) string) charPattern {
		return charPattern{name, f, false}
	}
	year := func(c *charCtx) int {
		y := c.t.Year()
		if y <= 0 {
			return 1 - y
		}
		return y
	}
	hour12 := func(c *charCtx) int {
		h := c.t.Hour() % 12
		if h == 0 {
			h = 12
		}
		return h
	}
	ampm := func(upper, dots bool) func(c *charCtx) string {
		return func(c *charCtx) string {
			s := "am"
			if c.t.Hour() >= 12 {
				s = "pm"
			}
			if dots {
				s = s[:1] + "." + s[1:] + "."
			}
			if upper {
				s = strings.ToUpper(s)
			}
			return s
		}
	}
	caseOf := func(s, style string) string {
		switch style {
		case "upper":
			return strings.ToUpper(s)
		case "lower":
			return strings.ToLower(s)
		}
		return s
	}
	monthName := func(style string, short bool) func(c *charCtx) string {
		return func(c *charCtx) string {
			n := c.t.Month().String()
			if short {
				n = n[:3]
			} else {
				n = padRight(n, 9)
			}
			return caseOf(n, style)
		}
	}
	dayName := func(style string, short bool) func(c *charCtx) string {
		return func(c *charCtx) string {
			n := c.t.Weekday().String()
			if short {
				n = n[:3]
			} else {
				n = padRight(n, 9)
			}
			return caseOf(n, style)
		}
	}
	// Longer patterns first, so that HH24 wins over HH and MONTH over MON.
	charPatterns = []charPattern{
		num("HH24", 2, func(c *charCtx) int { return c.t.Hour() }),
		num("HH12", 2, hour12),
		num("HH", 2, hour12),
		num("MI", 2, func(c *charCtx) int { return c.t.Minute() }),
		num("SSSS", 0, func(c *charCtx) int { return c.t.Hour()*3600 + c.t.Minute()*60 + c.t.Second() }),
		num("SS", 2, func(c *charCtx) int { return c.t.Second() }),
		num("MS", 3, func(c *charCtx) int { return c.t.Nanosecond() / 1e6 }),
		num("US", 6, func(c *charCtx) int { return c.t.Nanosecond() / 1e3 }),
		word("A.M.", ampm(true, true)), word("P.M.", ampm(true, true)),
		word("a.m.", ampm(false, true)), word("p.m.", ampm(false, true)),
		word("AM", ampm(true, false)), word("PM", ampm(true, false)),
		word("am", ampm(false, false)), word("pm", ampm(false, false)),
		num("Y,YYY", 0, year),
		num("YYYY", 4, year),
		num("YYY", 3, func(c *charCtx) int { return year(c) % 1000 }),
		num("YY", 2, func(c *charCtx) int { return year(c) % 100 }),
		num("Y", 1, func(c *charCtx) int { return year(c) % 10 }),
		num("IYYY", 4, func(c *charCtx) int { y, _ := c.t.ISOWeek(); return y }),
		num("IW", 2, func(c *charCtx) int { _, w := c.t.ISOWeek(); return w }),
		num("ID", 1, func(c *charCtx) int { return (int(c.t.Weekday())+6)%7 + 1 }),
		word("MONTH", monthName("upper", false)), word("Month", monthName("", false)), word("month", monthName("lower", false)),
		word("MON", monthName("upper", true)), word("Mon", monthName("", true)), word("mon", monthName("lower", true)),
		num("MM", 2, func(c *charCtx) int { return int(c.t.Month()) }),
		word("DAY", dayName("upper", false)), word("Day", dayName("", false)), word("day", dayName("lower", false)),
		word("DY", dayName("upper", true)), word("Dy", dayName("", true)), word("dy", dayName("lower", true)),
		num("DDD", 3, func(c *charCtx) int { return c.t.YearDay() }),
		num("DD", 2, func(c *charCtx) int { return c.t.Day() }),
		num("D", 1, func(c *charCtx) int { return int(c.t.Weekday()) + 1 }),
		num("WW", 2, func(c *charCtx) int { return (c.t.YearDay()-1)/7 + 1 }),
		num("Q", 1, func(c *charCtx) int { return (int(c.t.Month())-1)/3 + 1 }),
		num("CC", 2, func(c *charCtx) int {
			y := c.t.Year()
			if y > 0 {
				return (y + 99) / 100
			}
			return -((99 - (y - 1)) / 100)
		}),
		num("J", 0, func(c *charCtx) int { return int(floorDiv64(c.us, usPerDay)) + unixJulian }),
		word("TZ", func(c *charCtx) string { return strings.ToUpper(c.zone) }),
		word("tz", func(c *charCtx) string { return strings.ToLower(c.zone) }),
		word("OF", func(c *charCtx) string { return offsetText(c.offset) }),
	}
}

func padRight(s string, n int) string {
	for len(s) < n {
		s += " "
	}
	return s
}

// offsetText prints a UTC offset as OF does: +05, -03:30.
func offsetText(off int) string {
	sign := "+"
	if off < 0 {
		sign, off = "-", -off
	}
	s := sign + pad(off/3600, 2)
	if m := off / 60 % 60; m != 0 {
		s += ":" + pad(m, 2)
	}
	return s
}

// ordinalSuffix is the TH suffix of a number.
func ordinalSuffix(s string) string {
	n, _ := strconv.Atoi(strings.TrimLeft(s, "0"))
	if n%100 >= 11 && n%100 <= 13 {
		return "th"
	}
	switch n % 10 {
	case 1:
		return "st"
	case 2:
		return "nd"
	case 3:
		return "rd"
	}
	return "th"
}

// charItem is one piece of a compiled to_char format: literal text, or a
// template pattern with its FM prefix and a TH/th suffix ('T' or 't';
// numeric patterns only).
type charItem struct {
	lit string
	pat *charPattern
	fm  bool
	th  byte
}

// compileChar splits a format into items once, so that formatting a value
// does not scan the format against every template pattern again: Nexmark
// q17's to_char(date_time, 'YYYY-MM-DD') per bid spent most of its time
// there.
func compileChar(f string) []charItem {
	var items []charItem
	var lit strings.Builder
	flush := func() {
		if lit.Len() > 0 {
			items = append(items, charItem{lit: lit.String()})
			lit.Reset()
		}
	}
	for i := 0; i < len(f); {
		switch f[i] {
		case '"':
			j := i + 1
			for j < len(f) && f[j] != '"' {
				if f[j] == '\\' && j+1 < len(f) {
					j++
				}
				lit.WriteByte(f[j])
				j++
			}
			i = j + 1
			continue
		case '\\':
			if i+1 < len(f) {
				lit.WriteByte(f[i+1])
				i += 2
				continue
			}
		}
		fm := false
		if strings.HasPrefix(f[i:], "FM") {
			fm = true
			i += 2
		}
		matched := false
		for k := range charPatterns {
			p := &charPatterns[k]
			if !strings.HasPrefix(f[i:], p.name) {
				continue
			}
			item := charItem{pat: p, fm: fm}
			i += len(p.name)
			if p.numeric && (strings.HasPrefix(f[i:], "TH") || strings.HasPrefix(f[i:], "th")) {
				item.th = f[i]
				i += 2
			}
			flush()
			items = append(items, item)
			matched = true
			break
		}
		if !matched && i < len(f) {
			lit.WriteByte(f[i])
			i++
		}
	}
	flush()
	return items
}

// appendChar appends the value of c formatted by items.
func appendChar(b []byte, c *charCtx, items []charItem) []byte {
	for _, it := range items {
		if it.pat == nil {
			b = append(b, it.lit...)
			continue
		}
		s := it.pat.fn(c)
		if it.fm {
			if it.pat.numeric {
				if t := strings.TrimLeft(s, "0"); t != "" {
					s = t
				} else {
					s = "0"
				}
			} else {
				s = strings.TrimRight(s, " ")
			}
		}
		b = append(b, s...)
		if it.th != 0 {
			suf := ordinalSuffix(s)
			if it.th == 'T' {
				suf = strings.ToUpper(suf)
			}
			b = append(b, suf...)
		}
	}
	return b
}

// charFormats caches compiled formats by their text, up to
// maxCharFormats of them (formats are almost always constants).
var (
	charFormats    sync.Map
	charFormatsLen atomic.Int32
)

const maxCharFormats = 1024

func compiledChar(f string) []charItem {
	if v, ok := charFormats.Load(f); ok {
		return v.([]charItem)
	}
	items := compileChar(f)
	if charFormatsLen.Load() < maxCharFormats {
		if _, loaded := charFormats.LoadOrStore(f, items); !loaded {
			charFormatsLen.Add(1)
		}
	}
	return items
}

func formatChar(c *charCtx, f string) string {
	return string(appendChar(nil, c, compiledChar(f)))
}

func toChar(tz bool) Impl {
	return func(ctx *EvalContext, a []types.Datum) (types.Datum, error) {
		us := a[0].Int()
		if isInf(us) {
			return types.Null, nil
		}
		var loc *time.Location
		if tz {
			loc = ctx.location()
		}
		t := wall(us, loc)
		zone, off := t.Zone()
		if !tz {
			zone, off = "", 0
		}
		local := us + int64(off)*usPerSec
		c := &charCtx{t: t, us: local, zone: zone, offset: off}
		return types.NewText(formatChar(c, a[1].Str())), nil
	}
}

func init() {
	addFunc(
		strict("to_char", ts(tsT, textT), textT, toChar(false)),
		&Func{Name: "to_char", Params: ts(tstzT, textT), Ret: textT, Strict: true, Volatility: Stable, Impl: toChar(true)},
	)
}
