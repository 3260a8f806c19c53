// Package atomicfile writes gobench's files so that no reader, crash or full
// disk ever finds half of one, and so that a run can prove before it starts
// that its result can be saved.
//
// A file that is replaced (a result, its .pytorch.json, the simulator's
// record) is written to a temporary file in the destination's directory,
// synced, and renamed over the destination; then the directory is synced.
// rename(2) is atomic, so the destination holds either its previous content
// or the new one, whatever happens meanwhile (kill -9, a full disk, a power
// cut), and a failure removes the temporary file.
//
// A file that is appended to (--append-result's JSON Lines, a CI job
// summary) may be shared by several processes, so it is not copied and
// renamed, which would lose what another process appended meanwhile: the new
// text goes in one write(2) on an O_APPEND descriptor, preceded by "\n" when
// the file does not end with one, and is synced; a write that fails part way
// is cut off again. A file that does not exist yet is created whole, by
// hard-linking the temporary file that holds the text into place.
//
// Prepare does before a run what can fail for reasons known before it (the
// directory cannot be written) and takes the descriptors the save needs, so
// that a run fails in seconds instead of after an hour, and a run that used
// up its open-file limit can still save. Available reads the free space
// there, so that a run whose result cannot fit is refused before it sends.
//
// Temporary files are named ".NAME.RANDOM.tmp" next to the destination. Only
// a process killed with SIGKILL, or a crash, leaves one behind; the
// destination is then untouched.
package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
)

// errFinished is returned by a Pending used after Commit, Append or Abort.
var errFinished = errors.New("atomicfile: the file was already saved or abandoned")

// Pending is a save made ready before the data exists: its directory is
// open (to sync the rename) and its temporary file created (which proves the
// directory writable, and keeps a descriptor for the save). Write streams
// into the temporary file; Commit or Replace renames it over a destination
// in that directory, Append appends to one; Abort gives everything up. A
// Pending is not safe for concurrent use (the simulator's recorder holds its
// own lock).
type Pending struct {
	dir string   // cleaned
	d   *os.File // the directory, nil when it cannot be opened for reading
	tmp *os.File // the temporary file; nil once finished
	// target is the destination opened for appending by Target, if any.
	target     *os.File
	targetPath string
	err        error // the first Write error, reported by Commit and Append
}

// Prepare readies a save into the existing directory dir ("" is the current
// directory): it opens the directory and creates the temporary file
// ".hint.RANDOM.tmp" in it (mode 0644 before the umask). It fails when dir
// does not exist or cannot be written; the error names dir.
func Prepare(dir, hint string) (*Pending, error) {
	if dir == "" {
		dir = "."
	}
	dir = filepath.Clean(dir)
	if hint == "" {
		hint = "gobench"
	}
	tmp, err := createTemp(dir, hint)
	if err != nil {
		// The temporary file's name says nothing to the user; the cause does.
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, fmt.Errorf("cannot write in directory %s: %w", dir, err)
	}
	p := &Pending{dir: dir, tmp: tmp}
	// Without read permission on the directory the rename is still atomic,
	// only not synced: that is no reason to refuse the save.
	if d, err := os.Open(dir); err == nil {
		p.d = d
	}
	return p, nil
}

// createTemp creates a new file for writing in dir, as os.CreateTemp does but
// with the mode a result file has always had (0644, before the umask), not
// 0600.
func createTemp(dir, hint string) (*os.File, error) {
	for try := 0; ; try++ {
		name := filepath.Join(dir, "."+hint+"."+strconv.FormatUint(rand.Uint64(), 36)+".tmp")
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
		if errors.Is(err, fs.ErrExist) && try < 100 {
			continue
		}
		return f, err
	}
}

// Target names the destination when it is known before the data is, so that
// what can be checked is checked now: path must be in the directory and must
// not be a directory. For an append (appendTo), an existing file is opened
// now and kept, so that Append needs no new descriptor, and a file that
// cannot be appended to fails now. The error names path.
func (p *Pending) Target(path string, appendTo bool) error {
	if err := p.check(path); err != nil {
		return err
	}
	st, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return err
	case st.IsDir():
		return fmt.Errorf("%s is a directory", path)
	case !appendTo:
		return nil
	}
	f, err := openAppend(path, 0)
	if err != nil {
		return err
	}
	if p.target != nil {
		_ = p.target.Close()
	}
	p.target, p.targetPath = f, path
	return nil
}

