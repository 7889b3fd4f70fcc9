package heap

// Counts are the graph's size in the terms people use: who is in it and
// how many statements it holds (GET /api/v1/graph/stats).
type Counts struct {
	People     int `json:"people"`     // pubkeys
	Subjects   int `json:"subjects"`   // other subjects: X accounts, posts, event ids
	Statements int `json:"statements"` // held 32009 slot winners
	Ratings    int `json:"ratings"`    // held 32014 slot winners
	Claims     int `json:"claims"`     // people whose latest 10011 is held
}

// Counts counts the nodes by kind and the held winners by kind. It reads
// every node and edge: for a figure asked now and then, not per answer.
func (h *Heap) Counts() Counts {
	h.mu.RLock()
	defer h.mu.RUnlock()
	c := Counts{Claims: len(h.ids.claims)}
	for i := range h.nodes {
		if h.nodes[i].key[0] == tagPubkey {
			c.People++
		} else {
			c.Subjects++
		}
	}
	var none [32]byte
	for i := range h.edges.n {
		e := h.edges.at(uint32(i))
		switch {
		case e.id == none: // a slot whose event was removed (Remove)
		case e.kind == kindCodeTrust:
			c.Statements++
		case e.kind == kindCodeRating:
			c.Ratings++
		}
	}
	return c
}
