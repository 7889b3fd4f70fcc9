package heap

import "testing"

// The slot table finds every slot added across its growth at its own edge,
// and no slot it was not given, among keys that differ in one field only.
func TestSlotIndexFindsWhatWasAdded(t *testing.T) {
	var edges edgeStore
	var x slotIndex
	for i := range 5000 {
		e := edge{author: NodeID(i % 7), subject: NodeID(i / 7 % 50), context: uint32(i / 350), kind: kindCodeTrust}
		x.add(&edges, edges.add(e))
	}
	if x.n != 5000 || len(x.cells) < 2*x.n {
		t.Fatalf("%d slots in %d cells", x.n, len(x.cells))
	}
	for ei := range uint32(edges.n) {
		k := slotOf(edges.at(ei))
		if got, ok := x.find(&edges, k); !ok || got != ei {
			t.Fatalf("edge %d: found %d, %v", ei, got, ok)
		}
		k.kind = kindCodeRating
		if got, ok := x.find(&edges, k); ok {
			t.Fatalf("a rating slot never added was found at edge %d", got)
		}
	}
	var empty slotIndex
	if _, ok := empty.find(&edges, slotKey{}); ok {
		t.Fatal("an empty table found a slot")
	}
}
