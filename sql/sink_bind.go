package sql

import (
	"context"
	"log/slog"
	"slices"
	"strconv"

	"github.com/streamdb/streamdb/catalog"
	"github.com/streamdb/streamdb/engine"
	"github.com/streamdb/streamdb/internal/egress"
	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/sinks"
	"github.com/streamdb/streamdb/sinks/kafka"
	"github.com/streamdb/streamdb/sql/parser"
)

// sinkSpec is a CREATE SINK statement resolved against the catalog.
type sinkSpec struct {
	sink     sinks.Sink
	from     *catalog.Object
	conn     *catalog.Object
	key      []int
	checkKey bool
}

// buildSink resolves a CREATE SINK statement for the sink with catalog id
// id. instance is the engine's InstanceID, which the sink's Kafka
// transactional id includes; egress checks every broker it dials.
func buildSink(cat *catalog.Catalog, st *parser.CreateSink, id uint64, instance string, log *slog.Logger, egress *egress.Policy) (*sinkSpec, error) {
	from, name, ok := resolveName(cat, st.From)
	if !ok {
		return nil, pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", name).WithPosition(int(st.From.Pos()) + 1)
	}
	connObj, conn, err := connectionStatement(cat, st.Connection)
	if err != nil {
		return nil, err
	}
	if conn.Kafka == nil {
		return nil, pgerr.New(pgerr.WrongObjectType, "connection %q is not a Kafka connection", connObj.Name)
	}
	cfg := kafka.Config{
		ID:       instance + "-" + strconv.FormatUint(id, 10),
		Topic:    st.Topic.Value,
		Snapshot: st.Snapshot == nil || st.Snapshot.Value,
		Logger:   log.With("sink", st.Name.String()),
	}
	if cfg.Connection, err = kafkaConnection(cat, conn.Kafka); err != nil {
		return nil, err
	}
	if egress != nil {
		cfg.Dial = egress.Dial
	}
	if conn.Kafka.ProgressTopic != nil {
		cfg.ProgressTopic = conn.Kafka.ProgressTopic.Value
	}
	if st.TopicPartitions != nil {
		if st.TopicPartitions.Value <= 0 || st.TopicPartitions.Value > 1<<31-1 {
			return nil, pgerr.New(pgerr.InvalidParameterValue, "TOPIC PARTITION COUNT must be positive, not %d", st.TopicPartitions.Value)
		}
		cfg.TopicPartitions = int32(st.TopicPartitions.Value)
	}
	if st.TopicReplicationFactor != nil {
		if st.TopicReplicationFactor.Value <= 0 || st.TopicReplicationFactor.Value > 1<<15-1 {
			return nil, pgerr.New(pgerr.InvalidParameterValue, "TOPIC REPLICATION FACTOR must be positive, not %d", st.TopicReplicationFactor.Value)
		}
		cfg.TopicReplicationFactor = int16(st.TopicReplicationFactor.Value)
	}
	for _, c := range from.Columns {
		cfg.Columns = append(cfg.Columns, sinks.Column{Name: c.Name, Type: c.Type})
	}
	for _, k := range st.Key {
		i := slices.IndexFunc(from.Columns, func(c catalog.ColumnDef) bool { return c.Name == k.Value })
		if i < 0 {
			return nil, pgerr.New(pgerr.UndefinedColumn, "column %q does not exist in %q", k.Value, from.Name).WithPosition(int(k.Pos) + 1)
		}
		cfg.Key = append(cfg.Key, i)
	}
	if st.Format != nil {
		if cfg.ValueFormat, err = sinkFormat(st.Format); err != nil {
			return nil, err
		}
	}
	if st.KeyFormat != nil {
		if cfg.KeyFormat, err = sinkFormat(st.KeyFormat); err != nil {
			return nil, err
		}
	}
	switch st.Envelope.Kind {
	case parser.EnvelopeUpsert:
		cfg.Envelope = kafka.EnvelopeUpsert
	case parser.EnvelopeDebezium:
		cfg.Envelope = kafka.EnvelopeDebezium
	default:
		return nil, pgerr.New(pgerr.FeatureNotSupported, "ENVELOPE %s is not supported for sinks", st.Envelope.Kind)
	}
	s, err := kafka.New(cfg)
	if err != nil {
		return nil, err
	}
	return &sinkSpec{sink: s, from: from, conn: connObj, key: cfg.Key, checkKey: len(cfg.Key) > 0 && !st.KeyNotEnforced}, nil
}

func sinkFormat(f *parser.Format) (kafka.Format, error) {
	switch f.Kind {
	case parser.FormatJSON:
		return kafka.FormatJSON, nil
	case parser.FormatText:
		return kafka.FormatText, nil
	}
	return 0, pgerr.New(pgerr.FeatureNotSupported, "FORMAT %s is not supported for kafka sinks", f.Kind).WithPosition(int(f.Pos) + 1)
}

// bindCreateSink binds CREATE SINK … INTO KAFKA.
func (s *session) bindCreateSink(raw *rawStatement, st *parser.CreateSink) (*boundStmt, error) {
	if len(st.Name) > 1 && st.Name[len(st.Name)-2].Value != catalog.DefaultSchema {
		return nil, pgerr.New(pgerr.InvalidSchemaName, "schema %q does not exist", st.Name[len(st.Name)-2].Value)
	}
	name := st.Name[len(st.Name)-1].Value
	return ddl("CREATE SINK", func(ctx context.Context, s *session) error {
		return s.submitDDL(ctx, func(ctx context.Context, tx *engine.DDL, notice func(*pgerr.Error)) error {
			if _, exists := tx.Catalog().Lookup(catalog.DefaultSchema, name); exists {
				if st.IfNotExists {
					notice(pgerr.New(pgerr.DuplicateObject, "sink %q already exists, skipping", name))
					return nil
				}
				return pgerr.New(pgerr.DuplicateObject, "sink %q already exists", name)
			}
			id := tx.NextID()
			spec, err := buildSink(tx.Catalog(), st, id, s.e.eng.InstanceID(), s.e.log, s.e.egress)
			if err != nil {
				return err
			}
			// A sink writes its relation out as its creator could read
			// it: SELECT on the relation, USAGE on the connection.
			if err := checkRead(tx.Catalog(), s.info.role, []uint64{spec.from.ID}); err != nil {
				return err
			}
			if err := s.checkUsage(tx.Catalog(), []uint64{spec.conn.ID}); err != nil {
				return err
			}
			return tx.CreateSink(ctx, engine.SinkDef{ID: id, Name: name, SQL: raw.text, From: spec.from.ID,
				DependsOn: []uint64{spec.conn.ID}, Key: spec.key, CheckKey: spec.checkKey}, spec.sink)
		})
	}), nil
}
