package sql

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/sql/pgcatalog"
	"github.com/streamdb/streamdb/types"
)

// Server identity as reported to clients. Clients parse server_version,
// so it is a plain PostgreSQL 15 version number.
const (
	serverVersion    = "15.0"
	serverVersionNum = "150000"
	versionString    = "PostgreSQL 15.0 (streamdb) on x86_64-pc-linux-gnu, 64-bit"
	// mzVersionString is mz_version(), in Materialize's "vX.Y.Z (build)"
	// shape, naming streamdb as the build: Materialize's tools read it.
	mzVersionString = "v0.1.0 (streamdb)"
)

// settingDef describes one run-time parameter.
type settingDef struct {
	name     string // canonical spelling, as SHOW ALL prints it
	def      string
	reported bool // sent to the client in ParameterStatus
	readOnly bool
	desc     string
	// check validates and normalises a new value.
	check func(v string) (string, error)
}

var settingDefs = []settingDef{
	{name: "application_name", def: "", reported: true, desc: "Sets the application name to be reported in statistics and logs."},
	{name: "bytea_output", def: "hex", desc: "Sets the output format for bytea.", check: oneOf("hex", "escape")},
	{name: "client_encoding", def: "UTF8", reported: true, desc: "Sets the client's character set encoding.", check: checkEncoding},
	{name: "client_min_messages", def: "notice", desc: "Sets the message levels that are sent to the client.",
		check: oneOf("debug5", "debug4", "debug3", "debug2", "debug1", "debug", "log", "notice", "warning", "error")},
	{name: "DateStyle", def: "ISO, MDY", reported: true, desc: "Sets the display format for date and time values.", check: checkDateStyle},
	{name: "default_transaction_isolation", def: "read committed", desc: "Sets the transaction isolation level of each new transaction."},
	{name: "default_transaction_read_only", def: "off", reported: true, desc: "Sets the default read-only status of new transactions.", check: checkBool},
	{name: "extra_float_digits", def: "1", desc: "Sets the number of digits displayed for floating-point values.", check: checkIntRange(-15, 3)},
	{name: "idle_in_transaction_session_timeout", def: "0", desc: "Sets the maximum allowed idle time between queries, when in a transaction."},
	{name: "in_hot_standby", def: "off", reported: true, readOnly: true, desc: "Shows whether hot standby is currently active."},
	{name: "integer_datetimes", def: "on", reported: true, readOnly: true, desc: "Shows whether datetimes are integer based."},
	{name: "IntervalStyle", def: "postgres", reported: true, desc: "Sets the display format for interval values.",
		check: oneOf("postgres", "postgres_verbose", "sql_standard", "iso_8601")},
	{name: "is_superuser", def: "on", reported: true, readOnly: true, desc: "Shows whether the current user is a superuser."},
	{name: "lc_collate", def: "C", readOnly: true, desc: "Shows the collation order locale."},
	{name: "lc_ctype", def: "C", readOnly: true, desc: "Shows the character classification and case conversion locale."},
	{name: "lc_messages", def: "C", desc: "Sets the language in which messages are displayed."},
	{name: "lc_monetary", def: "C", desc: "Sets the locale for formatting monetary amounts."},
	{name: "lc_numeric", def: "C", desc: "Sets the locale for formatting numbers."},
	{name: "lc_time", def: "C", desc: "Sets the locale for formatting date and time values."},
	{name: "lock_timeout", def: "0", desc: "Sets the maximum allowed duration of any wait for a lock."},
	{name: "max_identifier_length", def: "63", readOnly: true, desc: "Shows the maximum identifier length."},
	{name: "role", def: "none", desc: "Sets the current role."},
	{name: "search_path", def: `"$user", public`, desc: "Sets the schema search order for names that are not schema-qualified."},
	{name: "server_encoding", def: "UTF8", reported: true, readOnly: true, desc: "Shows the server (database) character set encoding."},
	{name: "server_version", def: serverVersion, reported: true, readOnly: true, desc: "Shows the server version."},
	{name: "server_version_num", def: serverVersionNum, readOnly: true, desc: "Shows the server version as an integer."},
	{name: "session_authorization", def: "", reported: true, readOnly: true, desc: "Sets the session user name."},
	{name: "standard_conforming_strings", def: "on", reported: true, desc: "Causes '...' strings to treat backslashes literally.", check: onlyOn},
	{name: "statement_timeout", def: "0", desc: "Sets the maximum allowed duration of any statement.", check: checkTimeout},
	{name: "TimeZone", def: "UTC", reported: true, desc: "Sets the time zone for displaying and interpreting time stamps.", check: checkTimeZone},
	{name: "transaction_isolation", def: "read committed", desc: "Sets the current transaction's isolation level."},
	{name: "transaction_read_only", def: "off", desc: "Sets the current transaction's read-only status.", check: checkBool},
}

