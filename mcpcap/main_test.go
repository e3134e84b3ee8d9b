package mcpcap

import (
	"os"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	if runTestServer(os.Getenv(serverEnv)) {
		os.Exit(0)
	}
	goleak.VerifyTestMain(m)
}
