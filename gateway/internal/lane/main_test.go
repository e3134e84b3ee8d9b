package lane

import (
	"testing"

	"go.uber.org/goleak"
)

// net/http lingers half a second on a connection it half-closed (a 400 for a malformed head,
// a body it did not read whole) before it closes it: bounded, and not the lane's.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, goleak.IgnoreAnyFunction("net/http.(*conn).closeWriteAndWait"))
}
