//go:build !linux

package sandbox

import "errors"

func uringMPTCP(string) error { return errors.New("io_uring is Linux only") }
