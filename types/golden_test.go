package types

import (
	"bufio"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/streamdb/streamdb/pgerr"
)

// goldenCase is one line of testdata/golden/*.txt, produced by
// testdata/gen_golden.sh from a real PostgreSQL 15.
type goldenCase struct {
	file, settings, typ, input string
	text, bin                  string // text output and send() hex
	errCode, errMsg            string // when PostgreSQL raised an error
}

// knownDeviations lists golden cases streamdb deliberately does not match,
// keyed by "type<TAB>input", with the reason.
var knownDeviations = map[string]string{
	"integer[]\t[0:2]={1,2,3}":                                  "arrays with lower bounds other than 1 are not supported",
	"timestamp without time zone\t294276-12-31 23:59:59.999999": "payloads count from 1970 in int64, ending in 294247",
	"timestamp with time zone\t294276-12-31 23:59:59.999999":    "payloads count from 1970 in int64, ending in 294247",
	"timestamp with time zone\t294277-01-01 00:00:00":           "payloads count from 1970 in int64, ending in 294247",
}

func unescapeCopy(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		i++
		switch s[i] {
		case 't':
			b.WriteByte('\t')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'v':
			b.WriteByte('\v')
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

func readGolden(t testing.TB) []goldenCase {
	files, err := filepath.Glob("testdata/golden/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden files: %v", err)
	}
	var cases []goldenCase
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(fh)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			parts := strings.Split(sc.Text(), "\t")
			if len(parts) != 5 {
				t.Fatalf("%s: bad line %q", f, sc.Text())
			}
			for i := range parts {
				parts[i] = unescapeCopy(parts[i])
			}
			c := goldenCase{file: filepath.Base(f), settings: parts[0], typ: parts[1], input: parts[2]}
			if parts[3] == "ERROR" {
				code, msg, _ := strings.Cut(parts[4], ": ")
				c.errCode, c.errMsg = code, msg
			} else {
				c.text, c.bin = parts[3], parts[4]
			}
			cases = append(cases, c)
		}
		fh.Close()
	}
	return cases
}

// parseTypeName reads the type names used in the case files (format_type
// spellings with optional modifiers and [] suffix).
func parseTypeName(t testing.TB, s string) Type {
	if strings.HasSuffix(s, "[]") {
		return ArrayOf(parseTypeName(t, strings.TrimSuffix(s, "[]")))
	}
	if strings.HasPrefix(s, "interval") {
		return parseIntervalTypeName(t, s)
	}
	base, mod := s, int32(-1)
	if open := strings.IndexByte(s, '('); open >= 0 {
		close := strings.IndexByte(s, ')')
		args := strings.Split(s[open+1:close], ",")
		base = strings.TrimSpace(s[:open] + s[close+1:])
		p, _ := strconv.Atoi(args[0])
		mod = int32(p)
		if len(args) == 2 {
			sc, _ := strconv.Atoi(args[1])
			mod = NumericMod(int32(p), int32(sc))
		}
	}
	names := map[string]Family{
		"boolean": Bool, "smallint": Int2, "integer": Int4, "bigint": Int8, "oid": Oid, "real": Float4,
		"double precision": Float8, "numeric": Numeric, "text": Text, "character varying": Varchar,
		"character": Char, "name": Name, "bytea": Bytea, "uuid": UUID, "json": JSON, "jsonb": JSONB,
		"date": Date, "time without time zone": Time, "time": Time, "timestamp without time zone": Timestamp,
		"timestamp": Timestamp, "timestamp with time zone": TimestampTZ, "interval": Interval,
	}
	f, ok := names[base]
	if !ok {
		t.Fatalf("unknown type %q", s)
	}
	if f == Char && mod < 0 && !strings.Contains(s, "(") {
		mod = 1 // bare "character" is character(1)
	}
	return Type{Family: f, Mod: mod}
}

// parseIntervalTypeName finds the interval type format_type prints as s
// ("interval day to second(3)").
func parseIntervalTypeName(t testing.TB, s string) Type {
	for rng := range intervalRanges {
		for p := int32(-1); p <= maxIntervalPrecision; p++ {
			mods := []int32{rng}
			if p >= 0 {
				mods = append(mods, p)
			}
			mod, err := IntervalTypmod(mods)
			if err != nil {
				t.Fatal(err)
			}
			if typ := (Type{Family: Interval, Mod: mod}); typ.String() == s {
				return typ
			}
		}
	}
	t.Fatalf("unknown type %q", s)
	return Type{}
}

