package parser

import (
	"strconv"
	"strings"
)

// LoadGeneratorKind is a built-in data generator.
type LoadGeneratorKind uint8

// The load generators.
const (
	LoadGenCounter LoadGeneratorKind = iota + 1
	LoadGenAuction
	LoadGenTPCH
	LoadGenNexmark
	LoadGenMarketing
)

var loadGeneratorWords = [...]string{LoadGenCounter: "counter", LoadGenAuction: "auction",
	LoadGenTPCH: "tpch", LoadGenNexmark: "nexmark", LoadGenMarketing: "marketing"}

func (k LoadGeneratorKind) String() string {
	if int(k) < len(loadGeneratorWords) && k > 0 {
		return strings.ToUpper(loadGeneratorWords[k])
	}
	return "LoadGeneratorKind(" + strconv.Itoa(int(k)) + ")"
}

// LoadGeneratorSource is the FROM LOAD GENERATOR part of CREATE SOURCE:
//
//	LOAD GENERATOR COUNTER | AUCTION | TPCH | NEXMARK | MARKETING
//	[(TICK INTERVAL 'interval', MAX CARDINALITY n, SCALE FACTOR f,
//	  EVENTS PER SECOND n, MAX EVENTS n, SEED n, AS OF n, UP TO n)]
//	[FOR ALL TABLES | FOR TABLES (t [AS alias], …)]
//	[WITH (STORED = bool)]
//
// TICK INTERVAL is interval text for the caller to read; AS OF and UP TO
// are tick numbers.
type LoadGeneratorSource struct {
	Generator       LoadGeneratorKind
	Pos             Pos
	TickInterval    *StringLit
	MaxCardinality  *IntLit
	ScaleFactor     *FloatLit
	EventsPerSecond *IntLit
	MaxEvents       *IntLit
	Seed            *IntLit
	AsOf            *IntLit
	UpTo            *IntLit
	Tables          *TableSelection
	// Stored is STORED = false|true, as for a Kafka source.
	Stored *BoolLit
}

func (g *LoadGeneratorSource) String() string {
	var b strings.Builder
	b.WriteString("LOAD GENERATOR ")
	b.WriteString(g.Generator.String())
	var l optionList
	l.addString("TICK INTERVAL", g.TickInterval)
	l.addInt("MAX CARDINALITY", g.MaxCardinality)
	if g.ScaleFactor != nil {
		l.add("SCALE FACTOR", g.ScaleFactor.String())
	}
	l.addInt("EVENTS PER SECOND", g.EventsPerSecond)
	l.addInt("MAX EVENTS", g.MaxEvents)
	l.addInt("SEED", g.Seed)
	l.addInt("AS OF", g.AsOf)
	l.addInt("UP TO", g.UpTo)
	if len(l) > 0 {
		b.WriteByte(' ')
		b.WriteString(l.String())
	}
	if g.Tables != nil {
		b.WriteByte(' ')
		b.WriteString(g.Tables.String())
	}
	if g.Stored != nil {
		var w optionList
		w.add("STORED", g.Stored.String())
		b.WriteString(" WITH ")
		b.WriteString(w.String())
	}
	return b.String()
}

var loadGeneratorWithOptions = optionNames{{"stored"}}

// unsupportedGenerators are Materialize load generators streamdb lacks.
var unsupportedGenerators = [][]string{{"key", "value"}, {"clock"}, {"datums"}}

var loadGeneratorOptions = optionNames{
	{"tick", "interval"}, {"max", "cardinality"}, {"scale", "factor"},
	{"events", "per", "second"}, {"max", "events"}, {"seed"}, {"as", "of"}, {"up", "to"},
}

func (p *parser) loadGeneratorSource() (*LoadGeneratorSource, error) {
	t := p.peek()
	g := &LoadGeneratorSource{Pos: Pos(t.start)}
	for k, w := range loadGeneratorWords {
		if w != "" && p.isKw(t, w) {
			g.Generator = LoadGeneratorKind(k)
		}
	}
	if g.Generator == 0 {
		return nil, p.unsupported(unsupportedGenerators, "LOAD GENERATOR %s is not supported")
	}
	p.next()
	if p.isOp(p.peek(), "(") {
		names := loadGeneratorOptions
		err := p.options(names, func(i int, at Pos) error {
			var err error
			switch i {
			case 0:
				g.TickInterval, err = ptr(p.optString(names, i))
			case 1:
				g.MaxCardinality, err = ptr(p.optInt(names, i))
			case 2:
				g.ScaleFactor, err = ptr(p.optFloat(names, i))
			case 3:
				g.EventsPerSecond, err = ptr(p.optInt(names, i))
			case 4:
				g.MaxEvents, err = ptr(p.optInt(names, i))
			case 5:
				g.Seed, err = ptr(p.optInt(names, i))
			case 6:
				g.AsOf, err = ptr(p.optInt(names, i))
			case 7:
				g.UpTo, err = ptr(p.optInt(names, i))
			}
			return err
		})
		if err != nil {
			return nil, err
		}
	}
	if p.kwAt(0, "for") {
		var err error
		if g.Tables, err = p.tableSelection(false); err != nil {
			return nil, err
		}
	}
	if p.acceptKw("with") {
		names := loadGeneratorWithOptions
		err := p.options(names, func(i int, at Pos) error {
			var err error
			g.Stored, err = ptr(p.optBool(names, i, at))
			return err
		})
		if err != nil {
			return nil, err
		}
	}
	return g, nil
}
