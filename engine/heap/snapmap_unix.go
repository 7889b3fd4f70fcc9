//go:build unix

package heap

import (
	"os"
	"syscall"
)

// mapFile maps the size bytes of f copy-on-write: the heap reads its large
// arrays and strings where they lie, and its own writes to them (a slot's
// winner replaced in place) stay in this process. The mapping is never
// undone: the heap may hold parts of it for the life of the process, and a
// snapshot is replaced by renaming a new file over it, never written in
// place.
func mapFile(f *os.File, size int) ([]byte, error) {
	return syscall.Mmap(int(f.Fd()), 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE)
}

// mapsFiles reports whether mapFile maps (rather than reads) the file.
const mapsFiles = true

// unmapFile undoes mapFile for a snapshot nothing was decoded from.
func unmapFile(data []byte) { _ = syscall.Munmap(data) }