func parseSettings(t testing.TB, s string) *TextConfig {
	cfg := DefaultTextConfig()
	for _, kv := range strings.Split(s, "|") {
		k, v, _ := strings.Cut(kv, "=")
		switch strings.ToLower(k) {
		case "timezone":
			loc, err := time.LoadLocation(v)
			if err != nil {
				t.Fatal(err)
			}
			cfg.Location = loc
		case "datestyle":
			style, order, _ := strings.Cut(v, ", ")
			cfg.DateStyle = map[string]DateStyle{"ISO": DateStyleISO, "SQL": DateStyleSQL, "Postgres": DateStylePostgres, "German": DateStyleGerman}[style]
			cfg.DateOrder = map[string]DateOrder{"MDY": DateOrderMDY, "DMY": DateOrderDMY, "YMD": DateOrderYMD}[order]
		case "extra_float_digits":
			cfg.ExtraFloatDigits, _ = strconv.Atoi(v)
		case "bytea_output":
			cfg.ByteaEscape = v == "escape"
		case "intervalstyle":
			cfg.IntervalStyle = map[string]IntervalStyle{"postgres": IntervalStylePostgres, "postgres_verbose": IntervalStylePostgresVerbose,
				"sql_standard": IntervalStyleSQLStandard, "iso_8601": IntervalStyleISO8601}[v]
		}
	}
	return cfg
}

// TestGoldenText checks ParseText and AppendText against PostgreSQL 15's
// input and output functions, including its errors (SQLSTATE and message).
func TestGoldenText(t *testing.T) {
	failures := 0
	for _, c := range readGolden(t) {
		key := c.typ + "\t" + c.input
		if _, skip := knownDeviations[key]; skip {
			continue
		}
		if err := checkGoldenText(t, c); err != nil {
			failures++
			if failures <= 60 {
				t.Errorf("%s [%s] %s %q: %v", c.file, c.settings, c.typ, c.input, err)
			}
		}
	}
	if failures > 0 {
		t.Errorf("%d golden text cases failed", failures)
	}
}

func checkGoldenText(t *testing.T, c goldenCase) error {
	typ := parseTypeName(t, c.typ)
	cfg := parseSettings(t, c.settings)
	d, err := ParseText(c.input, typ, cfg)
	if c.errCode != "" {
		if err == nil {
			return fmt.Errorf("parsed as %q, want error %s: %s", FormatText(d, typ, cfg), c.errCode, c.errMsg)
		}
		e := pgerr.As(err)
		if e == nil || string(e.Code) != c.errCode || e.Message != c.errMsg {
			return fmt.Errorf("error %v (%s), want %s: %s", err, pgerr.CodeOf(err), c.errCode, c.errMsg)
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("unexpected error %v, want %q", err, c.text)
	}
	if got := FormatText(d, typ, cfg); got != c.text {
		return fmt.Errorf("text %q, want %q", got, c.text)
	}
	return nil
}

// TestGoldenBinary checks AppendBinary against PostgreSQL's send functions
// and ParseBinary against its receive functions (through the text output).
func TestGoldenBinary(t *testing.T) {
	failures := 0
	for _, c := range readGolden(t) {
		if c.errCode != "" {
			continue
		}
		if _, skip := knownDeviations[c.typ+"\t"+c.input]; skip {
			continue
		}
		typ := parseTypeName(t, c.typ)
		cfg := parseSettings(t, c.settings)
		fail := func(format string, args ...any) {
			failures++
			if failures <= 40 {
				t.Errorf("%s [%s] %s %q: %s", c.file, c.settings, c.typ, c.input, fmt.Sprintf(format, args...))
			}
		}
		d, err := ParseText(c.input, typ, cfg)
		if err != nil {
			continue // reported by TestGoldenText
		}
		if got := hex.EncodeToString(AppendBinary(nil, d, typ)); got != c.bin {
			fail("binary %s, want %s", got, c.bin)
			continue
		}
		raw, _ := hex.DecodeString(c.bin)
		back, err := ParseBinary(raw, typ)
		if err != nil {
			fail("ParseBinary: %v", err)
			continue
		}
		if got := FormatText(back, typ, cfg); got != c.text {
			fail("ParseBinary gave %q, want %q", got, c.text)
		}
	}
	if failures > 0 {
		t.Errorf("%d golden binary cases failed", failures)
	}
}
