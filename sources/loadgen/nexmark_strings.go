package loadgen

import (
	"math/bits"
	"strconv"
	"strings"
	"sync"
)

// Nexmark's fixed vocabularies (Beam's PersonGenerator and Flink's
// BidGenerator). Query predicates depend on them: q3 selects states OR, ID
// and CA, several queries group by the hot channels.
var (
	nexFirstNames = []string{"Peter", "Paul", "Luke", "John", "Saul", "Vicky", "Kate", "Julie", "Sarah", "Deiter", "Walter"}
	nexLastNames  = []string{"Shultz", "Abrams", "Spencer", "White", "Bartels", "Walton", "Smith", "Jones", "Noris"}
	nexStates     = []string{"AZ", "CA", "ID", "OR", "WA", "WY"}
	nexCities     = []string{"Phoenix", "Los Angeles", "San Francisco", "Boise", "Portland", "Bend", "Redmond", "Seattle", "Kent", "Cheyenne"}
	nexHotChannel = []string{"Google", "Facebook", "Baidu", "Apple"}
)

// nexChannelCount is the number of distinct non-hot channels.
const nexChannelCount = 10_000

// Text pools: random strings are substrings of these at random offsets, so
// drawing one costs two RNG calls and no allocation. A pool is
// poolSize+poolSlack bytes so that any offset below poolSize leaves room for
// the longest string drawn (Nexmark's auction extra, under 500 bytes).
const (
	poolSize  = 1 << 16
	poolSlack = 1 << 10
)

// nexmarkVocab holds the strings shared by all NEXMARK generators, built on
// first use from fixed seeds (they do not depend on the source's seed).
type nexmarkVocab struct {
	letters string // a-z
	spaced  string // a-z and, one in 13, a space (Beam's nextString)
	names   []string
	hotURLs []string
	// channels and urls of the non-hot channels.
	channels, urls []string
	prices         []float64 // see price
}

var nexVocab = sync.OnceValue(buildNexmarkVocab)

func buildNexmarkVocab() *nexmarkVocab {
	v := &nexmarkVocab{
		letters: randomText(1, poolSize+poolSlack, 0),
		spaced:  randomText(2, poolSize+poolSlack, ' '),
		prices:  priceTable(),
	}
	for _, f := range nexFirstNames {
		for _, l := range nexLastNames {
			v.names = append(v.names, f+" "+l)
		}
	}
	for i := range nexHotChannel {
		v.hotURLs = append(v.hotURLs, nexBaseURL(int64(i)))
	}
	v.channels = make([]string, nexChannelCount)
	v.urls = make([]string, nexChannelCount)
	for i := range int64(nexChannelCount) {
		v.channels[i] = "channel-" + strconv.FormatInt(i, 10)
		url := nexBaseURL(i)
		if r := unitRNG(0, streamChannelID, i); r.intn(10) > 0 {
			url += "&channel_id=" + strconv.FormatInt(int64(bits.Reverse32(uint32(i))&0x7fffffff), 10)
		}
		v.urls[i] = url
	}
	return v
}

// randomText returns pool number id: n random lowercase letters, with
// special (if not 0) in place of one letter in 13.
func randomText(id int64, n int, special byte) string {
	r := unitRNG(0, streamTextPool, id)
	var b strings.Builder
	b.Grow(n)
	for range n {
		if special != 0 && r.intn(13) == 0 {
			b.WriteByte(special)
		} else {
			b.WriteByte(byte('a' + r.intn(26)))
		}
	}
	return b.String()
}

// nexBaseURL is Flink's getBaseUrl: three short path segments of letters
// and underscores.
func nexBaseURL(i int64) string {
	r := unitRNG(0, streamChannelURL, i)
	var b strings.Builder
	b.WriteString("https://www.nexmark.com/")
	for seg := range 3 {
		if seg > 0 {
			b.WriteByte('/')
		}
		for range 3 + r.intn(2) {
			if r.intn(13) == 0 {
				b.WriteByte('_')
			} else {
				b.WriteByte(byte('a' + r.intn(26)))
			}
		}
	}
	b.WriteString("/item.htm?query=1")
	return b.String()
}

// exact returns n random letters.
func (v *nexmarkVocab) exact(r *rng, n int64) string {
	off := r.intn(poolSize)
	return v.letters[off : off+n]
}

// text is Beam's nextString(maxLength): 3 to maxLength-1 letters and
// spaces, trimmed.
func (v *nexmarkVocab) text(r *rng, maxLength int64) string {
	n := 3 + r.intn(maxLength-3)
	off := r.intn(poolSize)
	return strings.TrimSpace(v.spaced[off : off+n])
}

// extra is Beam's nextExtra: letters padding an event of currentSize bytes
// to desiredAverage, give or take 20%.
func (v *nexmarkVocab) extra(r *rng, currentSize, desiredAverage int64) string {
	if currentSize > desiredAverage {
		return ""
	}
	rest := desiredAverage - currentSize
	delta := (rest*2 + 5) / 10 // round(rest * 0.2)
	size := rest - delta
	if delta > 0 {
		size += r.intn(2 * delta)
	}
	return v.exact(r, size)
}
