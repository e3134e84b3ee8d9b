//go:build linux

package skill

import (
	"context"
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/agentpool/agentpool/internal/testwait"
)

// TestSkillCreatedDuringFirstScanIsSeen: a skill created in a root already scanned while
// NewManager still scans a later root must be picked up by the watcher. The test learns that the
// first root is done when the scan opens the second root (inotify IN_OPEN), then creates the skill
// while the second root's 1500 folders are still being read.
func TestSkillCreatedDuringFirstScanIsSeen(t *testing.T) {
	first, second := t.TempDir(), t.TempDir()
	for i := range 1500 {
		write(t, second, fmt.Sprintf("d%04d/x.txt", i), "x")
	}
	fd, err := syscall.InotifyInit1(syscall.IN_CLOEXEC)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(fd)
	if _, err := syscall.InotifyAddWatch(fd, second, syscall.IN_OPEN); err != nil {
		t.Fatal(err)
	}

	type made struct {
		m   *Manager
		err error
	}
	done := make(chan made, 1)
	go func() {
		m, err := NewManager(&Options{Roots: []string{first, second}, Watch: true, Debounce: 50 * time.Millisecond})
		done <- made{m, err}
	}()
	buf := make([]byte, 4096)
	if _, err := syscall.Read(fd, buf); err != nil { // the scan opened the second root
		t.Fatal(err)
	}
	write(t, first, "late/SKILL.md", "---\nname: late\ndescription: created during the first scan\n---\n")
	r := <-done
	if r.err != nil {
		t.Fatal(r.err)
	}
	defer r.m.Close(context.Background())
	testwait.For(t, "the skill created during the first scan", func() bool { return r.m.Skill("late") != nil })
}
