package mcpcap

import (
	"os"
	"testing"

	"github.com/agentpool/agentpool/internal/testserver"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	testserver.RunIfServer()
	if runTestServer(os.Getenv(serverEnv)) {
		os.Exit(0)
	}
	goleak.VerifyTestMain(m)
}
