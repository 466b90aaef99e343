package childproc

import (
	"os/exec"
	"syscall"
)

func prepare(cmd *exec.Cmd) {
	// Pdeathsig: the kernel kills the child when this process dies, even by SIGKILL.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
