package parser

import (
	"strconv"
	"strings"

	"github.com/streamdb/streamdb/pgerr"
)

// KafkaSource is the FROM KAFKA part of CREATE SOURCE:
//
//	KAFKA CONNECTION conn (TOPIC 't' [, START OFFSET (0, 10, …)]
//	    [, START TIMESTAMP n] [, GROUP ID PREFIX 'p'])
//	[FORMAT f | KEY FORMAT f VALUE FORMAT f]
//	[INCLUDE KEY [AS k] | PARTITION [AS p] | OFFSET [AS o]
//	    | TIMESTAMP [AS ts] | HEADERS [AS h], …]
//	[ENVELOPE NONE | UPSERT | DEBEZIUM]
//	[WITH (DEAD LETTER TOPIC = 'name', STORED = bool,
//	       LATE DATA = 'drop' | 'dead-letter')]
//
// START OFFSET lists one offset per partition, from partition 0; a negative
// START TIMESTAMP is relative to now, in milliseconds.
type KafkaSource struct {
	Connection     Name
	Topic          StringLit
	StartOffset    []IntLit
	StartTimestamp *IntLit
	GroupIDPrefix  *StringLit
	// Format is the value format, and the key format too unless KeyFormat
	// is set (KEY FORMAT … VALUE FORMAT …).
	Format          *Format
	KeyFormat       *Format
	Include         []Include
	Envelope        *Envelope
	DeadLetterTopic *StringLit
	// Stored is STORED = false|true: whether the source's rows are
	// kept (the default) or only fed to the views that read them.
	Stored *BoolLit
	// LateData is the policy for rows behind the source's watermark.
	LateData *StringLit
}

// IncludeKind is a piece of Kafka metadata a source can expose as a column.
type IncludeKind uint8

// The INCLUDE items.
const (
	IncludeKey IncludeKind = iota + 1
	IncludePartition
	IncludeOffset
	IncludeTimestamp
	IncludeHeaders
)

var includeWords = [...]string{IncludeKey: "key", IncludePartition: "partition",
	IncludeOffset: "offset", IncludeTimestamp: "timestamp", IncludeHeaders: "headers"}

func (k IncludeKind) String() string {
	if int(k) < len(includeWords) && k > 0 {
		return strings.ToUpper(includeWords[k])
	}
	return "IncludeKind(" + strconv.Itoa(int(k)) + ")"
}

// Include is one INCLUDE item; Alias is nil when the column keeps its
// default name.
type Include struct {
	Kind  IncludeKind
	Pos   Pos
	Alias *Ident
}

func (k *KafkaSource) String() string {
	var b strings.Builder
	b.WriteString("KAFKA CONNECTION ")
	b.WriteString(k.Connection.String())
	var l optionList
	l.add("TOPIC", k.Topic.String())
	if k.StartOffset != nil {
		parts := make([]string, len(k.StartOffset))
		for i, o := range k.StartOffset {
			parts[i] = o.String()
		}
		l.add("START OFFSET", "("+strings.Join(parts, ", ")+")")
	}
	if k.StartTimestamp != nil {
		l.add("START TIMESTAMP", k.StartTimestamp.String())
	}
	if k.GroupIDPrefix != nil {
		l.add("GROUP ID PREFIX", k.GroupIDPrefix.String())
	}
	b.WriteByte(' ')
	b.WriteString(l.String())
	writeFormats(&b, k.Format, k.KeyFormat)
	for i, inc := range k.Include {
		if i == 0 {
			b.WriteString(" INCLUDE ")
		} else {
			b.WriteString(", ")
		}
		b.WriteString(inc.Kind.String())
		if inc.Alias != nil {
			b.WriteString(" AS ")
			b.WriteString(inc.Alias.String())
		}
	}
	if k.Envelope != nil {
		b.WriteString(" ENVELOPE ")
		b.WriteString(k.Envelope.Kind.String())
	}
	var w optionList
	if k.DeadLetterTopic != nil {
		w.add("DEAD LETTER TOPIC", k.DeadLetterTopic.String())
	}
	if k.Stored != nil {
		w.add("STORED", k.Stored.String())
	}
	if k.LateData != nil {
		w.add("LATE DATA", k.LateData.String())
	}
	if len(w) > 0 {
		b.WriteString(" WITH ")
		b.WriteString(w.String())
	}
	return b.String()
}

