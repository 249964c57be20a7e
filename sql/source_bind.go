package sql

import (
	"context"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/streamdb/streamdb/catalog"
	"github.com/streamdb/streamdb/engine"
	"github.com/streamdb/streamdb/internal/egress"
	"github.com/streamdb/streamdb/internal/kafkaconn"
	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/pgwire"
	"github.com/streamdb/streamdb/sources"
	"github.com/streamdb/streamdb/sources/kafka"
	"github.com/streamdb/streamdb/sources/loadgen"
	"github.com/streamdb/streamdb/sql/parser"
	"github.com/streamdb/streamdb/types"
)

// sourceSpec is a CREATE SOURCE statement resolved against the catalog:
// the source to run and the relations it fills.
type sourceSpec struct {
	src  sources.Source
	kind string // for SHOW SOURCES: "kafka", "load-generator"
	// own says the source object holds its one output's rows itself;
	// otherwise names holds the relation name of each output, "" for an
	// output left out of FOR TABLES, which is not kept.
	own     bool
	names   []string
	outputs []sources.Output
	deps    []uint64
	// prepare, when set, is what must be true outside the catalog
	// before the source is created (a Kafka source's dead letter topic
	// exists); it returns a notice when it changed something.
	prepare func(ctx context.Context) (notice string, err error)
}

// buildSource resolves a CREATE SOURCE statement. startTimestamp is what
// a relative START TIMESTAMP stands for (see relativeStart); the source
// dials through egress, the server's egress policy.
func buildSource(cat *catalog.Catalog, st *parser.CreateSource, startTimestamp int64, log *slog.Logger, egress *egress.Policy) (*sourceSpec, error) {
	switch {
	case st.LoadGenerator != nil:
		return buildLoadGenerator(st)
	case st.Kafka != nil:
		return buildKafka(cat, st, startTimestamp, log, egress)
	}
	return nil, pgerr.New(pgerr.FeatureNotSupported, "PostgreSQL sources are not supported yet")
}

func buildLoadGenerator(st *parser.CreateSource) (*sourceSpec, error) {
	g := st.LoadGenerator
	if len(st.Columns) > 0 {
		return nil, pgerr.New(pgerr.SyntaxError, "load generator sources do not take a column list")
	}
	var opts loadgen.Options
	if g.TickInterval != nil {
		d, err := types.ParseText(g.TickInterval.Value, types.TypeInterval, nil)
		if err != nil {
			return nil, err
		}
		iv := d.Interval()
		if iv.Months != 0 {
			return nil, pgerr.New(pgerr.InvalidParameterValue, "TICK INTERVAL cannot contain months or years")
		}
		opts.TickInterval = time.Duration(iv.Micros+int64(iv.Days)*86400e6) * time.Microsecond
	}
	if g.MaxCardinality != nil {
		opts.MaxCardinality = g.MaxCardinality.Value
	}
	if g.ScaleFactor != nil {
		opts.ScaleFactor = g.ScaleFactor.Value
	}
	if g.EventsPerSecond != nil {
		opts.EventsPerSecond = float64(g.EventsPerSecond.Value)
	}
	if g.MaxEvents != nil {
		opts.MaxEvents = g.MaxEvents.Value
	}
	if g.Seed != nil {
		opts.Seed = g.Seed.Value
	}
	if g.AsOf != nil || g.UpTo != nil {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "AS OF and UP TO are not supported for load generators")
	}
	kind := strings.ToLower(g.Generator.String())
	src, err := loadgen.New(kind, opts)
	if err != nil {
		return nil, err
	}
	spec := &sourceSpec{src: src, kind: "load-generator", outputs: src.Outputs()}
	if len(spec.outputs) == 1 {
		if g.Tables != nil {
			return nil, pgerr.New(pgerr.SyntaxError, "FOR TABLES is only valid for load generators with several tables")
		}
		spec.own = true
		return spec, nil
	}
	if g.Tables == nil {
		return nil, pgerr.New(pgerr.SyntaxError, "multi-output sources require a FOR TABLES (..) or FOR ALL TABLES statement")
	}
	spec.names = make([]string, len(spec.outputs))
	switch g.Tables.Kind {
	case parser.ForAllTables:
		for i, o := range spec.outputs {
			spec.names[i] = o.Name
		}
	case parser.ForTables:
		for _, t := range g.Tables.Tables {
			name := t.Name[len(t.Name)-1].Value
			found := false
			for i, o := range spec.outputs {
				if o.Name == name {
					spec.names[i] = name
					if t.Alias != nil {
						spec.names[i] = t.Alias[len(t.Alias)-1].Value
					}
					found = true
				}
			}
			if !found {
				return nil, pgerr.New(pgerr.UndefinedTable, "load generator %s has no table %q", g.Generator, name)
			}
		}
	default:
		return nil, pgerr.New(pgerr.SyntaxError, "FOR SCHEMAS is not valid for load generators")
	}
	return spec, nil
}

