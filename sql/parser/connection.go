package parser

import (
	"strings"

	"github.com/streamdb/streamdb/pgerr"
)

// CreateConnection is CREATE CONNECTION [IF NOT EXISTS] name TO KAFKA (…)
// or TO POSTGRES (…). Exactly one of Kafka and Postgres is set. Option
// values are checked for type here and for meaning (a known SASL mechanism,
// a reachable host) by the caller, which has the positions to point at.
type CreateConnection struct {
	IfNotExists bool
	Name        Name
	Kafka       *KafkaConnection
	Postgres    *PostgresConnection
}

// KafkaConnection holds the options of a Kafka connection. Brokers has at
// least one entry (BROKER 'a' or BROKERS ('a', 'b')); nil pointers and
// names are options not given.
type KafkaConnection struct {
	Brokers []StringLit
	// SASLMechanisms is 'PLAIN', 'SCRAM-SHA-256' or 'SCRAM-SHA-512'.
	SASLMechanisms *StringLit
	SASLUsername   *StringOrSecret
	SASLPassword   Name // SECRET name
	// SecurityProtocol is 'PLAINTEXT', 'SSL', 'SASL_PLAINTEXT' or 'SASL_SSL'.
	SecurityProtocol        *StringLit
	SSLCertificateAuthority *StringOrSecret
	ProgressTopic           *StringLit
}

// PostgresConnection holds the options of a PostgreSQL connection; HOST is
// required.
type PostgresConnection struct {
	Host     StringLit
	Port     *IntLit
	User     *StringOrSecret
	Password Name // SECRET name
	Database *StringLit
	SSLMode  *StringLit
}

func (*CreateConnection) statement() {}

func (s *CreateConnection) String() string {
	var b strings.Builder
	b.WriteString("CREATE CONNECTION ")
	writeIf(&b, s.IfNotExists, "IF NOT EXISTS")
	b.WriteString(s.Name.String())
	b.WriteString(" TO ")
	if s.Kafka != nil {
		b.WriteString("KAFKA ")
		b.WriteString(s.Kafka.options().String())
	} else if s.Postgres != nil {
		b.WriteString("POSTGRES ")
		b.WriteString(s.Postgres.options().String())
	}
	return b.String()
}

func (k *KafkaConnection) options() optionList {
	var l optionList
	if len(k.Brokers) == 1 {
		l.add("BROKER", k.Brokers[0].String())
	} else {
		parts := make([]string, len(k.Brokers))
		for i, br := range k.Brokers {
			parts[i] = br.String()
		}
		l.add("BROKERS", "("+strings.Join(parts, ", ")+")")
	}
	if k.SASLMechanisms != nil {
		l.add("SASL MECHANISMS", k.SASLMechanisms.String())
	}
	if k.SASLUsername != nil {
		l.add("SASL USERNAME", k.SASLUsername.String())
	}
	if k.SASLPassword != nil {
		l.add("SASL PASSWORD", "SECRET "+k.SASLPassword.String())
	}
	if k.SecurityProtocol != nil {
		l.add("SECURITY PROTOCOL", k.SecurityProtocol.String())
	}
	if k.SSLCertificateAuthority != nil {
		l.add("SSL CERTIFICATE AUTHORITY", k.SSLCertificateAuthority.String())
	}
	if k.ProgressTopic != nil {
		l.add("PROGRESS TOPIC", k.ProgressTopic.String())
	}
	return l
}

func (c *PostgresConnection) options() optionList {
	var l optionList
	l.add("HOST", c.Host.String())
	if c.Port != nil {
		l.add("PORT", c.Port.String())
	}
	if c.User != nil {
		l.add("USER", c.User.String())
	}
	if c.Password != nil {
		l.add("PASSWORD", "SECRET "+c.Password.String())
	}
	if c.Database != nil {
		l.add("DATABASE", c.Database.String())
	}
	if c.SSLMode != nil {
		l.add("SSL MODE", c.SSLMode.String())
	}
	return l
}

