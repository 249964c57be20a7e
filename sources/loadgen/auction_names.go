package loadgen

// The fixed vocabulary of AUCTION: organizations and users are the same in
// every run; items are drawn per auction.

var auctionOrganizations = []string{
	"Acme Anvils", "Blue Heron Bakery", "Cobalt Robotics", "Driftwood Books",
	"Ember Coffee", "Fjord Outfitters", "Granite Logistics", "Harbor Lights",
	"Ironbark Tools", "Juniper Health", "Kestrel Aviation", "Lantern Studios",
	"Meridian Maps", "Northwind Traders", "Orchard Cider", "Pinecone Games",
	"Quarry Stoneworks", "Redwood Ventures", "Saltmarsh Seafood", "Tidewater Energy",
}

var auctionFirstNames = []string{
	"Ada", "Bruno", "Chiara", "Dmitri", "Elif", "Farah", "Gustav", "Hana",
	"Ines", "Jonas", "Kalani", "Lior", "Mateo", "Nadia", "Oskar", "Priya",
	"Quentin", "Rosa", "Soren", "Tamsin",
}

var auctionLastNames = []string{
	"Abara", "Bergstrom", "Castellanos", "Dubois", "Eriksen", "Fontaine",
	"Gallagher", "Haddad", "Iwasaki", "Jovanovic", "Kowalczyk", "Lindqvist",
	"Moreau", "Nakamura", "Okafor",
}

var auctionItems = []string{
	"Signed Vinyl Record", "Weekend Cabin Stay", "Vintage Typewriter",
	"Chef's Tasting Menu", "Hand-Thrown Pottery Set", "Concert Backstage Pass",
	"Antique Pocket Watch", "Sailing Lesson", "Original Oil Painting",
	"Rare Board Game",
}
