package view_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/agentpool/agentpool/ext"
)

var errKeptOut = errors.New("prompt \"leak\" is new since the server was pinned; allow it with `agentpool pins approve mail leak`")

// promptBlockingCap keeps its prompt "leak" out of its commands (ext.CommandBlocker).
type promptBlockingCap struct{ *fakeCap }

func (b promptBlockingCap) BlockedCommand(name string) error {
	if strings.TrimPrefix(name, "/") == "mail:leak" {
		return errKeptOut
	}
	return nil
}

// Expanding a command its capability keeps out (an agent's "/mail:leak") fails with the
// capability's reason, still ext.ErrNotFound, as calling a kept-out tool does.
func TestGetCommandKeptOutGivesTheReason(t *testing.T) {
	r := newRegistry(t)
	f := newFake("mail", ext.OriginLocal)
	f.cmds = []ext.CommandEntry{{Name: "mail:draft", Source: "mcp", QualifiedName: "mail:draft"}}
	register(t, r, promptBlockingCap{f}, ext.LevelPool, ext.Scope{})
	v := compile(t, r, ext.Scope{})
	_, err := v.GetCommand(context.Background(), &ext.CommandRequest{Name: "/mail:leak"})
	if !errors.Is(err, ext.ErrNotFound) || !errors.Is(err, errKeptOut) {
		t.Errorf("GetCommand(/mail:leak) = %v, want ext.ErrNotFound with the reason it is kept out", err)
	}
	if _, err := v.GetCommand(context.Background(), &ext.CommandRequest{Name: "/mail:draft"}); err != nil {
		t.Errorf("GetCommand(/mail:draft) = %v", err)
	}
}
