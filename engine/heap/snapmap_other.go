//go:build !unix

package heap

import (
	"io"
	"os"
)

// mapFile reads the size bytes of f into memory of their own, which the
// heap keeps as the unix build keeps its mapping.
func mapFile(f *os.File, size int) ([]byte, error) {
	data := make([]byte, size)
	if _, err := io.ReadFull(f, data); err != nil {
		return nil, err
	}
	return data, nil
}

// mapsFiles reports whether mapFile maps (rather than reads) the file.
const mapsFiles = false

// unmapFile lets a read snapshot go (the collector frees it).
func unmapFile([]byte) {}
