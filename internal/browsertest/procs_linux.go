package browsertest

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
)

// ProfileUsers returns the ids of the processes whose command line passes
// --user-data-dir=dir: the browser and every helper process it started
// (Chromium hands the flag to each). A test calls it after Check to prove
// that no browser process outlived the check.
func ProfileUsers(dir string) []int {
	want := []byte("--user-data-dir=" + dir)
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		cmdline, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err != nil {
			continue
		}
		for arg := range bytes.SplitSeq(cmdline, []byte{0}) {
			if bytes.Equal(arg, want) {
				pids = append(pids, pid)
				break
			}
		}
	}
	return pids
}

// killProfileUsers kills what is left of a browser that used dir.
func killProfileUsers(dir string) {
	for _, pid := range ProfileUsers(dir) {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
}