var settingIndex = func() map[string]int {
	m := map[string]int{}
	for i, d := range settingDefs {
		m[strings.ToLower(d.name)] = i
	}
	return m
}()

// settings is a session's parameter values. It is copied on write so that
// a running statement keeps the values it started with.
type settings struct {
	values []string
	text   *types.TextConfig
	// names resolves reg* values in text I/O (TextConfig.Names): the
	// session's view of the catalog.
	names types.ObjectNames
}

func newSettings(user string) *settings {
	s := &settings{values: make([]string, len(settingDefs))}
	for i, d := range settingDefs {
		s.values[i] = d.def
	}
	s.values[settingIndex["session_authorization"]] = user
	s.text = s.buildText()
	return s
}

// sessionSettings returns a session's default settings: newSettings for
// its user, with is_superuser saying whether the role it logged in as is
// a superuser.
func (i *sessionInfo) sessionSettings() *settings {
	s := newSettings(i.user)
	if !i.super {
		s.values[settingIndex["is_superuser"]] = "off"
	}
	return s
}

// get returns a setting's value; ok is false for an unknown name.
func (s *settings) get(name string) (string, bool) {
	i, ok := settingIndex[strings.ToLower(name)]
	if !ok {
		return "", false
	}
	return s.values[i], true
}

// set returns a copy with one setting changed (value "" with reset for
// the default).
func (s *settings) set(name, value string, reset bool) (*settings, *settingDef, error) {
	i, ok := settingIndex[strings.ToLower(name)]
	if !ok {
		return nil, nil, pgerr.New(pgerr.UndefinedObject, "unrecognized configuration parameter %q", name)
	}
	d := &settingDefs[i]
	if d.readOnly && !(reset || value == s.values[i]) {
		return nil, nil, pgerr.New(pgerr.CantChangeRuntimeParam, "parameter %q cannot be changed", d.name)
	}
	if reset {
		value = d.def
	} else if d.check != nil {
		v, err := d.check(value)
		if err != nil {
			return nil, nil, err
		}
		value = v
	}
	n := &settings{values: append([]string(nil), s.values...), names: s.names}
	n.values[i] = value
	n.text = n.buildText()
	return n, d, nil
}

// textConfig returns the settings that govern value text I/O.
func (s *settings) textConfig() *types.TextConfig { return s.text }

func (s *settings) buildText() *types.TextConfig {
	cfg := types.DefaultTextConfig()
	tz, _ := s.get("TimeZone")
	if loc, err := loadZone(tz); err == nil {
		cfg.Location = loc
	}
	ds, _ := s.get("DateStyle")
	cfg.DateStyle, cfg.DateOrder = parseDateStyle(ds, cfg.DateStyle, cfg.DateOrder)
	is, _ := s.get("IntervalStyle")
	switch is {
	case "postgres_verbose":
		cfg.IntervalStyle = types.IntervalStylePostgresVerbose
	case "sql_standard":
		cfg.IntervalStyle = types.IntervalStyleSQLStandard
	case "iso_8601":
		cfg.IntervalStyle = types.IntervalStyleISO8601
	}
	efd, _ := s.get("extra_float_digits")
	cfg.ExtraFloatDigits, _ = strconv.Atoi(efd)
	bo, _ := s.get("bytea_output")
	cfg.ByteaEscape = bo == "escape"
	cfg.Names = s.names
	return cfg
}

