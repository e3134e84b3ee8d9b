package gateway_test

import (
	"testing"

	"github.com/agentpool/agentpool/internal/testserver"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	testserver.RunIfServer()
	goleak.VerifyTestMain(m)
}
