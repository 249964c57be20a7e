package kafka

import (
	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/sources"
	"github.com/streamdb/streamdb/types"
)

// layout is the shape of a source's output row and where each part of a
// record lands in it. As in Materialize the key columns come first (when
// the key is part of the row), then the value columns, then the INCLUDE
// metadata columns in statement order.
type layout struct {
	columns []sources.Column
	// key lists the key columns of an upsert output (Output.Key).
	key []int

	keyDec   decoder // nil without a key format
	keyWidth int
	// keyAt is the first row column of the decoded key when the key is
	// its own part of the row, -1 otherwise.
	keyAt int
	// keyMerged, under ENVELOPE DEBEZIUM, maps each key column to the
	// value column of the same name; nil otherwise.
	keyMerged []int

	valueDec   decoder
	valueAt    int
	valueWidth int

	meta []metaColumn
}

// metaColumn is an INCLUDE option other than KEY and its row column.
type metaColumn struct {
	at  int
	opt IncludeOpt
}

// buildLayout checks the formats, column lists, envelope and INCLUDE
// options of cfg together and lays out the output row.
func buildLayout(cfg *Config) (*layout, error) {
	if cfg.ValueFormat.Kind == FormatUnset {
		return nil, pgerr.New(pgerr.SyntaxError, "kafka source requires a FORMAT or VALUE FORMAT")
	}
	includeKey := -1
	for i, inc := range cfg.Include {
		if inc.Kind != IncludeKey {
			continue
		}
		if includeKey >= 0 {
			return nil, pgerr.New(pgerr.SyntaxError, "INCLUDE KEY specified more than once")
		}
		includeKey = i
	}
	keyed := cfg.Envelope == EnvelopeUpsert || cfg.Envelope == EnvelopeDebezium
	if cfg.KeyFormat.Kind == FormatUnset {
		switch {
		case keyed:
			return nil, pgerr.New(pgerr.SyntaxError, "ENVELOPE %s requires that KEY FORMAT be specified", cfg.Envelope).
				WithHint("Use KEY FORMAT … VALUE FORMAT …, or FORMAT … for both.")
		case includeKey >= 0:
			return nil, pgerr.New(pgerr.SyntaxError, "INCLUDE KEY requires that KEY FORMAT be specified").
				WithHint("Use KEY FORMAT … VALUE FORMAT …, or FORMAT … for both.")
		case len(cfg.KeyColumns) > 0:
			return nil, pgerr.New(pgerr.SyntaxError, "a key column list requires KEY FORMAT JSON")
		}
	}
	if cfg.Envelope == EnvelopeDebezium && cfg.ValueFormat.Kind != FormatJSON {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "ENVELOPE DEBEZIUM requires VALUE FORMAT JSON")
	}
	if cfg.Envelope > EnvelopeDebezium {
		return nil, pgerr.New(pgerr.InvalidParameterValue, "unknown envelope %d", cfg.Envelope)
	}

	l := &layout{keyAt: -1}
	var keyCols, valueCols []sources.Column
	var err error
	if cfg.KeyFormat.Kind != FormatUnset {
		if l.keyDec, keyCols, err = keyDecoder(cfg.KeyFormat, cfg.KeyColumns); err != nil {
			return nil, err
		}
		l.keyWidth = len(keyCols)
		if includeKey >= 0 && cfg.Include[includeKey].Alias != "" {
			if len(cfg.KeyColumns) > 0 {
				return nil, pgerr.New(pgerr.SyntaxError, "INCLUDE KEY AS cannot rename a declared key column list")
			}
			keyCols[0].Name = cfg.Include[includeKey].Alias
		}
	}
	if l.valueDec, valueCols, err = valueDecoder(cfg.ValueFormat, cfg.Columns); err != nil {
		return nil, err
	}

	merged := cfg.Envelope == EnvelopeDebezium && includeKey < 0 && len(cfg.KeyColumns) > 0
	for _, k := range keyCols {
		merged = merged && columnIndex(valueCols, k.Name) >= 0
	}
	if merged {
		l.valueAt, l.valueWidth = 0, len(valueCols)
		l.columns = append(l.columns, valueCols...)
		for _, k := range cfg.KeyColumns {
			vi := columnIndex(valueCols, k.Name)
			if vt := valueCols[vi].Type; k.Type.Family != types.Unknown && k.Type != vt {
				return nil, pgerr.New(pgerr.DatatypeMismatch, "key column %q is %s but the value column of that name is %s", k.Name, k.Type, vt)
			}
			l.keyMerged = append(l.keyMerged, vi)
		}
		// The key decodes with the value columns' types.
		typed := make([]sources.Column, len(keyCols))
		for i, vi := range l.keyMerged {
			typed[i] = valueCols[vi]
		}
		l.keyDec = newJSONColumnsDecoder(typed)
		l.key = l.keyMerged
	} else {
		if keyed || includeKey >= 0 {
			l.keyAt = 0
			for i := range keyCols {
				if keyed && len(cfg.KeyColumns) == 0 {
					keyCols[i].NotNull = true
				}
				l.key = append(l.key, i)
			}
			l.columns = append(l.columns, keyCols...)
		}
		if !keyed {
			l.key = nil
		}
		l.valueAt, l.valueWidth = len(l.columns), len(valueCols)
		l.columns = append(l.columns, valueCols...)
	}

	for _, inc := range cfg.Include {
		if inc.Kind == IncludeKey {
			continue
		}
		col, err := metaColumnFor(inc)
		if err != nil {
			return nil, err
		}
		l.meta = append(l.meta, metaColumn{at: len(l.columns), opt: inc})
		l.columns = append(l.columns, col)
	}

	seen := make(map[string]bool, len(l.columns))
	for _, c := range l.columns {
		if c.Name == "" {
			return nil, pgerr.New(pgerr.InvalidName, "zero-length column name")
		}
		if seen[c.Name] {
			return nil, pgerr.New(pgerr.DuplicateColumn, "column %q specified more than once", c.Name).
				WithHint("Rename a column with AS or with the column list.")
		}
		seen[c.Name] = true
	}
	return l, nil
}

