//go:build unix

package proctest

// This file runs a tool as a terminal runs a job, for the tests of how it
// stops on the signals a terminal sends (make run, make start-api).

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Job is a command run in a process group of its own, as a terminal runs a
// job in its foreground group, with its TMPDIR a folder of the test's.
type Job struct {
	Cmd            *exec.Cmd
	Stdout, Stderr *Output
	tmp            string
	exited         chan error
}

// StartJob starts cmd (its Env set) in a group of its own with TMPDIR=tmp
// and its output kept; the test's end kills the group and whatever the job
// started elsewhere.
func StartJob(t *testing.T, cmd *exec.Cmd, tmp string) *Job {
	t.Helper()
	j := &Job{Cmd: cmd, Stdout: &Output{}, Stderr: &Output{}, tmp: tmp, exited: make(chan error, 1)}
	cmd.Env = append(cmd.Env, "TMPDIR="+tmp)
	cmd.Stdout, cmd.Stderr = j.Stdout, j.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.WaitDelay = time.Second // a process left behind keeps the output open
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { j.exited <- cmd.Wait() }()
	t.Cleanup(func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		for _, p := range Family(t, cmd.Process.Pid) {
			syscall.Kill(p.PID, syscall.SIGKILL)
		}
	})
	return j
}

// Signal sends sig to the job's whole group, as the terminal does.
func (j *Job) Signal(t *testing.T, sig syscall.Signal) {
	t.Helper()
	if err := syscall.Kill(-j.Cmd.Process.Pid, sig); err != nil {
		t.Fatal(err)
	}
}

// Compiling waits until a go command of the job compiles or links (a
// rebuild) and returns the job's family then; the bound of a minute only
// catches a hang.
func (j *Job) Compiling(t *testing.T) []Proc {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
		family := Family(t, j.Cmd.Process.Pid)
		for _, p := range family {
			if p.Command == "compile" || p.Command == "link" {
				return family
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no rebuild within a minute of the edit:\n%s", j.Stdout)
		}
	}
}

// Ended fails t unless, within 10 s of the signal (a failure bound, not a
// measure), every process of family and of the group has ended and the job
// has exited, and its TMPDIR is empty; it returns the job's exit error.
func (j *Job) Ended(t *testing.T, after string, family []Proc) error {
	t.Helper()
	bound, stop := context.WithTimeout(context.Background(), 10*time.Second)
	defer stop()
	if left := Running(bound, t, family, j.Cmd.Process.Pid); left != nil {
		t.Fatalf("10s after %s these still run: %v\nit printed:\n%s\n%s", after, left, j.Stdout, j.Stderr.Tail())
	}
	var err error
	select {
	case err = <-j.exited:
	case <-bound.Done():
		t.Fatalf("still running 10s after %s", after)
	}
	var left []string
	filepath.WalkDir(j.tmp, func(path string, _ os.DirEntry, _ error) error {
		if path != j.tmp {
			left = append(left, strings.TrimPrefix(path, j.tmp))
		}
		return nil
	})
	if len(left) != 0 {
		t.Errorf("left in TMPDIR after %s: %v", after, left)
	}
	return err
}