// connectionStatement returns the parsed CREATE CONNECTION of a connection.
func connectionStatement(cat *catalog.Catalog, name parser.Name) (*catalog.Object, *parser.CreateConnection, error) {
	o, n, ok := resolveName(cat, name)
	if !ok || o.Kind != catalog.KindConnection {
		return nil, nil, pgerr.New(pgerr.UndefinedObject, "connection %q does not exist", n)
	}
	st, ok, err := parser.Parse(o.SQL)
	if err != nil || !ok {
		return nil, nil, pgerr.New(pgerr.DataCorrupted, "stored connection %q cannot be parsed: %v", n, err)
	}
	return o, st.(*parser.CreateConnection), nil
}

// secretValue resolves an inline string or a secret reference.
func secretValue(cat *catalog.Catalog, v *parser.StringOrSecret) (string, error) {
	if v == nil {
		return "", nil
	}
	if v.Inline != nil {
		return v.Inline.Value, nil
	}
	return secretByName(cat, v.Secret)
}

// secretByName returns the plaintext of the secret a connection names,
// for a source or sink to connect with: when it is created, and again
// when the engine rebuilds it on start. The value is sealed in the
// catalog and opened here (catalog.Catalog.SecretValue); it must go
// nowhere but into the client that connects with it.
func secretByName(cat *catalog.Catalog, name parser.Name) (string, error) {
	o, n, ok := resolveName(cat, name)
	if !ok || o.Kind != catalog.KindSecret {
		return "", pgerr.New(pgerr.UndefinedObject, "secret %q does not exist", n)
	}
	return cat.SecretValue(o)
}

// relativeStart resolves a relative (negative) START TIMESTAMP against now,
// once, when the source is created. The result is kept in the catalog
// (Object.StartTimestamp) and used again on recovery: resolving it against
// the restart time instead would skip records produced in between to
// partitions that had no position yet. It returns 0 for other statements.
func relativeStart(st *parser.CreateSource, now time.Time) int64 {
	if st.Kafka == nil || st.Kafka.StartTimestamp == nil || st.Kafka.StartTimestamp.Value >= 0 {
		return 0
	}
	return max(now.UnixMilli()+st.Kafka.StartTimestamp.Value, 0)
}