// check refuses a finished Pending and a destination outside its directory.
func (p *Pending) check(path string) error {
	if p.tmp == nil {
		return errFinished
	}
	if d := filepath.Clean(filepath.Dir(path)); d != p.dir {
		return fmt.Errorf("atomicfile: %s is not in the prepared directory %s", path, p.dir)
	}
	return nil
}

// Write appends b to the temporary file. The first error is kept: Commit
// reports it and leaves the destination alone.
func (p *Pending) Write(b []byte) (int, error) {
	switch {
	case p.err != nil:
		return 0, p.err
	case p.tmp == nil:
		return 0, errFinished
	}
	n, err := p.tmp.Write(b)
	if err != nil {
		p.err = err
	}
	return n, err
}

// Replace writes data to the temporary file and commits it as path.
func (p *Pending) Replace(path string, data []byte) error {
	_, _ = p.Write(data) // an error is kept and reported by Commit
	return p.Commit(path)
}

// Commit makes what was written the content of path: the temporary file is
// synced (and given the mode of the file it replaces), renamed over path,
// and the directory synced. On any failure path is left as it was and the
// temporary file removed. path must be in the prepared directory; a
// symbolic link at path is replaced, not followed.
func (p *Pending) Commit(path string) error {
	if err := p.check(path); err != nil {
		p.Abort()
		return err
	}
	tmp := p.tmp
	p.tmp = nil
	err := p.err
	if err == nil {
		err = keepMode(tmp, path)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		_ = os.Remove(tmp.Name())
		p.Abort()
		return fmt.Errorf("write %s: %w", path, err)
	}
	return p.finish(path)
}

// keepMode gives the temporary file the permissions of the regular file it
// replaces, as writing that file in place would have kept them.
func keepMode(tmp *os.File, path string) error {
	st, err := os.Lstat(path)
	if err != nil || !st.Mode().IsRegular() {
		return nil //nolint:nilerr // nothing to keep
	}
	return tmp.Chmod(st.Mode().Perm())
}

// Append adds data alone (what was given to Write is discarded) to the end
// of path in one write: preceded by "\n" when path is non-empty and does not
// end with one, synced, and cut off again if the write fails part way
// (unless another process appended after it). A path that does not exist is
// created holding exactly data, by hard-linking the temporary file into
// place, so that no reader ever finds it empty or half-written. The
// temporary file's descriptor is given back before path is opened, so an
// exhausted open-file limit does not stop the append.
func (p *Pending) Append(path string, data []byte) error {
	defer p.Abort()
	if err := p.check(path); err != nil {
		return err
	}
	f := p.target
	p.target = nil
	if f != nil && p.targetPath != path {
		_ = f.Close()
		f = nil
	}
	if f == nil {
		created, err := p.linkNew(path, data)
		if created || err != nil {
			return err
		}
		p.discardTemp() // its descriptor is the one the destination takes
		if f, err = openAppend(path, os.O_CREATE); err != nil {
			return fmt.Errorf("append to %s: %w", path, err)
		}
	}
	return appendClose(f, path, data)
}

// linkNew creates path holding data when it does not exist: data goes to
// the (emptied) temporary file, which is synced and hard-linked as path
// (link(2) fails when path exists, so a file another process created
// meanwhile is not replaced). created is false, with no error, when path
// exists or the file system has no hard links: then the caller appends.
func (p *Pending) linkNew(path string, data []byte) (created bool, err error) {
	if _, err := os.Lstat(path); !errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	err = p.tmp.Truncate(0)
	if err == nil {
		_, err = p.tmp.WriteAt(data, 0)
	}
	if err == nil {
		err = p.tmp.Sync()
	}
	if err != nil {
		return false, fmt.Errorf("append to %s: %w", path, err)
	}
	if os.Link(p.tmp.Name(), path) != nil {
		return false, nil
	}
	p.discardTemp()
	return true, p.finish(path)
}

