//go:build !linux

package launch

import "errors"

// run refuses: the rules are Linux's.
func run(string, string, []string) { fail(errors.New("Linux only")) }

// KernelABI is 0: no Landlock elsewhere than on Linux.
func KernelABI() int { return 0 }