func buildKafka(cat *catalog.Catalog, st *parser.CreateSource, startTimestamp int64, log *slog.Logger, egress *egress.Policy) (*sourceSpec, error) {
	k := st.Kafka
	connObj, conn, err := connectionStatement(cat, k.Connection)
	if err != nil {
		return nil, err
	}
	if conn.Kafka == nil {
		return nil, pgerr.New(pgerr.WrongObjectType, "connection %q is not a Kafka connection", connObj.Name)
	}
	cfg := kafka.Config{Name: st.Name.String(), Topic: k.Topic.Value, StartTimestamp: -1, Logger: log.With("source", st.Name.String())}
	if cfg.Connection, err = kafkaConnection(cat, conn.Kafka); err != nil {
		return nil, err
	}
	if egress != nil {
		cfg.Dial = egress.Dial
	}
	for _, o := range k.StartOffset {
		cfg.StartOffsets = append(cfg.StartOffsets, o.Value)
	}
	if k.StartTimestamp != nil {
		cfg.StartTimestamp = k.StartTimestamp.Value
		if cfg.StartTimestamp < 0 {
			cfg.StartTimestamp = startTimestamp
		}
	}
	if k.Format != nil {
		f, err := kafkaFormat(k.Format)
		if err != nil {
			return nil, err
		}
		cfg.ValueFormat = f
		if k.KeyFormat == nil && (k.Envelope != nil && k.Envelope.Kind != parser.EnvelopeNone || hasIncludeKey(k)) {
			cfg.KeyFormat = f
		}
	}
	if k.KeyFormat != nil {
		f, err := kafkaFormat(k.KeyFormat)
		if err != nil {
			return nil, err
		}
		cfg.KeyFormat = f
	}
	for _, inc := range k.Include {
		opt := kafka.IncludeOpt{}
		switch inc.Kind {
		case parser.IncludeKey:
			opt.Kind = kafka.IncludeKey
		case parser.IncludePartition:
			opt.Kind = kafka.IncludePartition
		case parser.IncludeOffset:
			opt.Kind = kafka.IncludeOffset
		case parser.IncludeTimestamp:
			opt.Kind = kafka.IncludeTimestamp
		case parser.IncludeHeaders:
			opt.Kind = kafka.IncludeHeaders
		}
		if inc.Alias != nil {
			opt.Alias = inc.Alias.Value
		}
		cfg.Include = append(cfg.Include, opt)
	}
	if k.Envelope != nil {
		switch k.Envelope.Kind {
		case parser.EnvelopeUpsert:
			cfg.Envelope = kafka.EnvelopeUpsert
		case parser.EnvelopeDebezium:
			cfg.Envelope = kafka.EnvelopeDebezium
		}
	}
	if k.DeadLetterTopic != nil {
		cfg.DeadLetterTopic = k.DeadLetterTopic.Value
	}
	if k.GroupIDPrefix != nil {
		// Materialize names its group <prefix>materialize-…-<source>.
		cfg.GroupID = k.GroupIDPrefix.Value + "streamdb-" + st.Name[len(st.Name)-1].Value
	}
	b := newBinder(cat, nil, nil)
	for _, c := range st.Columns {
		t, err := typeFromText(b, c.Type.Text)
		if err != nil {
			return nil, err
		}
		cfg.Columns = append(cfg.Columns, sources.Column{Name: c.Name.Value, Type: t, NotNull: c.NotNull})
	}
	src, err := kafka.New(cfg)
	if err != nil {
		return nil, err
	}
	spec := &sourceSpec{src: src, kind: "kafka", outputs: src.Outputs(), own: true, deps: []uint64{connObj.ID}}
	if cfg.DeadLetterTopic != "" {
		spec.prepare = func(ctx context.Context) (string, error) {
			created, err := kafka.EnsureDeadLetterTopic(ctx, cfg)
			if err != nil || !created {
				return "", err
			}
			return kafka.DeadLetterTopicCreated(cfg.DeadLetterTopic), nil
		}
	}
	return spec, nil
}

// kafkaConnection resolves a Kafka connection's brokers and
// credentials, for sources and sinks.
func kafkaConnection(cat *catalog.Catalog, k *parser.KafkaConnection) (kafkaconn.Connection, error) {
	var c kafkaconn.Connection
	for _, b := range k.Brokers {
		c.Brokers = append(c.Brokers, b.Value)
	}
	if k.SASLMechanisms != nil {
		var err error
		c.SASL.Mechanism = k.SASLMechanisms.Value
		if c.SASL.User, err = secretValue(cat, k.SASLUsername); err != nil {
			return c, err
		}
		if k.SASLPassword != nil {
			if c.SASL.Password, err = secretByName(cat, k.SASLPassword); err != nil {
				return c, err
			}
		}
	}
	if k.SecurityProtocol != nil {
		c.SecurityProtocol = strings.ToUpper(k.SecurityProtocol.Value)
	}
	return c, nil
}

func hasIncludeKey(k *parser.KafkaSource) bool {
	for _, inc := range k.Include {
		if inc.Kind == parser.IncludeKey {
			return true
		}
	}
	return false
}