// withNames returns a copy whose text configuration resolves reg* values
// through names.
func (s *settings) withNames(names types.ObjectNames) *settings {
	n := &settings{values: s.values, names: names}
	n.text = n.buildText()
	return n
}

// catalogSettings describes the settings for pg_settings.
func (s *settings) catalogSettings() []pgcatalog.Setting {
	out := make([]pgcatalog.Setting, len(settingDefs))
	for i, d := range settingDefs {
		out[i] = pgcatalog.Setting{Name: d.name, Value: s.values[i], Description: d.desc, ReadOnly: d.readOnly,
			Default: d.def, Changed: s.values[i] != d.def}
	}
	sort.Slice(out, func(i, j int) bool { return strings.ToLower(out[i].Name) < strings.ToLower(out[j].Name) })
	return out
}

// all returns every setting sorted by name, for SHOW ALL.
func (s *settings) all() [][3]string {
	out := make([][3]string, len(settingDefs))
	for i, d := range settingDefs {
		out[i] = [3]string{d.name, s.values[i], d.desc}
	}
	sort.Slice(out, func(i, j int) bool { return strings.ToLower(out[i][0]) < strings.ToLower(out[j][0]) })
	return out
}

// reported returns the parameters sent in ParameterStatus.
func (s *settings) reported() [][2]string {
	var out [][2]string
	for i, d := range settingDefs {
		if d.reported {
			out = append(out, [2]string{d.name, s.values[i]})
		}
	}
	return out
}

func oneOf(allowed ...string) func(string) (string, error) {
	return func(v string) (string, error) {
		lv := strings.ToLower(strings.TrimSpace(v))
		for _, a := range allowed {
			if lv == a {
				return a, nil
			}
		}
		return "", pgerr.New(pgerr.InvalidParameterValue, "invalid value for parameter: %q", v).
			WithHint("Available values: %s.", strings.Join(allowed, ", "))
	}
}

func checkBool(v string) (string, error) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "on", "true", "yes", "1", "t", "y":
		return "on", nil
	case "off", "false", "no", "0", "f", "n":
		return "off", nil
	}
	return "", pgerr.New(pgerr.InvalidParameterValue, "parameter requires a Boolean value")
}

func onlyOn(v string) (string, error) {
	b, err := checkBool(v)
	if err != nil {
		return "", err
	}
	if b != "on" {
		return "", pgerr.New(pgerr.InvalidParameterValue, "standard_conforming_strings cannot be turned off")
	}
	return b, nil
}

func checkIntRange(lo, hi int) func(string) (string, error) {
	return func(v string) (string, error) {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil {
			return "", pgerr.New(pgerr.InvalidParameterValue, "invalid value for integer parameter: %q", v)
		}
		if n < lo || n > hi {
			return "", pgerr.New(pgerr.InvalidParameterValue, "%d is outside the valid range for parameter (%d .. %d)", n, lo, hi)
		}
		return strconv.Itoa(n), nil
	}
}

// checkEncoding reads a client_encoding value as PostgreSQL's
// pg_char_to_encoding does: case and every character that is not a
// letter or digit are ignored ("utf-8", "'UTF8'" as asyncpg sends it,
// "Unicode" all name UTF8). streamdb speaks UTF8 only: another encoding
// PostgreSQL knows is refused as unsupported, a name it does not know as
// an invalid value.
func checkEncoding(v string) (string, error) {
	clean := strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			return r
		case r >= 'A' && r <= 'Z':
			return r + 'a' - 'A'
		}
		return -1
	}, v)
	switch {
	case clean == "utf8" || clean == "unicode":
		return "UTF8", nil
	case otherEncodings[clean]:
		return "", pgerr.New(pgerr.FeatureNotSupported, "encoding %q is not supported; streamdb speaks UTF8 only", v)
	}
	return "", pgerr.New(pgerr.InvalidParameterValue, "invalid value for parameter \"client_encoding\": %q", v)
}

