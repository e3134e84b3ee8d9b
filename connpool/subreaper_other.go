//go:build !linux

package connpool

import "errors"

func becomeSubreaper() error { return errors.New("child subreaper is only supported on Linux") }
