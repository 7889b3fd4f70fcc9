package relay

// reopenLater asks again, after liveReopen's backoff, for the groups of a REQ
// the relay closed for a reason other than load (a restart, a timeout, a
// policy hiccup): live sync must not end silently. Closes within
// liveReopen.Max of each other count as in a row and lengthen the wait.
func (s *LiveSet) reopenLater(entries []*entry) {
	now := s.opts.clock.Now()
	s.mu.Lock()
	if now.Sub(s.lastClosed) > liveReopen.Max {
		s.closedRun = 0
	}
	s.closedRun++
	s.lastClosed = now
	wait := s.opts.clock.After(liveReopen.Delay(s.closedRun))
	s.mu.Unlock()
	since := now.Add(-ReconnectWindow).Unix()
	go func() {
		select {
		case <-wait:
		case <-s.conn.done():
			return
		}
		// a failed write means the connection is ending: its owner sees Done
		_ = s.reopen(entries, since)
	}()
}

// reopen sends entries again, those still wanted: served ones from since
// (what they missed while closed), the others as first given.
func (s *LiveSet) reopen(entries []*entry, since int64) error {
	s.opMu.Lock()
	defer s.opMu.Unlock()
	s.mu.Lock()
	if s.coolingLocked() {
		s.mu.Unlock()
		return nil // the cool-down's repack reopens everything wanted
	}
	wanted := make(map[*entry]bool, len(s.entries))
	for _, e := range s.entries {
		wanted[e] = true
	}
	var again []*entry
	for _, e := range entries {
		if !wanted[e] {
			continue // replaced meanwhile
		}
		if e.served {
			e.filters = withSince(e.filters, since)
		}
		again = append(again, e)
	}
	s.mu.Unlock()
	if len(again) == 0 {
		return nil
	}
	if _, err := s.send(again, 0); err != nil {
		return err
	}
	if s.opts.onReopened != nil {
		s.opts.onReopened()
	}
	return nil
}
