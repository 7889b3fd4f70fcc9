package frontier

// Member is one person of the frontier as a person sees it: who, how many
// hops from the roots, and who brought them in (the author whose hop found
// them; "" for a root).
type Member struct {
	Pubkey    string `json:"pubkey"`
	Depth     int    `json:"depth"`
	BroughtBy string `json:"broughtBy"`
}

// AtDepth are the frontier's members at one depth, in hex order.
func (r *Result) AtDepth(depth int) []Member {
	start := 0
	for d := 0; d < depth && d < len(r.ByDepth); d++ {
		start += r.ByDepth[d]
	}
	if depth < 0 || depth >= len(r.ByDepth) {
		return nil
	}
	level := r.Authors[start : start+r.ByDepth[depth]]
	out := make([]Member, len(level))
	for i, a := range level {
		out[i] = Member{Pubkey: a.Pubkey, Depth: a.Depth}
		if a.Parent >= 0 {
			out[i].BroughtBy = r.Authors[a.Parent].Pubkey
		}
	}
	return out
}
