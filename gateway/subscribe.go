package gateway

import (
	"context"
	"fmt"
	"strings"

	"github.com/agentpool/agentpool/ext"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Resource subscriptions: a session's resources/subscribe subscribes it upstream through the
// capability that has the resource (ext.ResourceSubscriber; package mcpcap counts holders per
// upstream session, so a server shared by many sessions is subscribed once); the update comes
// back as a resources_changed event with the URI, which every session's change stream carries,
// and the go-sdk sends notifications/resources/updated to the sessions that subscribed to it.

// subscribe is the go-sdk's SubscribeHandler.
func (s *session) subscribe(ctx context.Context, req *mcp.SubscribeRequest) error {
	uri := req.Params.URI
	s.subMu.Lock()
	defer s.subMu.Unlock()
	if _, ok := s.subs[uri]; ok {
		return nil // one upstream hold per session and URI
	}
	owner, err := s.subscriber(ctx, uri)
	if err != nil {
		return err
	}
	if err := owner.SubscribeResource(ctx, uri); err != nil {
		return rpcError(err)
	}
	if s.subs == nil {
		s.subs = make(map[string]ext.ResourceSubscriber)
	}
	s.subs[uri] = owner
	return nil
}

// unsubscribe is the go-sdk's UnsubscribeHandler. The client's subscription ends whatever the
// capability that held it answers (closed by a reload, say): an error would leave the go-sdk
// sending this session updates of the URI it gave up, so it is logged, not returned.
func (s *session) unsubscribe(ctx context.Context, req *mcp.UnsubscribeRequest) error {
	uri := req.Params.URI
	s.subMu.Lock()
	defer s.subMu.Unlock()
	owner, ok := s.subs[uri]
	if !ok {
		return nil
	}
	delete(s.subs, uri)
	if err := owner.UnsubscribeResource(ctx, uri); err != nil {
		s.g.log.Debug("unsubscribe not given back", "session", s.id, "uri", uri, "err", err)
	}
	return nil
}

// unsubscribeAll gives back the session's subscriptions (its end).
func (s *session) unsubscribeAll(ctx context.Context) {
	s.subMu.Lock()
	defer s.subMu.Unlock()
	for uri, owner := range s.subs {
		if err := owner.UnsubscribeResource(ctx, uri); err != nil {
			s.g.log.Debug("unsubscribe at session end", "session", s.id, "uri", uri, "err", err)
		}
	}
	s.subs = nil
}

// subscriber finds the capability the session sees that has uri and can watch it: the first
// visible resource source, or skill source (a skill manager, whose watcher reports edits), that
// says it has it.
func (s *session) subscriber(ctx context.Context, uri string) (ext.ResourceSubscriber, error) {
	for _, r := range s.g.reg.Registrations(s.scope) {
		sub, ok := r.Capability.(ext.ResourceSubscriber)
		if !ok {
			continue
		}
		has, err := true, error(nil)
		if src, ok := r.Capability.(ext.ResourceSource); ok {
			has, err = src.ResourceExists(ctx, uri)
		} else if sk, ok := r.Capability.(ext.SkillResource); ok {
			has, err = sk.SkillExists(ctx, uri)
		}
		if err != nil || !has {
			continue
		}
		return sub, nil
	}
	return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams,
		Message: fmt.Sprintf("resources/subscribe %s: no server of this session has the resource and supports subscriptions", uri)}
}

// resourcesUpdated tells the subscribed clients about the resources the events name. A
// skill's SKILL.md is also announced as skill://<skill-path>, the URI naming the skill alone,
// which reads the same file; a skill:// prefix (ext.ChangeEvent) names the subscribed URIs
// under it.
func (s *session) resourcesUpdated(ctx context.Context, uris map[string]bool) {
	send := map[string]bool{}
	for uri := range uris {
		if strings.HasPrefix(uri, "skill://") && strings.HasSuffix(uri, "/") {
			s.subMu.Lock()
			for sub := range s.subs {
				if strings.HasPrefix(sub+"/", uri) {
					send[sub] = true
				}
			}
			s.subMu.Unlock()
			continue
		}
		send[uri] = true
		if base, ok := strings.CutSuffix(uri, "/SKILL.md"); ok && strings.HasPrefix(base, "skill://") {
			send[base] = true
		}
	}
	for u := range send {
		if err := s.server.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: u}); err != nil {
			s.g.log.Debug("resources/updated not sent", "session", s.id, "uri", u, "err", err)
		}
	}
}
