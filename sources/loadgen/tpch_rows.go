package loadgen

import (
	"strconv"

	"github.com/cockroachdb/apd/v3"
	"github.com/streamdb/streamdb/sources"
	"github.com/streamdb/streamdb/types"
)

// tpchGen builds TPC-H entities. Each entity draws from its own RNG, seeded
// by (seed, table, entity index), so any entity can be generated without
// the ones before it; values follow the distributions of the
// specification's clause 4.2.3 as dbgen implements them.
type tpchGen struct {
	seed  int64
	plan  *tpchPlan
	vocab *tpchVocab
	// Allocators shared by consecutive batches: chunks are only ever
	// appended to, so rows already handed over are never touched again.
	rows  rowSlab
	decs  decSlab
	arena arena
}

func newTPCHGen(seed int64, plan *tpchPlan) *tpchGen {
	return &tpchGen{
		seed:  seed,
		plan:  plan,
		vocab: tpchPools(),
		rows:  rowSlab{chunk: 8 << 10},
		decs:  decSlab{slab[apd.Decimal]{chunk: 1 << 10}},
		arena: arena{chunk: 64 << 10},
	}
}

// tpchMaxEntityChanges is the most changes one entity produces: an order
// with all its lineitems.
const tpchMaxEntityChanges = 1 + tpchMaxLines

// batch generates entities from pos on, stopping before one could push the
// batch over MaxBatchChanges or at total; it returns the changes and the
// position after them.
func (g *tpchGen) batch(pos, total int64) ([][]sources.Change, int64) {
	changes := make([][]sources.Change, tpchNumOutputs)
	lastSeg := -1
	for n := 0; pos < total && n+tpchMaxEntityChanges <= MaxBatchChanges; pos++ {
		if seg, i := g.plan.locate(pos); seg != lastSeg {
			reserve(changes, seg, g.plan.segs[seg]-i)
			lastSeg = seg
		}
		n += g.entity(pos, changes)
	}
	return changes, pos
}

// reserve sizes the change slices a segment with left entities fills, so
// that appending rows does not repeatedly grow and copy them.
func reserve(changes [][]sources.Change, seg int, left int64) {
	n := int(min(left, MaxBatchChanges))
	switch seg {
	case segOrders:
		// An order has 4 lines on average: 5 changes.
		changes[tpchOrdersOut] = make([]sources.Change, 0, n/4)
		changes[tpchLineitemOut] = make([]sources.Change, 0, min(n*tpchMaxLines, MaxBatchChanges))
	default:
		changes[tpchSegOutputs[seg]] = make([]sources.Change, 0, n)
	}
}

// tpchSegOutputs is the output of each single-row segment.
var tpchSegOutputs = [numSegs]int{
	segRegion:   tpchRegionOut,
	segNation:   tpchNationOut,
	segSupplier: tpchSupplierOut,
	segCustomer: tpchCustomerOut,
	segPart:     tpchPartOut,
	segPartsupp: tpchPartsuppOut,
	segOrders:   tpchOrdersOut,
}

// entity appends the rows of entity pos to changes and returns their
// number.
func (g *tpchGen) entity(pos int64, changes [][]sources.Change) int {
	seg, i := g.plan.locate(pos)
	switch seg {
	case segRegion:
		g.region(i, changes)
	case segNation:
		g.nation(i, changes)
	case segSupplier:
		g.supplier(i+1, changes)
	case segCustomer:
		g.customer(i+1, changes)
	case segPart:
		g.part(i+1, changes)
	case segPartsupp:
		g.partsupp(i, changes)
	case segOrders:
		return g.order(i, 0, 1, changes)
	default:
		panic("loadgen: TPCH position beyond the snapshot")
	}
	return 1
}

func (g *tpchGen) add(changes [][]sources.Change, out int, row types.Row) {
	g.addDiff(changes, out, row, 1)
}