func columnIndex(cols []sources.Column, name string) int {
	for i, c := range cols {
		if c.Name == name {
			return i
		}
	}
	return -1
}

// keyDecoder returns the decoder and columns of a key format.
func keyDecoder(f Format, declared []sources.Column) (decoder, []sources.Column, error) {
	if len(declared) > 0 && f.Kind != FormatJSON {
		return nil, nil, pgerr.New(pgerr.SyntaxError, "a key column list requires KEY FORMAT JSON, not %s", f.Kind)
	}
	switch f.Kind {
	case FormatText:
		return textDecoder{typ: types.TypeText}, []sources.Column{{Name: "key", Type: types.TypeText}}, nil
	case FormatBytes:
		return bytesDecoder{}, []sources.Column{{Name: "key", Type: types.TypeBytea}}, nil
	case FormatJSON:
		if len(declared) == 0 {
			return &jsonbDecoder{}, []sources.Column{{Name: "key", Type: types.TypeJSONB}}, nil
		}
		cols := jsonColumns(declared)
		return newJSONColumnsDecoder(cols), cols, nil
	case FormatCSV:
		return nil, nil, pgerr.New(pgerr.FeatureNotSupported, "KEY FORMAT CSV is not supported").
			WithHint("Use KEY FORMAT TEXT and split the key in a view.")
	}
	return nil, nil, pgerr.New(pgerr.InvalidParameterValue, "unknown key format %d", f.Kind)
}

// jsonColumns copies a declared JSON column list, typing untyped columns
// as jsonb.
func jsonColumns(declared []sources.Column) []sources.Column {
	cols := append([]sources.Column(nil), declared...)
	for i := range cols {
		if cols[i].Type.Family == types.Unknown {
			cols[i].Type = types.TypeJSONB
		}
	}
	return cols
}

