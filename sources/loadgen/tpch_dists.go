package loadgen

import "time"

// The value domains of the TPC-H specification (clause 4.2.2 and 4.2.3),
// which the benchmark's queries filter on.

var tpchRegions = []string{"AFRICA", "AMERICA", "ASIA", "EUROPE", "MIDDLE EAST"}

var tpchNations = []struct {
	name   string
	region int64
}{
	{"ALGERIA", 0}, {"ARGENTINA", 1}, {"BRAZIL", 1}, {"CANADA", 1}, {"EGYPT", 4},
	{"ETHIOPIA", 0}, {"FRANCE", 3}, {"GERMANY", 3}, {"INDIA", 2}, {"INDONESIA", 2},
	{"IRAN", 4}, {"IRAQ", 4}, {"JAPAN", 2}, {"JORDAN", 4}, {"KENYA", 0},
	{"MOROCCO", 0}, {"MOZAMBIQUE", 0}, {"PERU", 1}, {"CHINA", 2}, {"ROMANIA", 3},
	{"SAUDI ARABIA", 4}, {"VIETNAM", 2}, {"RUSSIA", 3}, {"UNITED KINGDOM", 3}, {"UNITED STATES", 1},
}

// tpchColors are the 92 words part names are made of.
var tpchColors = []string{
	"almond", "antique", "aquamarine", "azure", "beige", "bisque", "black", "blanched",
	"blue", "blush", "brown", "burlywood", "burnished", "chartreuse", "chiffon", "chocolate",
	"coral", "cornflower", "cornsilk", "cream", "cyan", "dark", "deep", "dim",
	"dodger", "drab", "firebrick", "floral", "forest", "frosted", "gainsboro", "ghost",
	"goldenrod", "green", "grey", "honeydew", "hot", "indian", "ivory", "khaki",
	"lace", "lavender", "lawn", "lemon", "light", "lime", "linen", "magenta",
	"maroon", "medium", "metallic", "midnight", "mint", "misty", "moccasin", "navajo",
	"navy", "olive", "orange", "orchid", "pale", "papaya", "peach", "peru",
	"pink", "plum", "powder", "puff", "purple", "red", "rose", "rosy",
	"royal", "saddle", "salmon", "sandy", "seashell", "sienna", "sky", "slate",
	"smoke", "snow", "spring", "steel", "tan", "thistle", "tomato", "turquoise",
	"violet", "wheat", "white", "yellow",
}

var (
	tpchTypeSyllables = [3][]string{
		{"STANDARD", "SMALL", "MEDIUM", "LARGE", "ECONOMY", "PROMO"},
		{"ANODIZED", "BURNISHED", "PLATED", "POLISHED", "BRUSHED"},
		{"TIN", "NICKEL", "BRASS", "STEEL", "COPPER"},
	}
	tpchContainerSyllables = [2][]string{
		{"SM", "LG", "MED", "JUMBO", "WRAP"},
		{"CASE", "BOX", "BAG", "JAR", "PKG", "PACK", "CAN", "DRUM"},
	}
	tpchSegments     = []string{"AUTOMOBILE", "BUILDING", "FURNITURE", "MACHINERY", "HOUSEHOLD"}
	tpchPriorities   = []string{"1-URGENT", "2-HIGH", "3-MEDIUM", "4-NOT SPECIFIED", "5-LOW"}
	tpchInstructions = []string{"DELIVER IN PERSON", "COLLECT COD", "NONE", "TAKE BACK RETURN"}
	tpchModes        = []string{"REG AIR", "AIR", "RAIL", "SHIP", "TRUCK", "MAIL", "FOB"}
)

// Dates as days since 1970: orders are placed from STARTDATE to 151 days
// before ENDDATE; CURRENTDATE splits shipped (F) from open (O) lines and
// returned (R, A) from not returned (N) ones.
var (
	tpchStartDate   = epochDay(1992, time.January, 1)
	tpchCurrentDate = epochDay(1995, time.June, 17)
	tpchLastOrder   = epochDay(1998, time.December, 31) - 151
)

func epochDay(y int, m time.Month, d int) int64 {
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC).Unix() / 86400
}

// Base cardinalities at scale factor 1.
const (
	tpchSuppliersPerSF   = 10_000
	tpchPartsPerSF       = 200_000
	tpchCustomersPerSF   = 150_000
	tpchOrdersPerSF      = 1_500_000
	tpchClerksPerSF      = 1_000
	tpchSuppliersPerPart = 4
	tpchMaxLines         = 7
)
