package childproc

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// userHZ is the unit of the clock ticks in /proc: sysconf(_SC_CLK_TCK), 100 on
// Linux's amd64 and arm64 (proc_pid_stat(5)).
const userHZ = 100

// CPUTime is the CPU time, user and system, that process pid (0: this process)
// has used so far, all its threads together, from /proc/<pid>/stat. Linux
// only; elsewhere it returns the error of the missing file.
func CPUTime(pid int) (time.Duration, error) {
	path := "/proc/self/stat"
	if pid != 0 {
		path = fmt.Sprintf("/proc/%d/stat", pid)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	d, err := parseStat(b)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", path, err)
	}
	return d, nil
}

// parseStat reads utime and stime (fields 14 and 15 of proc_pid_stat(5)) from
// a stat line. The command name, field 2, is in parentheses and may itself
// hold spaces and parentheses, so the fields are counted from the last ')'.
func parseStat(b []byte) (time.Duration, error) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, errors.New("no command name in the stat line")
	}
	f := strings.Fields(string(b[i+1:])) // f[0] is field 3, the state
	if len(f) < 13 {
		return 0, fmt.Errorf("%d fields after the command name, want at least 13", len(f))
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err := errors.Join(err1, err2); err != nil {
		return 0, err
	}
	return time.Duration(utime+stime) * (time.Second / userHZ), nil
}
