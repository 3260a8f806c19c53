//go:build !unix

package sweep

import "os/exec"

// newProcessGroup does nothing where there are no process groups.
func newProcessGroup(*exec.Cmd) {}

// signalGroup kills the process itself where there are no process groups
// and no SIGTERM.
func signalGroup(cmd *exec.Cmd, _ bool) { _ = cmd.Process.Kill() }
