package readlimit

import (
	"os"
	"sync"
)

// MapJSONObject is JSONObject that maps a regular file into memory, read
// only, instead of copying it, where the system can (Linux and the other
// Unix systems); release unmaps it, and is safe to call more than once.
// Other files (devices, pipes, empty files) and other systems are read as
// JSONObject reads them, and release does nothing.
//
// A copy touches as much memory as the file for the first time, which a
// virtual machine may charge for dearly: on the project's 2-core VM about
// 15 µs per 4 KiB page, so that mapping Qwen3's 11 MB tokenizer.json
// instead of reading it took 35–40 ms off its first load in a process.
// The mapping's pages are the file's pages in the system's cache.
//
// The bytes must not be used after release. While they are mapped, a file
// that another process truncates makes reading past its new end fault
// (SIGBUS): a caller that cannot rule that out reads them with
// debug.SetPanicOnFault on every goroutine that does, which turns the
// fault into a panic it can recover from.
func MapJSONObject(path string, limit int64) (data []byte, release func(), err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	st, err := f.Stat()
	if err == nil && st.Mode().IsRegular() && st.Size() > 0 {
		if st.Size() > limit {
			_ = f.Close()
			return nil, nil, &TooLargeError{Path: path, Limit: limit}
		}
		m, unmap, merr := mapFile(f, int(st.Size()))
		_ = f.Close()
		if merr == nil {
			return m, sync.OnceFunc(unmap), nil
		}
	} else {
		_ = f.Close()
	}
	b, err := JSONObject(path, limit)
	if err != nil {
		return nil, nil, err
	}
	return b, func() {}, nil
}
