package store

import "fmt"

// HeapState names the state of what the trust graph is built from: the
// database's random id and a generation that every change to events, the
// claim history or the fetched claims moves (triggers, whoever writes). A
// heap snapshot written under one state is the database's only while both
// are unchanged.
func (s *Store) HeapState() (database string, generation int64, err error) {
	if err := s.r.QueryRow(`SELECT database, generation FROM heap_state WHERE id = 1`).Scan(&database, &generation); err != nil {
		return "", 0, fmt.Errorf("store: heap state: %w", err)
	}
	return database, generation, nil
}
