//go:build !unix

package childproc

import "os/exec"

func prepare(*exec.Cmd) {}

func killGroup(cmd *exec.Cmd) { _ = cmd.Process.Kill() }

func terminate(cmd *exec.Cmd) { _ = cmd.Process.Kill() }

func interruptGroup(cmd *exec.Cmd) { _ = cmd.Process.Kill() } // no signal to send
