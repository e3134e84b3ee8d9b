//go:build unix

package regfile

import "syscall"

// openFlags are added to O_RDONLY: a named pipe must not block the open, and a terminal must
// not become the controlling one.
const openFlags = syscall.O_NONBLOCK | syscall.O_NOCTTY