func (g *tpchGen) addDiff(changes [][]sources.Change, out int, row types.Row, diff int64) {
	changes[out] = append(changes[out], sources.Change{Row: row, Diff: diff})
}

func (g *tpchGen) region(i int64, changes [][]sources.Change) {
	r := unitRNG(g.seed, streamRegion, i)
	row := g.rows.take(3)
	row[0] = types.NewInt8(i)
	row[1] = types.NewText(tpchRegions[i])
	row[2] = types.NewText(g.vocab.comment(&r, 31, 115))
	g.add(changes, tpchRegionOut, row)
}

func (g *tpchGen) nation(i int64, changes [][]sources.Change) {
	r := unitRNG(g.seed, streamNation, i)
	row := g.rows.take(4)
	row[0] = types.NewInt8(i)
	row[1] = types.NewText(tpchNations[i].name)
	row[2] = types.NewInt8(tpchNations[i].region)
	row[3] = types.NewText(g.vocab.comment(&r, 31, 114))
	g.add(changes, tpchNationOut, row)
}

func (g *tpchGen) supplier(key int64, changes [][]sources.Change) {
	r := unitRNG(g.seed, streamSupplier, key)
	nation := r.intn(int64(len(tpchNations)))
	row := g.rows.take(7)
	row[0] = types.NewInt8(key)
	row[1] = types.NewText(g.numbered("Supplier#", key))
	row[2] = types.NewText(g.vocab.address(&r))
	row[3] = types.NewInt8(nation)
	row[4] = types.NewText(g.phone(&r, nation))
	row[5] = g.decs.numeric(r.between(-999_99, 9_999_99))
	row[6] = types.NewText(g.supplierComment(&r))
	g.add(changes, tpchSupplierOut, row)
}

// supplierComment is a comment of 25 to 100 bytes; one supplier in 1000
// gets a customer complaint or recommendation, which q16 looks for.
func (g *tpchGen) supplierComment(r *rng) string {
	if r.intn(1000) > 0 {
		return g.vocab.comment(r, 25, 100)
	}
	word := "Complaints"
	if r.intn(2) == 0 {
		word = "Recommends"
	}
	var buf [128]byte
	b := append(buf[:0], g.vocab.comment(r, 5, 30)...)
	b = append(b, " Customer "...)
	b = append(b, g.vocab.comment(r, 5, 30)...)
	b = append(b, ' ')
	b = append(b, word...)
	return g.arena.string(b)
}

func (g *tpchGen) customer(key int64, changes [][]sources.Change) {
	r := unitRNG(g.seed, streamCustomer, key)
	nation := r.intn(int64(len(tpchNations)))
	row := g.rows.take(8)
	row[0] = types.NewInt8(key)
	row[1] = types.NewText(g.numbered("Customer#", key))
	row[2] = types.NewText(g.vocab.address(&r))
	row[3] = types.NewInt8(nation)
	row[4] = types.NewText(g.phone(&r, nation))
	row[5] = g.decs.numeric(r.between(-999_99, 9_999_99))
	row[6] = types.NewText(tpchSegments[r.intn(int64(len(tpchSegments)))])
	row[7] = types.NewText(g.vocab.comment(&r, 29, 116))
	g.add(changes, tpchCustomerOut, row)
}

func (g *tpchGen) part(key int64, changes [][]sources.Change) {
	r := unitRNG(g.seed, streamPart, key)
	var colors [5]int64
	var buf [64]byte
	b := buf[:0]
	for j := range colors {
		colors[j] = r.intn(int64(len(tpchColors)))
		for contains(colors[:j], colors[j]) {
			colors[j] = r.intn(int64(len(tpchColors)))
		}
		if j > 0 {
			b = append(b, ' ')
		}
		b = append(b, tpchColors[colors[j]]...)
	}
	m, n := r.intn(5), r.intn(5)
	row := g.rows.take(9)
	row[0] = types.NewInt8(key)
	row[1] = types.NewText(g.arena.string(b))
	row[2] = types.NewText(tpchManufacturers[m])
	row[3] = types.NewText(tpchBrands[m*5+n])
	row[4] = types.NewText(tpchTypes[r.intn(int64(len(tpchTypes)))])
	row[5] = types.NewInt4(int32(r.between(1, 50)))
	row[6] = types.NewText(tpchContainers[r.intn(int64(len(tpchContainers)))])
	row[7] = g.decs.numeric(tpchRetailPrice(key))
	row[8] = types.NewText(g.vocab.comment(&r, 5, 22))
	g.add(changes, tpchPartOut, row)
}

