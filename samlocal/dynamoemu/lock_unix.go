//go:build unix

package dynamoemu

import (
	"os"
	"path/filepath"
	"syscall"
)

// holder is the process that holds dynalite's data folder dir, or 0. Its
// LevelDB takes a write lock on dir/LOCK with fcntl F_SETLK (LockOrUnlock
// in leveldb's util/env_posix.cc, which classic-level builds), so F_GETLK
// names the process that holds it.
func holder(dir string) int {
	f, err := os.Open(filepath.Join(dir, "LOCK"))
	if err != nil {
		return 0 // no data yet
	}
	defer f.Close()
	lk := syscall.Flock_t{Type: syscall.F_WRLCK}
	if err := syscall.FcntlFlock(f.Fd(), syscall.F_GETLK, &lk); err != nil || lk.Type == syscall.F_UNLCK {
		return 0
	}
	return int(lk.Pid)
}