// unsupportedConnections are Materialize connection types streamdb lacks.
var unsupportedConnections = [][]string{
	{"confluent", "schema", "registry"}, {"ssh", "tunnel"}, {"aws", "privatelink"},
	{"aws"}, {"mysql"}, {"sql", "server"}, {"iceberg", "catalog"},
}

func (p *parser) createConnection() (Statement, error) {
	if err := p.expectKws("create", "connection"); err != nil {
		return nil, err
	}
	s := &CreateConnection{}
	var err error
	if s.IfNotExists, err = p.ifNotExists(); err != nil {
		return nil, err
	}
	if s.Name, err = p.name(); err != nil {
		return nil, err
	}
	if _, err = p.expectKw("to"); err != nil {
		return nil, err
	}
	switch {
	case p.acceptKw("kafka"):
		s.Kafka, err = p.kafkaConnection()
	case p.acceptKw("postgres"):
		s.Postgres, err = p.postgresConnection()
	default:
		err = p.unsupported(unsupportedConnections, "%s connections are not supported")
	}
	if err != nil {
		return nil, err
	}
	return s, nil
}

var kafkaConnectionOptions = optionNames{
	{"broker"}, {"brokers"}, {"sasl", "mechanisms"}, {"sasl", "username"},
	{"sasl", "password"}, {"security", "protocol"},
	{"ssl", "certificate", "authority"}, {"progress", "topic"},
}

func (p *parser) kafkaConnection() (*KafkaConnection, error) {
	open := p.peek().start
	k := &KafkaConnection{}
	names := kafkaConnectionOptions
	err := p.options(names, func(i int, at Pos) error {
		var err error
		switch i {
		case 0, 1:
			if k.Brokers != nil {
				return errorAt(p.src, int(at), pgerr.SyntaxError, "conflicting or redundant options")
			}
			if i == 0 {
				var br StringLit
				br, err = p.optString(names, i)
				k.Brokers = []StringLit{br}
			} else {
				k.Brokers, err = p.optStringList(names, i)
			}
		case 2:
			k.SASLMechanisms, err = ptr(p.optString(names, i))
		case 3:
			k.SASLUsername, err = ptr(p.optStringOrSecret(names, i))
		case 4:
			k.SASLPassword, err = p.optSecret(names, i)
		case 5:
			k.SecurityProtocol, err = ptr(p.optString(names, i))
		case 6:
			k.SSLCertificateAuthority, err = ptr(p.optStringOrSecret(names, i))
		case 7:
			k.ProgressTopic, err = ptr(p.optString(names, i))
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	if k.Brokers == nil {
		return nil, errorAt(p.src, open, pgerr.SyntaxError, "BROKER or BROKERS option is required")
	}
	return k, nil
}

var postgresConnectionOptions = optionNames{
	{"host"}, {"port"}, {"user"}, {"password"}, {"database"}, {"ssl", "mode"},
}

func (p *parser) postgresConnection() (*PostgresConnection, error) {
	open := p.peek().start
	c := &PostgresConnection{}
	names := postgresConnectionOptions
	hasHost := false
	err := p.options(names, func(i int, at Pos) error {
		var err error
		switch i {
		case 0:
			c.Host, err = p.optString(names, i)
			hasHost = true
		case 1:
			c.Port, err = ptr(p.optInt(names, i))
		case 2:
			c.User, err = ptr(p.optStringOrSecret(names, i))
		case 3:
			c.Password, err = p.optSecret(names, i)
		case 4:
			c.Database, err = ptr(p.optString(names, i))
		case 5:
			c.SSLMode, err = ptr(p.optString(names, i))
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	if !hasHost {
		return nil, errorAt(p.src, open, pgerr.SyntaxError, "HOST option is required")
	}
	return c, nil
}

// ptr turns a parsed value into an optional one.
func ptr[T any](v T, err error) (*T, error) {
	if err != nil {
		return nil, err
	}
	return &v, nil
}
