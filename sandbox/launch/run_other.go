//go:build !linux

package launch

import (
	"errors"
	"os"
)

// run refuses: the rules are Linux's.
func run([]string) { fail("Linux only") }

// KernelABI is 0: no Landlock elsewhere than on Linux.
func KernelABI() int { return 0 }

// Ruleset fails: no Landlock elsewhere than on Linux.
func Ruleset(Rules) (*os.File, error) { return nil, errors.New("Landlock is Linux's") }