// openAppend opens path for appending, for reading too when allowed (to see
// whether it ends with a newline).
func openAppend(path string, flag int) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND|flag, 0o644)
	if errors.Is(err, fs.ErrPermission) {
		f, err = os.OpenFile(path, os.O_WRONLY|os.O_APPEND|flag, 0o644)
	}
	return f, err
}

// appendOnce writes data at the end of f in one write, preceded by "\n"
// when f is a non-empty regular file not ending with one, and syncs it. A
// short write is cut off again when nothing was appended after it.
func appendOnce(f *os.File, data []byte) error {
	st, err := f.Stat()
	if err != nil {
		return err
	}
	regular := st.Mode().IsRegular()
	if regular && st.Size() > 0 {
		var last [1]byte
		// A write-only descriptor cannot tell: then no newline is added.
		if _, err := f.ReadAt(last[:], st.Size()-1); err == nil && last[0] != '\n' {
			data = append([]byte{'\n'}, data...)
		}
	}
	n, err := f.Write(data)
	if err != nil {
		if regular && n > 0 {
			cutBack(f, n)
		}
		return err
	}
	if !regular {
		return nil // a pipe or a terminal (/dev/stdout) has nothing to sync
	}
	return f.Sync()
}

// cutBack removes the n bytes a failed append wrote, when they are still the
// end of the file.
func cutBack(f *os.File, n int) {
	end, err := f.Seek(0, io.SeekCurrent)
	if err != nil {
		return
	}
	if st, err := f.Stat(); err == nil && st.Size() == end {
		_ = f.Truncate(end - int64(n))
	}
}

// finish syncs the directory after path appeared in it and releases it.
// File systems that cannot sync a directory say EINVAL or ENOTSUP: the
// rename is then as durable as they make it.
func (p *Pending) finish(path string) error {
	d := p.d
	p.d = nil
	if d == nil {
		return nil
	}
	err := d.Sync()
	_ = d.Close()
	if err != nil && !errors.Is(err, syscall.EINVAL) && !errors.Is(err, syscall.ENOTSUP) {
		return fmt.Errorf("sync the directory of %s: %w", path, err)
	}
	return nil
}

// discardTemp closes and removes the temporary file.
func (p *Pending) discardTemp() {
	if p.tmp == nil {
		return
	}
	_ = p.tmp.Close()
	_ = os.Remove(p.tmp.Name())
	p.tmp = nil
}

// Abort gives the save up: the temporary file is removed and every
// descriptor closed. It does nothing on a nil or finished Pending, so it can
// be deferred.
func (p *Pending) Abort() {
	if p == nil {
		return
	}
	p.discardTemp()
	for _, f := range []*os.File{p.target, p.d} {
		if f != nil {
			_ = f.Close()
		}
	}
	p.target, p.d = nil, nil
}

// AppendFile appends data to the file at path (see Append), creating it. An
// existing file is opened directly, so a file that is not in a writable
// directory (/dev/stdout) can be appended to.
func AppendFile(path string, data []byte) error {
	f, err := openAppend(path, 0)
	if errors.Is(err, fs.ErrNotExist) {
		p, perr := Prepare(filepath.Dir(path), filepath.Base(path))
		if perr != nil {
			return perr
		}
		return p.Append(path, data)
	}
	if err != nil {
		return fmt.Errorf("append to %s: %w", path, err)
	}
	return appendClose(f, path, data)
}

// CheckAppend reports, without writing anything, whether AppendFile(path,
// ...) can succeed now: an existing file must open for appending, and a new
// one needs a directory it can be created in. A run checks a file it will
// append to afterwards this way before it sends anything.
func CheckAppend(path string) error {
	f, err := openAppend(path, 0)
	if errors.Is(err, fs.ErrNotExist) {
		p, perr := Prepare(filepath.Dir(path), filepath.Base(path))
		if perr != nil {
			return perr
		}
		p.Abort()
		return nil
	}
	if err != nil {
		return fmt.Errorf("append to %s: %w", path, err)
	}
	return f.Close()
}

// appendClose appends data to f (appendOnce), opened on path, and closes it.
func appendClose(f *os.File, path string, data []byte) error {
	err := appendOnce(f, data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("append to %s: %w", path, err)
	}
	return nil
}
