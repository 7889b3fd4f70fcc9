package engine

import "dtp-personal/engine/frontier"

// Network is the people of the current frontier at one depth (0 = the
// roots), each with who brought them in.
func (e *Engine) Network(depth int) []frontier.Member {
	return e.trust.frontier.Current().AtDepth(depth)
}