var kafkaSourceOptions = optionNames{
	{"topic"}, {"start", "offset"}, {"start", "timestamp"}, {"group", "id", "prefix"},
}

var kafkaSourceWithOptions = optionNames{{"dead", "letter", "topic"}, {"stored"}, {"late", "data"}}

func (p *parser) kafkaSource() (*KafkaSource, error) {
	if _, err := p.expectKw("connection"); err != nil {
		return nil, err
	}
	k := &KafkaSource{}
	var err error
	if k.Connection, err = p.name(); err != nil {
		return nil, err
	}
	open := p.peek().start
	names := kafkaSourceOptions
	hasTopic := false
	err = p.options(names, func(i int, at Pos) error {
		var err error
		switch i {
		case 0:
			k.Topic, err = p.optString(names, i)
			hasTopic = true
		case 1, 2:
			if k.StartOffset != nil || k.StartTimestamp != nil {
				return errorAt(p.src, int(at), pgerr.SyntaxError, "conflicting or redundant options")
			}
			if i == 1 {
				k.StartOffset, err = p.optIntList(names, i)
			} else {
				k.StartTimestamp, err = ptr(p.optInt(names, i))
			}
		case 3:
			k.GroupIDPrefix, err = ptr(p.optString(names, i))
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	if !hasTopic {
		return nil, errorAt(p.src, open, pgerr.SyntaxError, "TOPIC option is required")
	}
	if k.Format, k.KeyFormat, err = p.formats(false); err != nil {
		return nil, err
	}
	if p.acceptKw("include") {
		if k.Include, err = p.includes(); err != nil {
			return nil, err
		}
	}
	if p.acceptKw("envelope") {
		if k.Envelope, err = ptr(p.envelope(true)); err != nil {
			return nil, err
		}
		if p.isOp(p.peek(), "(") {
			return nil, errorAt(p.src, p.peek().start, pgerr.FeatureNotSupported,
				"ENVELOPE %s options are not supported", k.Envelope.Kind)
		}
	}
	if p.acceptKw("with") {
		names := kafkaSourceWithOptions
		err = p.options(names, func(i int, at Pos) error {
			var err error
			switch i {
			case 1:
				k.Stored, err = ptr(p.optBool(names, i, at))
				return err
			case 2:
				k.LateData, err = p.lateDataOption(names, i)
				return err
			}
			k.DeadLetterTopic, err = ptr(p.optString(names, i))
			return err
		})
		if err != nil {
			return nil, err
		}
	}
	return k, nil
}

// includes reads the items after INCLUDE.
func (p *parser) includes() ([]Include, error) {
	var out []Include
	var seen [len(includeWords)]bool
	for {
		t := p.peek()
		inc := Include{Pos: Pos(t.start)}
		for k, w := range includeWords {
			if w != "" && p.isKw(t, w) {
				inc.Kind = IncludeKind(k)
			}
		}
		if inc.Kind == 0 {
			return nil, p.unsupported([][]string{{"header"}}, "INCLUDE %s is not supported")
		}
		if seen[inc.Kind] {
			return nil, errorAt(p.src, t.start, pgerr.SyntaxError, "conflicting or redundant options")
		}
		seen[inc.Kind] = true
		p.next()
		if p.acceptKw("as") {
			alias, err := p.ident()
			if err != nil {
				return nil, err
			}
			inc.Alias = &alias
		}
		out = append(out, inc)
		if !p.acceptOp(",") {
			return out, nil
		}
	}
}