// valueDecoder returns the decoder and columns of a value format, applying
// the declared column list.
func valueDecoder(f Format, declared []sources.Column) (decoder, []sources.Column, error) {
	switch f.Kind {
	case FormatJSON:
		if len(declared) == 0 {
			return &jsonbDecoder{}, []sources.Column{{Name: "data", Type: types.TypeJSONB}}, nil
		}
		cols := jsonColumns(declared)
		return newJSONColumnsDecoder(cols), cols, nil
	case FormatText:
		cols, err := renameColumns(f, declared, []sources.Column{{Name: "text", Type: types.TypeText}})
		if err != nil {
			return nil, nil, err
		}
		return textDecoder{typ: cols[0].Type}, cols, nil
	case FormatBytes:
		cols, err := renameColumns(f, declared, []sources.Column{{Name: "data", Type: types.TypeBytea}})
		if err != nil {
			return nil, nil, err
		}
		if cols[0].Type != types.TypeBytea {
			return nil, nil, pgerr.New(pgerr.DatatypeMismatch, "FORMAT BYTES produces a bytea column, not %s", cols[0].Type)
		}
		return bytesDecoder{}, cols, nil
	case FormatCSV:
		if f.CSVColumns <= 0 {
			return nil, nil, pgerr.New(pgerr.InvalidParameterValue, "CSV WITH n COLUMNS requires a positive n, not %d", f.CSVColumns)
		}
		delim := f.CSVDelimiter
		if delim == 0 {
			delim = ','
		}
		if delim == '"' || delim == '\n' || delim == '\r' || delim >= 0x80 {
			return nil, nil, pgerr.New(pgerr.InvalidParameterValue, "CSV delimiter %q is not allowed", rune(delim)).
				WithHint("The delimiter must be one ASCII character other than a quote or a line break.")
		}
		defaults := make([]sources.Column, f.CSVColumns)
		for i := range defaults {
			defaults[i] = sources.Column{Name: csvColumnName(i), Type: types.TypeText}
		}
		cols, err := renameColumns(f, declared, defaults)
		if err != nil {
			return nil, nil, err
		}
		d := &csvDecoder{delim: delim}
		for _, c := range cols {
			d.names = append(d.names, c.Name)
			d.types = append(d.types, c.Type)
		}
		return d, cols, nil
	}
	return nil, nil, pgerr.New(pgerr.InvalidParameterValue, "unknown value format %d", f.Kind)
}

// renameColumns applies a declared column list to a format's fixed
// columns: names always, types where given.
func renameColumns(f Format, declared, defaults []sources.Column) ([]sources.Column, error) {
	if len(declared) == 0 {
		return defaults, nil
	}
	if len(declared) != len(defaults) {
		return nil, pgerr.New(pgerr.SyntaxError, "FORMAT %s produces %d columns, but the column list names %d", f.Kind, len(defaults), len(declared))
	}
	cols := append([]sources.Column(nil), declared...)
	for i := range cols {
		if cols[i].Type.Family == types.Unknown {
			cols[i].Type = defaults[i].Type
		}
	}
	return cols, nil
}

// metaColumnFor returns the column an INCLUDE option adds.
func metaColumnFor(inc IncludeOpt) (sources.Column, error) {
	name := func(def string) string {
		if inc.Alias != "" {
			return inc.Alias
		}
		return def
	}
	switch inc.Kind {
	case IncludePartition:
		return sources.Column{Name: name("partition"), Type: types.TypeInt4, NotNull: true}, nil
	case IncludeOffset:
		return sources.Column{Name: name("offset"), Type: types.TypeInt8, NotNull: true}, nil
	case IncludeTimestamp:
		return sources.Column{Name: name("timestamp"), Type: types.TypeTimestamp, NotNull: true}, nil
	case IncludeHeaders:
		return sources.Column{Name: name("headers"), Type: types.TypeJSONB, NotNull: true}, nil
	case IncludeHeader:
		if inc.Header == "" {
			return sources.Column{}, pgerr.New(pgerr.SyntaxError, "INCLUDE HEADER requires a header key")
		}
		if inc.Alias == "" {
			return sources.Column{}, pgerr.New(pgerr.SyntaxError, "INCLUDE HEADER %q requires AS name", inc.Header)
		}
		if inc.Bytes {
			return sources.Column{Name: inc.Alias, Type: types.TypeBytea}, nil
		}
		return sources.Column{Name: inc.Alias, Type: types.TypeText}, nil
	}
	return sources.Column{}, pgerr.New(pgerr.InvalidParameterValue, "unknown INCLUDE option %d", inc.Kind)
}
