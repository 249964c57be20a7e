package parser

import (
	"math/rand"
	"strings"
	"testing"
)

// TestRoundTripRandom builds random statements of every form from their
// pieces (names that need quoting or not, awkward strings, optional
// clauses), and checks that each parses and prints back to an equal
// statement.
func TestRoundTripRandom(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	g := gen{r}
	forms := []func() string{
		g.secret, g.connection, g.kafkaSource, g.loadGenSource, g.postgresSource,
		g.sink, g.subscribe, g.drop, g.show, g.explain,
	}
	for i := range 5000 {
		sql := forms[i%len(forms)]()
		stmt, ok, err := Parse(sql)
		if err != nil || !ok {
			t.Fatalf("Parse(%q): ok=%v err=%v", sql, ok, err)
		}
		checkRoundTrip(t, sql, stmt)
	}
}

type gen struct{ r *rand.Rand }

func (g gen) pick(s ...string) string { return s[g.r.Intn(len(s))] }

func (g gen) maybe(s string) string {
	if g.r.Intn(2) == 0 {
		return ""
	}
	return s
}

func (g gen) ident() string {
	return g.pick("a", "orders", "Orders", `"Mixed Case"`, `"a""b"`, `"select"`, "key",
		"source", "if", "cascade", `"offset"`, "é", `"ü"`, "x$1", "_t", `"1st"`, "tables")
}

func (g gen) name() string {
	n := g.ident()
	for range g.r.Intn(3) {
		n += "." + g.ident()
	}
	return n
}

func (g gen) str() string {
	return g.pick("'x'", "''", "'it''s'", "E'tab\\there'", "$$dollar$$", "'multi\nline'",
		"'back\\slash'", "'é'", "'a'\n'b'", "$q$it's$q$")
}

func (g gen) int() string {
	return g.pick("0", "1", "42", "-1000", "1_000", "0x10", "9223372036854775807", "-9223372036854775808")
}

func (g gen) eq() string { return g.pick(" ", " = ") }

func (g gen) secretOrString() string {
	if g.r.Intn(2) == 0 {
		return g.str()
	}
	return "SECRET " + g.name()
}

func (g gen) options(opts []string) string {
	g.r.Shuffle(len(opts), func(i, j int) { opts[i], opts[j] = opts[j], opts[i] })
	n := 1 + g.r.Intn(len(opts))
	return "(" + strings.Join(opts[:n], ", ") + ")"
}

func (g gen) secret() string {
	return "CREATE SECRET " + g.maybe("IF NOT EXISTS ") + g.name() + " AS " + g.str()
}

func (g gen) connection() string {
	if g.r.Intn(2) == 0 {
		opts := []string{
			"SASL MECHANISMS" + g.eq() + g.str(), "SASL USERNAME" + g.eq() + g.secretOrString(),
			"SASL PASSWORD" + g.eq() + "SECRET " + g.name(), "SECURITY PROTOCOL" + g.eq() + g.str(),
			"SSL CERTIFICATE AUTHORITY" + g.eq() + g.secretOrString(), "PROGRESS TOPIC" + g.eq() + g.str(),
		}
		broker := g.pick("BROKER"+g.eq()+g.str(), "BROKERS"+g.eq()+"("+g.str()+", "+g.str()+")", "BROKERS ("+g.str()+")")
		o := g.options(opts)
		return "CREATE CONNECTION " + g.name() + " TO KAFKA (" + broker + ", " + o[1:]
	}
	opts := []string{
		"PORT" + g.eq() + g.int(), "USER" + g.eq() + g.secretOrString(), "PASSWORD SECRET " + g.name(),
		"DATABASE" + g.eq() + g.str(), "SSL MODE" + g.eq() + g.str(),
	}
	return "CREATE CONNECTION " + g.maybe("IF NOT EXISTS ") + g.name() + " TO POSTGRES (HOST " + g.str() + ", " + g.options(opts)[1:]
}

func (g gen) format() string {
	return g.pick("JSON", "TEXT", "BYTES", "CSV WITH 3 COLUMNS", "CSV WITH HEADER ("+g.ident()+", "+g.ident()+")",
		"CSV WITH 2 COLUMNS DELIMITED BY "+g.str())
}

func (g gen) kafkaSource() string {
	var b strings.Builder
	b.WriteString("CREATE SOURCE " + g.maybe("IF NOT EXISTS ") + g.name())
	if g.r.Intn(2) == 0 {
		b.WriteString(" (" + g.ident() + " " + g.pick("int", "numeric(10, 2)", "text[]", "timestamp with time zone", `"MyType"`) + g.pick("", " NOT NULL", " NULL") + ")")
	}
	start := g.pick("", ", START OFFSET ("+g.int()+", "+g.int()+")", ", START TIMESTAMP "+g.int())
	b.WriteString(" FROM KAFKA CONNECTION " + g.name() + " (TOPIC " + g.str() + start + g.maybe(", GROUP ID PREFIX "+g.str()) + ")")
	switch g.r.Intn(3) {
	case 1:
		b.WriteString(" FORMAT " + g.format())
	case 2:
		b.WriteString(" KEY FORMAT " + g.format() + " VALUE FORMAT " + g.format())
	}
	if g.r.Intn(2) == 0 {
		items := []string{"KEY", "PARTITION", "OFFSET", "TIMESTAMP", "HEADERS"}
		g.r.Shuffle(len(items), func(i, j int) { items[i], items[j] = items[j], items[i] })
		for i := range items {
			items[i] += g.maybe(" AS " + g.ident())
		}
		b.WriteString(" INCLUDE " + strings.Join(items[:1+g.r.Intn(len(items))], ", "))
	}
	b.WriteString(g.maybe(" ENVELOPE " + g.pick("NONE", "UPSERT", "DEBEZIUM")))
	b.WriteString(g.maybe(" WITH (DEAD LETTER TOPIC" + g.eq() + g.str() + ")"))
	return b.String()
}

