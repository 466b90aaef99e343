//go:build !unix

package childproc

import "os/exec"

func prepare(*exec.Cmd) {}

func killGroup(cmd *exec.Cmd) { _ = cmd.Process.Kill() }

func terminate(cmd *exec.Cmd) { _ = cmd.Process.Kill() }

func interruptGroup(*exec.Cmd) {} // no signal to send: KillAll follows