func kafkaFormat(f *parser.Format) (kafka.Format, error) {
	switch f.Kind {
	case parser.FormatJSON:
		return kafka.Format{Kind: kafka.FormatJSON}, nil
	case parser.FormatText:
		return kafka.Format{Kind: kafka.FormatText}, nil
	case parser.FormatBytes:
		return kafka.Format{Kind: kafka.FormatBytes}, nil
	case parser.FormatCSV:
		if f.CSVColumns == nil {
			return kafka.Format{}, pgerr.New(pgerr.FeatureNotSupported, "CSV WITH HEADER is not supported; use CSV WITH n COLUMNS")
		}
		out := kafka.Format{Kind: kafka.FormatCSV, CSVColumns: int(f.CSVColumns.Value)}
		if f.CSVDelimiter != nil {
			if len(f.CSVDelimiter.Value) != 1 {
				return kafka.Format{}, pgerr.New(pgerr.InvalidParameterValue, "CSV delimiter must be a single one-byte character")
			}
			out.CSVDelimiter = f.CSVDelimiter.Value[0]
		}
		return out, nil
	}
	return kafka.Format{}, pgerr.New(pgerr.FeatureNotSupported, "format %s is not supported", f.Kind)
}

// typeFromText resolves a type name written in a streamdb statement with
// PostgreSQL's type grammar.
func typeFromText(b *binder, text string) (types.Type, error) {
	raws, err := parseQuery("SELECT NULL::" + text)
	if err != nil {
		return types.Type{}, pgerr.New(pgerr.SyntaxError, "invalid type %q", text)
	}
	tc := raws[0].node.GetSelectStmt().TargetList[0].GetResTarget().Val.GetTypeCast()
	if tc == nil {
		return types.Type{}, pgerr.New(pgerr.SyntaxError, "invalid type %q", text)
	}
	return b.bindType(tc.TypeName)
}

func (s *session) bindCreateSource(raw *rawStatement, st *parser.CreateSource) (*boundStmt, error) {
	if len(st.Name) > 1 && st.Name[len(st.Name)-2].Value != catalog.DefaultSchema {
		return nil, pgerr.New(pgerr.InvalidSchemaName, "schema %q does not exist", st.Name[len(st.Name)-2].Value)
	}
	name := st.Name[len(st.Name)-1].Value
	if st.Postgres != nil {
		return ddl("CREATE SOURCE", func(ctx context.Context, s *session) error {
			return s.createPostgresSource(ctx, raw, st)
		}), nil
	}
	return ddl("CREATE SOURCE", func(ctx context.Context, s *session) error {
		start := relativeStart(st, time.Now())
		// What the source needs outside streamdb is made sure of here,
		// on the session's goroutine: the catalog change runs on the
		// engine's, which must not wait for a broker.
		if cat := s.e.snapshot().Catalog(); !st.IfNotExists || !nameHeld(cat, name) {
			if spec, err := buildSource(cat, st, start, s.e.log, s.e.egress); err == nil && spec.prepare != nil {
				msg, err := spec.prepare(ctx)
				if err != nil {
					return err
				}
				if msg != "" {
					s.notice(pgerr.New(pgerr.SuccessfulCompletion, "%s", msg))
				}
			}
		}
		return s.submitDDL(ctx, func(ctx context.Context, tx *engine.DDL, notice func(*pgerr.Error)) error {
			if other, exists := tx.Catalog().Lookup(catalog.DefaultSchema, name); exists {
				if st.IfNotExists {
					notice(pgerr.New(pgerr.DuplicateObject, "source %q already exists, skipping", name))
					return nil
				}
				return tx.Catalog().NameTaken(other)
			}
			spec, err := buildSource(tx.Catalog(), st, start, s.e.log, s.e.egress)
			if err != nil {
				return err
			}
			if err := s.checkUsage(tx.Catalog(), spec.deps); err != nil {
				return err
			}
			def := engine.SourceDef{Name: name, SQL: raw.text, DependsOn: spec.deps,
				Own: spec.own, Relations: spec.names, StartTimestamp: start, NotStored: st.NotStored()}
			if outs := spec.src.Outputs(); st.Watermark != nil || st.Kafka != nil && st.Kafka.LateData != nil {
				rel := &catalog.Object{Name: name}
				for _, c := range outs[0].Columns {
					rel.Columns = append(rel.Columns, catalog.ColumnDef{Name: c.Name, Type: c.Type})
				}
				b := newBinder(tx.Catalog(), &s.info, nil)
				if def.Watermark, def.LateData, err = sourceEventTime(b, st, rel, len(outs[0].Key) == 0 && !outs[0].Retracts); err != nil {
					return err
				}
				def.SQL = withLateData(st)
			}
			return tx.CreateSource(ctx, def, spec.src)
		})
	}), nil
}

