package loadgen

import (
	"strings"
	"sync"
)

// TPC-H's comment columns are substrings of a pool of pseudo-text built
// from a small grammar (clause 4.2.2.10), which dbgen also does. Queries
// look for word pairs in them (q13: '%special%requests%'), so the
// vocabulary includes the words they search for; the wording of the
// specification's lists is not reproduced exactly.
var (
	tpchNouns = []string{
		"foxes", "ideas", "theodolites", "pinto beans", "instructions", "dependencies",
		"excuses", "platelets", "asymptotes", "courts", "dolphins", "multipliers",
		"sauternes", "warthogs", "frets", "dinos", "attainments", "somas", "patterns",
		"forges", "braids", "frays", "warhorses", "dugouts", "epitaphs", "pearls",
		"tithes", "waters", "orbits", "gifts", "sheaves", "depths", "sentiments",
		"decoys", "realms", "pains", "grouches", "escapades", "packages", "requests",
		"accounts", "deposits", "hockey players",
	}
	tpchVerbs = []string{
		"sleep", "wake", "are", "cajole", "haggle", "nag", "use", "boost", "affix",
		"detect", "integrate", "maintain", "nod", "was", "lose", "sublate", "solve",
		"thrash", "promise", "engage", "hinder", "print", "x-ray", "breach", "eat",
		"grow", "impress", "mold", "poach", "serve", "run", "dazzle", "snooze", "doze",
		"unwind", "kindle", "play", "hang", "believe", "doubt",
	}
	tpchAdjectives = []string{
		"special", "pending", "unusual", "express", "furious", "sly", "careful",
		"blithe", "quick", "fluffy", "slow", "quiet", "ruthless", "thin", "close",
		"dogged", "daring", "brave", "stealthy", "permanent", "enticing", "idle",
		"busy", "regular", "final", "ironic", "even", "bold", "silent",
	}
	tpchAdverbs = []string{
		"sometimes", "always", "never", "furiously", "slyly", "carefully", "blithely",
		"quickly", "fluffily", "slowly", "quietly", "ruthlessly", "thinly", "closely",
		"doggedly", "daringly", "bravely", "stealthily", "permanently", "enticingly",
		"idly", "busily", "regularly", "finally", "ironically", "evenly", "boldly",
		"silently",
	}
	tpchPrepositions = []string{
		"about", "above", "according to", "across", "after", "against", "along",
		"alongside of", "among", "around", "at", "atop", "before", "behind",
		"beneath", "beside", "besides", "between", "beyond", "by", "despite",
		"during", "except", "for", "from", "in place of", "inside", "instead of",
		"into", "near", "of", "on", "outside", "over", "past", "since", "through",
		"throughout", "to", "toward", "under", "until", "up", "upon", "without",
		"with", "within",
	}
	tpchAuxiliaries = []string{
		"do", "may", "might", "shall", "will", "would", "can", "could", "should",
		"ought to", "must", "will have to", "shall have to", "could have to",
		"should have to", "must have to", "need to", "try to",
	}
	tpchTerminators = []string{".", ";", ":", "?", "!", "--"}
)

// tpchTextPoolSize is the pool's length; the longest comment is 198 bytes.
const tpchTextPoolSize = 1 << 20

// tpchVocab holds the pools TPCH draws free text from.
type tpchVocab struct {
	text  string // grammar sentences
	alnum string // letters, digits and a few spaces and commas (addresses)
}

var tpchPools = sync.OnceValue(func() *tpchVocab {
	return &tpchVocab{text: tpchGrammarText(tpchTextPoolSize), alnum: alnumText(poolSize + poolSlack)}
})

// tpchGrammarText returns n bytes of sentences:
//
//	sentence     = noun-phrase verb-phrase [prep-phrase] terminator
//	noun-phrase  = [adverb] [adjective [, adjective]] noun
//	verb-phrase  = [auxiliary] verb [adverb]
//	prep-phrase  = preposition "the" noun-phrase
func tpchGrammarText(n int) string {
	r := unitRNG(0, streamTextPool, 10)
	pick := func(words []string) string { return words[r.intn(int64(len(words)))] }
	var b strings.Builder
	b.Grow(n + 256)
	nounPhrase := func() {
		switch r.intn(4) {
		case 1:
			b.WriteString(pick(tpchAdjectives) + " ")
		case 2:
			b.WriteString(pick(tpchAdjectives) + ", " + pick(tpchAdjectives) + " ")
		case 3:
			b.WriteString(pick(tpchAdverbs) + " " + pick(tpchAdjectives) + " ")
		}
		b.WriteString(pick(tpchNouns))
	}
	for b.Len() < n {
		nounPhrase()
		b.WriteByte(' ')
		if r.intn(3) == 0 {
			b.WriteString(pick(tpchAuxiliaries) + " ")
		}
		b.WriteString(pick(tpchVerbs))
		if r.intn(2) == 0 {
			b.WriteString(" " + pick(tpchAdverbs))
		}
		if r.intn(2) == 0 {
			b.WriteString(" " + pick(tpchPrepositions) + " the ")
			nounPhrase()
		}
		b.WriteString(pick(tpchTerminators) + " ")
	}
	return b.String()[:n]
}

// alnumText returns n characters as dbgen's V-strings use them.
func alnumText(n int) string {
	const chars = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789, "
	r := unitRNG(0, streamTextPool, 11)
	var b strings.Builder
	b.Grow(n)
	for range n {
		b.WriteByte(chars[r.intn(int64(len(chars)))])
	}
	return b.String()
}

// comment returns text of lo to hi bytes.
func (v *tpchVocab) comment(r *rng, lo, hi int64) string {
	n := r.between(lo, hi)
	off := r.intn(int64(len(v.text)) - n)
	return v.text[off : off+n]
}

// address returns a V-string of 10 to 40 characters.
func (v *tpchVocab) address(r *rng) string {
	n := r.between(10, 40)
	off := r.intn(poolSize)
	return v.alnum[off : off+n]
}
