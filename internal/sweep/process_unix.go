//go:build unix

package sweep

import (
	"os/exec"
	"syscall"
)

// newProcessGroup starts cmd in a new session, so its group holds every
// process it spawns (vLLM's start_new_session=True).
func newProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
}

// signalGroup sends SIGTERM, or SIGKILL when kill is set, to cmd's process
// group.
func signalGroup(cmd *exec.Cmd, kill bool) {
	sig := syscall.SIGTERM
	if kill {
		sig = syscall.SIGKILL
	}
	_ = syscall.Kill(-cmd.Process.Pid, sig) // gone already: nothing to do
}