func (s *session) bindCreateConnection(raw *rawStatement, st *parser.CreateConnection) (*boundStmt, error) {
	name := st.Name[len(st.Name)-1].Value
	secrets := connectionSecrets(st)
	if st.Postgres != nil {
		if err := checkPostgresConnection(st.Postgres); err != nil {
			return nil, err
		}
	}
	return ddl("CREATE CONNECTION", func(ctx context.Context, s *session) error {
		return s.submitDDL(ctx, func(ctx context.Context, tx *engine.DDL, notice func(*pgerr.Error)) error {
			if other, exists := tx.Catalog().Lookup(catalog.DefaultSchema, name); exists {
				if st.IfNotExists {
					notice(pgerr.New(pgerr.DuplicateObject, "connection %q already exists, skipping", name))
					return nil
				}
				return tx.Catalog().NameTaken(other)
			}
			var deps []uint64
			for _, ref := range secrets {
				o, n, ok := resolveName(tx.Catalog(), ref)
				if !ok || o.Kind != catalog.KindSecret {
					return pgerr.New(pgerr.UndefinedObject, "secret %q does not exist", n)
				}
				deps = append(deps, o.ID)
			}
			if err := s.mayConnect(ctx, tx.Catalog(), deps, st); err != nil {
				return err
			}
			o := &catalog.Object{Kind: catalog.KindConnection, Schema: catalog.DefaultSchema, Name: name, SQL: raw.text, DependsOn: deps}
			o.ID = tx.NextID()
			return tx.Create(ctx, o)
		})
	}), nil
}

// connectionSecrets lists the secrets a connection names.
func connectionSecrets(st *parser.CreateConnection) []parser.Name {
	var refs []parser.Name
	var values []*parser.StringOrSecret
	switch {
	case st.Kafka != nil:
		refs = append(refs, st.Kafka.SASLPassword)
		values = append(values, st.Kafka.SASLUsername, st.Kafka.SSLCertificateAuthority)
	case st.Postgres != nil:
		refs = append(refs, st.Postgres.Password)
		values = append(values, st.Postgres.User)
	}
	for _, v := range values {
		if v != nil {
			refs = append(refs, v.Secret)
		}
	}
	return slices.DeleteFunc(refs, func(n parser.Name) bool { return n == nil })
}

// checkPostgresConnection checks a PostgreSQL connection's options; the
// connection is tried by CREATE SOURCE, which reads upstream's catalog.
func checkPostgresConnection(pc *parser.PostgresConnection) error {
	switch {
	case pc.User == nil:
		return pgerr.New(pgerr.InvalidParameterValue, "POSTGRES connection requires a USER")
	case pc.Database == nil:
		return pgerr.New(pgerr.InvalidParameterValue, "POSTGRES connection requires a DATABASE")
	case pc.Port != nil && (pc.Port.Value <= 0 || pc.Port.Value > 65535):
		return pgerr.New(pgerr.InvalidParameterValue, "invalid PORT %d", pc.Port.Value)
	}
	if pc.SSLMode != nil {
		switch strings.ToLower(pc.SSLMode.Value) {
		case "disable", "require", "verify-full":
		default:
			return pgerr.New(pgerr.InvalidParameterValue, "invalid SSL MODE %q", pc.SSLMode.Value).
				WithHint("Valid modes are disable, require and verify-full.")
		}
	}
	return nil
}

func (s *session) bindCreateSecret(st *parser.CreateSecret) (*boundStmt, error) {
	name := st.Name[len(st.Name)-1].Value
	value := st.Value.Value
	return ddl("CREATE SECRET", func(ctx context.Context, s *session) error {
		return s.submitDDL(ctx, func(ctx context.Context, tx *engine.DDL, notice func(*pgerr.Error)) error {
			if other, exists := tx.Catalog().Lookup(catalog.DefaultSchema, name); exists {
				if st.IfNotExists {
					notice(pgerr.New(pgerr.DuplicateObject, "secret %q already exists, skipping", name))
					return nil
				}
				return tx.Catalog().NameTaken(other)
			}
			// The stored statement never holds the value: SHOW CREATE
			// must not reveal it. The value is sealed before it reaches
			// the store.
			sealed, err := tx.Catalog().Seal(value)
			if err != nil {
				return err
			}
			o := &catalog.Object{Kind: catalog.KindSecret, Schema: catalog.DefaultSchema, Name: name, SQL: secretSQL(name), SealedSecret: sealed}
			o.ID = tx.NextID()
			return tx.Create(ctx, o)
		})
	}), nil
}

