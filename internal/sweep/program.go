package sweep

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// IsGobench reports whether prog, the first word of a command, runs
// gobench: any path whose base name is gobench (gobench.exe on Windows),
// or the executable running now under another name, so that
// "bin/gobench serve ..." and a renamed binary read as "gobench serve".
func IsGobench(prog string) bool {
	if programName(prog) == "gobench" {
		return true
	}
	self, err := os.Executable()
	if err != nil {
		return false
	}
	return sameProgram(prog, self)
}

// programName is prog's base name without a Windows executable suffix.
func programName(prog string) string {
	return strings.TrimSuffix(filepath.Base(prog), ".exe")
}

// sameProgram reports whether prog (a path, or a name looked up on PATH as
// exec would) is the file at path.
func sameProgram(prog, path string) bool {
	if prog == "" {
		return false
	}
	if !strings.ContainsRune(prog, filepath.Separator) && !strings.ContainsRune(prog, '/') {
		found, err := exec.LookPath(prog)
		if err != nil {
			return false
		}
		prog = found
	}
	a, errA := os.Stat(prog)
	b, errB := os.Stat(path)
	return errA == nil && errB == nil && os.SameFile(a, b)
}