// contains reports whether v is among picked.
func contains(picked []int64, v int64) bool {
	for _, p := range picked {
		if p == v {
			return true
		}
	}
	return false
}

// partsupp is supplier j (0..3) of part i/4+1.
func (g *tpchGen) partsupp(i int64, changes [][]sources.Change) {
	r := unitRNG(g.seed, streamPartsupp, i)
	part := i/tpchSuppliersPerPart + 1
	row := g.rows.take(5)
	row[0] = types.NewInt8(part)
	row[1] = types.NewInt8(tpchPartSupplier(part, i%tpchSuppliersPerPart, g.plan.suppliers))
	row[2] = types.NewInt4(int32(r.between(1, 9_999)))
	row[3] = g.decs.numeric(r.between(1_00, 1_000_00))
	row[4] = types.NewText(g.vocab.comment(&r, 49, 198))
	g.add(changes, tpchPartsuppOut, row)
}

// order appends version v of order i and its lineitems with multiplicity
// diff and returns their number. Version 0 is the snapshot's; each update
// tick replaces an order by a new version (see tpchUpdates). Order keys are
// sparse as in dbgen: the first 8 of every 32.
func (g *tpchGen) order(i, v, diff int64, changes [][]sources.Change) int {
	seed := g.seed
	if v > 0 {
		seed = int64(mix64(uint64(seed) + uint64(v)*golden))
	}
	r := unitRNG(seed, streamOrders, i)
	key := i/8*32 + i%8 + 1
	cust := r.between(1, g.plan.customers)
	for cust%3 == 0 { // a third of the customers never order
		cust = r.between(1, g.plan.customers)
	}
	orderDate := tpchStartDate + r.intn(tpchLastOrder-tpchStartDate+1)
	lines := r.between(1, tpchMaxLines)
	var total int64
	status := ""
	for l := range lines {
		part := r.between(1, g.plan.parts)
		qty := r.between(1, 50)
		price := qty * tpchRetailPrice(part)
		discount, tax := r.between(0, 10), r.between(0, 8)
		ship := orderDate + r.between(1, 121)
		commit := orderDate + r.between(30, 90)
		receipt := ship + r.between(1, 30)
		returnFlag := "N"
		if receipt <= tpchCurrentDate {
			returnFlag = [2]string{"R", "A"}[r.intn(2)]
		}
		lineStatus := "F"
		if ship > tpchCurrentDate {
			lineStatus = "O"
		}
		switch status {
		case "":
			status = lineStatus
		case lineStatus:
		default:
			status = "P"
		}
		total += price * (100 - discount) / 100 * (100 + tax) / 100

		row := g.rows.take(16)
		row[0] = types.NewInt8(key)
		row[1] = types.NewInt8(part)
		row[2] = types.NewInt8(tpchPartSupplier(part, r.intn(tpchSuppliersPerPart), g.plan.suppliers))
		row[3] = types.NewInt4(int32(l + 1))
		row[4] = g.decs.numeric(qty * 100)
		row[5] = g.decs.numeric(price)
		row[6] = g.decs.numeric(discount)
		row[7] = g.decs.numeric(tax)
		row[8] = types.NewText(returnFlag)
		row[9] = types.NewText(lineStatus)
		row[10] = types.NewDate(ship)
		row[11] = types.NewDate(commit)
		row[12] = types.NewDate(receipt)
		row[13] = types.NewText(tpchInstructions[r.intn(int64(len(tpchInstructions)))])
		row[14] = types.NewText(tpchModes[r.intn(int64(len(tpchModes)))])
		row[15] = types.NewText(g.vocab.comment(&r, 10, 43))
		g.addDiff(changes, tpchLineitemOut, row, diff)
	}
	row := g.rows.take(9)
	row[0] = types.NewInt8(key)
	row[1] = types.NewInt8(cust)
	row[2] = types.NewText(status)
	row[3] = g.decs.numeric(total)
	row[4] = types.NewDate(orderDate)
	row[5] = types.NewText(tpchPriorities[r.intn(int64(len(tpchPriorities)))])
	row[6] = types.NewText(g.numbered("Clerk#", r.between(1, g.plan.clerks)))
	row[7] = types.NewInt4(0)
	row[8] = types.NewText(g.vocab.comment(&r, 19, 78))
	g.addDiff(changes, tpchOrdersOut, row, diff)
	return int(lines) + 1
}

