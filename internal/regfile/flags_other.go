//go:build !unix

package regfile

// openFlags are added to O_RDONLY; see flags_unix.go.
const openFlags = 0
