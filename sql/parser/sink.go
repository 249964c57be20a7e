package parser

import (
	"strings"

	"github.com/streamdb/streamdb/pgerr"
)

// CreateSink is
//
//	CREATE SINK [IF NOT EXISTS] name FROM obj
//	INTO KAFKA CONNECTION conn (TOPIC 't' [, TOPIC PARTITION COUNT n]
//	                                      [, TOPIC REPLICATION FACTOR n])
//	[KEY (col, …) [NOT ENFORCED]]
//	[FORMAT f | KEY FORMAT f VALUE FORMAT f]
//	ENVELOPE UPSERT | DEBEZIUM
//	[WITH (SNAPSHOT = true | false)]
//
// Formats are JSON, TEXT or BYTES. NOT ENFORCED lets the key columns be
// used without proof that they are a key of obj.
type CreateSink struct {
	IfNotExists bool
	Name        Name
	From        Name
	Connection  Name
	Topic       StringLit
	// TopicPartitions and TopicReplicationFactor configure the topic
	// when the sink creates it.
	TopicPartitions        *IntLit
	TopicReplicationFactor *IntLit
	Key                    []Ident
	KeyNotEnforced         bool
	// Format is the value format, and the key format too unless KeyFormat
	// is set.
	Format    *Format
	KeyFormat *Format
	Envelope  Envelope
	Snapshot  *BoolLit
}

func (*CreateSink) statement() {}

func (s *CreateSink) String() string {
	var b strings.Builder
	b.WriteString("CREATE SINK ")
	writeIf(&b, s.IfNotExists, "IF NOT EXISTS")
	b.WriteString(s.Name.String())
	b.WriteString(" FROM ")
	b.WriteString(s.From.String())
	b.WriteString(" INTO KAFKA CONNECTION ")
	b.WriteString(s.Connection.String())
	var l optionList
	l.add("TOPIC", s.Topic.String())
	if s.TopicPartitions != nil {
		l.add("TOPIC PARTITION COUNT", s.TopicPartitions.String())
	}
	if s.TopicReplicationFactor != nil {
		l.add("TOPIC REPLICATION FACTOR", s.TopicReplicationFactor.String())
	}
	b.WriteByte(' ')
	b.WriteString(l.String())
	if s.Key != nil {
		b.WriteString(" KEY (")
		b.WriteString(joinIdents(s.Key))
		b.WriteByte(')')
		if s.KeyNotEnforced {
			b.WriteString(" NOT ENFORCED")
		}
	}
	writeFormats(&b, s.Format, s.KeyFormat)
	b.WriteString(" ENVELOPE ")
	b.WriteString(s.Envelope.Kind.String())
	if s.Snapshot != nil {
		var w optionList
		w.add("SNAPSHOT", s.Snapshot.String())
		b.WriteString(" WITH ")
		b.WriteString(w.String())
	}
	return b.String()
}

var kafkaSinkOptions = optionNames{{"topic"}, {"topic", "partition", "count"}, {"topic", "replication", "factor"}}

var sinkWithOptions = optionNames{{"snapshot"}}

func (p *parser) createSink() (Statement, error) {
	if err := p.expectKws("create", "sink"); err != nil {
		return nil, err
	}
	s := &CreateSink{}
	var err error
	if s.IfNotExists, err = p.ifNotExists(); err != nil {
		return nil, err
	}
	if s.Name, err = p.name(); err != nil {
		return nil, err
	}
	if err = p.refuseInCluster(); err != nil {
		return nil, err
	}
	if _, err = p.expectKw("from"); err != nil {
		return nil, err
	}
	if s.From, err = p.name(); err != nil {
		return nil, err
	}
	if _, err = p.expectKw("into"); err != nil {
		return nil, err
	}
	if !p.kwAt(0, "kafka") {
		return nil, p.unsupported([][]string{{"iceberg"}}, "%s sinks are not supported")
	}
	if err = p.expectKws("kafka", "connection"); err != nil {
		return nil, err
	}
	if s.Connection, err = p.name(); err != nil {
		return nil, err
	}
	open := p.peek().start
	names := kafkaSinkOptions
	hasTopic := false
	err = p.options(names, func(i int, at Pos) error {
		var err error
		switch i {
		case 0:
			s.Topic, err = p.optString(names, i)
			hasTopic = true
		case 1:
			s.TopicPartitions, err = ptr(p.optInt(names, i))
		default:
			s.TopicReplicationFactor, err = ptr(p.optInt(names, i))
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	if !hasTopic {
		return nil, errorAt(p.src, open, pgerr.SyntaxError, "TOPIC option is required")
	}
	if p.kwAt(0, "key") && p.isOp(p.peekAt(1), "(") {
		p.next()
		if s.Key, err = p.identList(); err != nil {
			return nil, err
		}
		if p.acceptKw("not") {
			if _, err = p.expectKw("enforced"); err != nil {
				return nil, err
			}
			s.KeyNotEnforced = true
		}
	}
	if s.Format, s.KeyFormat, err = p.formats(true); err != nil {
		return nil, err
	}
	if _, err = p.expectKw("envelope"); err != nil {
		return nil, err
	}
	if s.Envelope, err = p.envelope(false); err != nil {
		return nil, err
	}
	if p.acceptKw("with") {
		names := sinkWithOptions
		err = p.options(names, func(i int, at Pos) error {
			var err error
			s.Snapshot, err = ptr(p.optBool(names, i, at))
			return err
		})
		if err != nil {
			return nil, err
		}
	}
	return s, nil
}