// tpchPartSupplier is the j-th (0..3) supplier of a part, by the
// specification's formula (part + j*(S/4 + (part-1)/S)) mod S + 1, which
// spreads parts evenly over suppliers. Below about 230 suppliers the
// formula can give a part the same supplier twice; a repeat moves on to
// the next supplier not yet taken.
func tpchPartSupplier(part, j, suppliers int64) int64 {
	var keys [tpchSuppliersPerPart]int64
	step := suppliers/tpchSuppliersPerPart + (part-1)/suppliers
	for i := range j + 1 {
		k := (part + i*step) % suppliers
		for contains(keys[:i], k) {
			k = (k + 1) % suppliers
		}
		keys[i] = k
	}
	return keys[j] + 1
}

// tpchRetailPrice is a part's price in cents, a function of its key.
func tpchRetailPrice(part int64) int64 {
	return 90000 + part/10%20001 + 100*(part%1000)
}

// numbered returns prefix and key zero-padded to 9 digits.
func (g *tpchGen) numbered(prefix string, key int64) string {
	var buf [32]byte
	return g.arena.string(appendPadded(append(buf[:0], prefix...), key, 9))
}

// phone returns a number whose country code is the nation key plus 10.
func (g *tpchGen) phone(r *rng, nation int64) string {
	var buf [16]byte
	b := appendPadded(buf[:0], nation+10, 2)
	b = append(b, '-')
	b = appendPadded(b, r.between(100, 999), 3)
	b = append(b, '-')
	b = appendPadded(b, r.between(100, 999), 3)
	b = append(b, '-')
	b = appendPadded(b, r.between(1000, 9999), 4)
	return g.arena.string(b)
}

// The combined vocabularies of part: "Manufacturer#m", "Brand#mn" and
// the 150 types and 40 containers.
var (
	tpchManufacturers, tpchBrands = tpchManufacturerNames()
	tpchTypes                     = tpchSyllableProduct(tpchTypeSyllables[:])
	tpchContainers                = tpchSyllableProduct(tpchContainerSyllables[:])
)

func tpchManufacturerNames() (mfgrs, brands []string) {
	for m := 1; m <= 5; m++ {
		mfgrs = append(mfgrs, "Manufacturer#"+strconv.Itoa(m))
		for n := 1; n <= 5; n++ {
			brands = append(brands, "Brand#"+strconv.Itoa(m*10+n))
		}
	}
	return mfgrs, brands
}

// tpchSyllableProduct returns every combination of one word per list,
// joined by spaces.
func tpchSyllableProduct(lists [][]string) []string {
	out := []string{""}
	for _, words := range lists {
		var next []string
		for _, prefix := range out {
			for _, w := range words {
				if prefix != "" {
					w = prefix + " " + w
				}
				next = append(next, w)
			}
		}
		out = next
	}
	return out
}