// otherEncodings are the other names of PostgreSQL's pg_encname_tbl, as
// checkEncoding cleans them.
var otherEncodings = func() map[string]bool {
	m := map[string]bool{}
	for _, n := range strings.Fields(`abc alt big5 euccn eucjis2004 eucjp euckr euctw gb18030 gbk iso88591 iso885910
		iso885913 iso885914 iso885915 iso885916 iso88592 iso88593 iso88594 iso88595 iso88596 iso88597 iso88598
		iso88599 johab koi8 koi8r koi8u latin1 latin10 latin2 latin3 latin4 latin5 latin6 latin7 latin8 latin9
		mskanji muleinternal shiftjis shiftjis2004 sjis sqlascii tcvn tcvn5712 uhc vscii win win1250 win1251
		win1252 win1253 win1254 win1255 win1256 win1257 win1258 win866 win874 win932 win936 win949 win950
		windows1250 windows1251 windows1252 windows1253 windows1254 windows1255 windows1256 windows1257
		windows1258 windows866 windows874 windows932 windows936 windows949 windows950`) {
		m[n] = true
	}
	return m
}()

func checkDateStyle(v string) (string, error) {
	style, order := "ISO", "MDY"
	for _, part := range strings.Split(v, ",") {
		switch strings.ToUpper(strings.TrimSpace(part)) {
		case "ISO":
			style = "ISO"
		case "SQL":
			style = "SQL"
		case "POSTGRES":
			style = "Postgres"
		case "GERMAN":
			style = "German"
		case "MDY", "US", "NONEURO", "NONEUROPEAN":
			order = "MDY"
		case "DMY", "EURO", "EUROPEAN":
			order = "DMY"
		case "YMD":
			order = "YMD"
		case "DEFAULT", "":
		default:
			return "", pgerr.New(pgerr.InvalidParameterValue, "invalid value for parameter \"DateStyle\": %q", v).
				WithDetail("Unrecognized key word: %q.", strings.TrimSpace(part))
		}
	}
	return style + ", " + order, nil
}

func parseDateStyle(v string, style types.DateStyle, order types.DateOrder) (types.DateStyle, types.DateOrder) {
	for _, part := range strings.Split(v, ",") {
		switch strings.ToUpper(strings.TrimSpace(part)) {
		case "ISO":
			style = types.DateStyleISO
		case "SQL":
			style = types.DateStyleSQL
		case "POSTGRES":
			style = types.DateStylePostgres
		case "GERMAN":
			style = types.DateStyleGerman
		case "MDY":
			order = types.DateOrderMDY
		case "DMY":
			order = types.DateOrderDMY
		case "YMD":
			order = types.DateOrderYMD
		}
	}
	return style, order
}

func checkTimeZone(v string) (string, error) {
	v = strings.TrimSpace(v)
	if _, err := loadZone(v); err != nil {
		return "", pgerr.New(pgerr.InvalidParameterValue, "invalid value for parameter \"TimeZone\": %q", v)
	}
	if strings.EqualFold(v, "utc") {
		return "UTC", nil
	}
	return v, nil
}

// loadZone resolves a TimeZone setting: an IANA name or a numeric offset
// in hours (as SET TIME ZONE -7), which PostgreSQL reads east of UTC.
func loadZone(v string) (*time.Location, error) {
	if v == "" || strings.EqualFold(v, "utc") || strings.EqualFold(v, "gmt") || v == "Z" {
		return time.UTC, nil
	}
	if h, err := strconv.ParseFloat(v, 64); err == nil {
		secs := int(h * 3600)
		return time.FixedZone(fmt.Sprintf("%+g", h), secs), nil
	}
	return time.LoadLocation(v)
}