func (g gen) tables(schemas bool) string {
	if schemas && g.r.Intn(3) == 0 {
		return "FOR SCHEMAS (" + g.ident() + ", " + g.ident() + ")"
	}
	if g.r.Intn(2) == 0 {
		return "FOR ALL TABLES"
	}
	return "FOR TABLES (" + g.name() + g.maybe(" AS "+g.name()) + ", " + g.name() + ")"
}

func (g gen) loadGenSource() string {
	opts := []string{
		"TICK INTERVAL" + g.eq() + g.str(), "MAX CARDINALITY" + g.eq() + g.int(),
		"SCALE FACTOR" + g.eq() + g.pick("0.01", "1", "1e-3", "-2.5", "1_0.5"),
		"EVENTS PER SECOND" + g.eq() + g.int(), "MAX EVENTS" + g.eq() + g.int(),
		"SEED" + g.eq() + g.int(), "AS OF" + g.eq() + g.int(), "UP TO" + g.eq() + g.int(),
	}
	return "CREATE SOURCE " + g.name() + " FROM LOAD GENERATOR " + g.pick("COUNTER", "AUCTION", "TPCH", "NEXMARK", "MARKETING") +
		g.maybe(" "+g.options(opts)) + g.maybe(" "+g.tables(false))
}

func (g gen) postgresSource() string {
	opts := []string{"SLOT" + g.eq() + g.str(), "TEXT COLUMNS (" + g.name() + ", " + g.ident() + "." + g.ident() + ")"}
	o := g.options(opts)
	return "CREATE SOURCE " + g.name() + " FROM POSTGRES CONNECTION " + g.name() + " (PUBLICATION " + g.str() +
		g.maybe(", "+o[1:len(o)-1]) + ") " + g.tables(true)
}

func (g gen) sink() string {
	return "CREATE SINK " + g.maybe("IF NOT EXISTS ") + g.name() + " FROM " + g.name() + " INTO KAFKA CONNECTION " + g.name() +
		" (TOPIC" + g.eq() + g.str() + ")" + g.maybe(" KEY ("+g.ident()+", "+g.ident()+")"+g.maybe(" NOT ENFORCED")) +
		g.pick("", " FORMAT JSON", " KEY FORMAT TEXT VALUE FORMAT BYTES") + " ENVELOPE " + g.pick("UPSERT", "DEBEZIUM") +
		g.maybe(" WITH (SNAPSHOT"+g.pick("", " = true", " false", " ON", " off")+")")
}

func (g gen) subscribe() string {
	target := g.pick(g.name(), "(SELECT a, 'x)' FROM t WHERE b IN (1, 2))", "(VALUES (1), (2))")
	clauses := []string{
		" WITH (SNAPSHOT" + g.eq() + g.pick("true", "false") + ", PROGRESS)",
		" AS OF " + g.maybe("AT LEAST ") + g.int(),
		" UP TO " + g.int(),
		" ENVELOPE " + g.pick("UPSERT", "DEBEZIUM") + " (KEY (" + g.ident() + "))",
	}
	g.r.Shuffle(len(clauses), func(i, j int) { clauses[i], clauses[j] = clauses[j], clauses[i] })
	sub := "SUBSCRIBE " + g.maybe("TO ") + target + strings.Join(clauses[:g.r.Intn(len(clauses)+1)], "")
	if g.r.Intn(3) == 0 {
		return "COPY (" + sub + ") TO STDOUT" + g.pick("", " WITH (FORMAT csv)", " (FORMAT 'binary')", " WITH (FORMAT TEXT)")
	}
	return sub
}

func (g gen) drop() string {
	return "DROP " + g.pick("SOURCE", "SINK", "CONNECTION", "SECRET") + g.maybe(" IF EXISTS") + " " + g.name() +
		g.maybe(", "+g.name()) + g.pick("", " CASCADE", " RESTRICT")
}

func (g gen) show() string {
	filter := g.pick("", " LIKE "+g.str(), " WHERE name = 'x' AND (a OR b)")
	switch g.r.Intn(4) {
	case 0:
		return "SHOW CREATE " + g.pick("TABLE", "VIEW", "MATERIALIZED VIEW", "SOURCE", "SINK", "INDEX", "CONNECTION") + " " + g.name()
	case 1:
		return "SHOW COLUMNS FROM " + g.name() + filter
	case 2:
		return "SHOW INDEXES" + g.maybe(g.pick(" ON ", " FROM ")+g.name()) + filter
	}
	return "SHOW " + g.pick("SOURCES", "SINKS", "CONNECTIONS", "SECRETS", "TABLES", "VIEWS", "MATERIALIZED VIEWS", "OBJECTS") +
		g.maybe(" FROM "+g.ident()) + filter
}

func (g gen) explain() string {
	stage := g.pick("DATAFLOW", "PLAN", "RAW PLAN", "DECORRELATED PLAN", "OPTIMIZED PLAN", "PHYSICAL PLAN")
	with := g.maybe(" WITH (arity, join implementations = " + g.pick("true", "off") + ")")
	target := g.pick("SELECT 1", "WITH x AS (SELECT 1) SELECT * FROM x", "MATERIALIZED VIEW "+g.name(), "VIEW "+g.name(), "INDEX "+g.name())
	return "EXPLAIN " + stage + with + g.maybe(" AS TEXT") + " FOR " + target + g.maybe(";")
}
