//go:build !linux

package sandbox

import "errors"

func tmpDirInPidNS() error { return errors.New("pid namespaces are Linux only") }
