//go:build unix && !linux

package childproc

import (
	"os/exec"
	"syscall"
)

// prepare puts the child in its own group; macOS and the BSDs cannot tie it
// to this process's death, so StopAll covers an orderly exit.
func prepare(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}
