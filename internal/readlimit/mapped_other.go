//go:build !unix

package readlimit

import (
	"errors"
	"os"
)

// mapFile is not available here: MapJSONObject reads the file instead.
func mapFile(*os.File, int) ([]byte, func(), error) {
	return nil, nil, errors.New("readlimit: no mmap on this system")
}