// bindDropStreamdb drops sources, sinks, connections and secrets.
func (s *session) bindDropStreamdb(st *parser.Drop) (*boundStmt, error) {
	var kind catalog.ObjectKind
	var tag string
	switch st.Kind {
	case parser.ObjectSource:
		kind, tag = catalog.KindSource, "DROP SOURCE"
	case parser.ObjectConnection:
		kind, tag = catalog.KindConnection, "DROP CONNECTION"
	case parser.ObjectSecret:
		kind, tag = catalog.KindSecret, "DROP SECRET"
	case parser.ObjectSink:
		kind, tag = catalog.KindSink, "DROP SINK"
	default:
		return nil, pgerr.New(pgerr.FeatureNotSupported, "DROP %s is not supported yet", st.Kind)
	}
	b := ddl(tag, func(ctx context.Context, s *session) error {
		var slots []slotDrop
		err := s.submitDDL(ctx, func(ctx context.Context, tx *engine.DDL, notice func(*pgerr.Error)) error {
			before := tx.Catalog().Frozen()
			slots = nil
			defer func() { slots = droppedSlots(tx, before, s.e.egress) }()
			for _, n := range st.Names {
				obj, name, ok := resolveName(tx.Catalog(), n)
				if !ok {
					if st.IfExists {
						notice(pgerr.New(pgerr.SuccessfulCompletion, "%s %q does not exist, skipping", kind, name))
						continue
					}
					return pgerr.New(pgerr.UndefinedObject, "%s %q does not exist", kind, name)
				}
				if obj.Kind != kind {
					return errWrongKind(name, kind, obj.Kind)
				}
				if err := requireOwner(tx.Catalog(), s.info.role, obj); err != nil {
					return err
				}
				if err := dropWithDependents(tx, obj, st.Behavior == parser.DropCascade, notice); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
		s.dropSlots(ctx, slots)
		return nil
	})
	b.catalogIndependent = true
	return b, nil
}

// showSources lists sources with their state, and connections and secrets.
func showSourceListing(kind parser.ShowKind) ([]pgwire.Column, func(e *Frontend, cat *catalog.Catalog) (listing, error), bool) {
	switch kind {
	case parser.ShowSources:
		return sourceListing()
	case parser.ShowSinks:
		cols := textCols("name", "type", "status")
		return cols, func(e *Frontend, cat *catalog.Catalog) (listing, error) {
			l := listing{cols: cols}
			for _, o := range cat.Objects(catalog.KindSink) {
				l.rows = append(l.rows, types.Row{types.NewText(o.Name), types.NewText("kafka"), types.NewText(e.eng.SinkStatus(o.ID))})
			}
			return l, nil
		}, true
	case parser.ShowConnections:
		cols := textCols("name", "type")
		return cols, func(e *Frontend, cat *catalog.Catalog) (listing, error) {
			l := listing{cols: cols}
			for _, o := range cat.Objects(catalog.KindConnection) {
				typ := "kafka"
				if strings.Contains(strings.ToUpper(o.SQL), "TO POSTGRES") {
					typ = "postgres"
				}
				l.rows = append(l.rows, types.Row{types.NewText(o.Name), types.NewText(typ)})
			}
			return l, nil
		}, true
	case parser.ShowSecrets:
		cols := textCols("name")
		return cols, func(e *Frontend, cat *catalog.Catalog) (listing, error) {
			l := listing{cols: cols}
			for _, o := range cat.Objects(catalog.KindSecret) {
				l.rows = append(l.rows, types.Row{types.NewText(o.Name)})
			}
			return l, nil
		}, true
	}
	return nil, nil, false
}

// nameHeld reports whether an object holds name.
func nameHeld(cat *catalog.Catalog, name string) bool {
	_, ok := cat.Lookup(catalog.DefaultSchema, name)
	return ok
}
