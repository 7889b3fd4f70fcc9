package heap

import (
	"testing"
	"time"

	"dtp-personal/engine/validation"
)

// A reader that yields lets a commit waiting for the heap in, and sees it;
// with nobody waiting it keeps its lock and what it read.
func TestYieldLetsAWaitingWriterIn(t *testing.T) {
	h := newHeap()
	h.View(func(v View) {
		if v.Yield() {
			t.Fatal("Yield let someone in with no writer waiting")
		}
		before, nodes := v.Version(), v.NumNodes()
		applied := make(chan struct{})
		go func() {
			h.Apply([]*validation.Statement{st(pk(1), "p", pk(2), "1", "", 1)}, nil)
			close(applied)
		}()
		for deadline := time.Now().Add(10 * time.Second); h.writers.Load() == 0; time.Sleep(time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatal("the writer never waited")
			}
		}
		select {
		case <-applied:
			t.Fatal("the writer got in while the reader held the heap")
		case <-time.After(20 * time.Millisecond):
		}
		if !v.Yield() {
			t.Fatal("Yield did not let the waiting writer in")
		}
		<-applied
		if v.Version() == before || v.NumNodes() != nodes+2 {
			t.Errorf("after the yield: version %d (was %d), %d nodes (was %d); want the commit's", v.Version(), before, v.NumNodes(), nodes)
		}
		if _, ok := v.Pubkey(pk(2)); !ok {
			t.Error("the node the commit added is not seen after the yield")
		}
	})
}

// A reader's work outside the lock holds no commit: one made meanwhile
// goes through, and the reader sees it after.
func TestOutsideHoldsNoCommit(t *testing.T) {
	h := newHeap()
	h.View(func(v View) {
		before := v.Version()
		v.Outside(func() {
			done := make(chan struct{})
			go func() {
				h.Apply([]*validation.Statement{st(pk(1), "p", pk(2), "1", "", 1)}, nil)
				close(done)
			}()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("a commit waited for a reader outside its lock")
			}
		})
		if v.Version() == before {
			t.Error("the reader does not see the commit made outside its lock")
		}
	})
}
