package mcpcap

import (
	"context"
	"fmt"
	"strings"

	"github.com/agentpool/agentpool/ext"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ListCommands returns the server's prompts as commands named "<server>:<prompt>" (Source
// "mcp"), with the prompt's arguments in order. The listing is cached until the server says
// its prompts changed. A dormant Lazy Cap lists none.
func (c *Cap) ListCommands(ctx context.Context) ([]ext.CommandEntry, error) {
	if c.dormant() {
		return nil, nil
	}
	prompts, err := c.prompts(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]ext.CommandEntry, 0, len(prompts))
	// prefix: "" serves the server's names as they are, its prompts' as well as its tools'
	// (a gateway in front of one server is then transparent); the qualified name still
	// names the server.
	bare := c.cfg.Prefix != nil && *c.cfg.Prefix == ""
	for _, p := range prompts {
		name := c.cfg.Name + ":" + p.Name
		if bare {
			name = p.Name
		}
		e := ext.CommandEntry{
			Name:          name,
			QualifiedName: c.cfg.Name + ":" + p.Name,
			Title:         p.Title,
			Description:   p.Description,
			Source:        "mcp",
			Icons:         icons(p.Icons),
			Meta:          rawJSON(p.Meta),
		}
		var hint []string
		for _, a := range p.Arguments {
			if a == nil {
				continue
			}
			e.Arguments = append(e.Arguments, ext.CommandArgument{Name: a.Name, Title: a.Title, Description: a.Description, Required: a.Required})
			if a.Required {
				hint = append(hint, "<"+a.Name+">")
			} else {
				hint = append(hint, "["+a.Name+"]")
			}
		}
		e.ArgumentHint = strings.Join(hint, " ")
		out = append(out, e)
	}
	return out, nil
}

// GetCommand expands the prompt req.Name ("<server>:<prompt>", "<prompt>", with or without a
// leading "/") with prompts/get. Named arguments are passed as they are; without them,
// positional Args fill the prompt's arguments in order, extra args joined with spaces into the
// last argument, and a missing required argument, or args for a prompt that takes none, is an
// error naming the command. The result keeps every message's role and typed content.
func (c *Cap) GetCommand(ctx context.Context, req *ext.CommandRequest) (*ext.PromptResult, error) {
	name, args := req.Name, req.Args
	pname := strings.TrimPrefix(name, "/")
	if server, rest, ok := strings.Cut(pname, ":"); ok && server == c.cfg.Name {
		pname = rest
	}
	prompts, err := c.prompts(ctx)
	if err != nil {
		return nil, err
	}
	var p *mcp.Prompt
	for _, q := range prompts {
		if q.Name == pname {
			p = q
			break
		}
	}
	if p == nil {
		if err := c.blockedPrompt(pname); err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("mcp server %q: command %q: %w", c.cfg.Name, name, ext.ErrNotFound)
	}
	argMap := req.Named
	if argMap == nil {
		if argMap, err = c.bindArgs(p, args); err != nil {
			return nil, err
		}
	}
	cn, err := c.ensure(ctx)
	if err != nil {
		return nil, err
	}
	tr := track(ctx, cn)
	res, err := cn.session.GetPrompt(ctx, &mcp.GetPromptParams{Name: p.Name, Arguments: argMap})
	tr.Done()
	if err != nil {
		c.noteCallError(cn, err)
		return nil, fmt.Errorf("mcp server %q: command %q: prompts/get: %w", c.cfg.Name, name, err)
	}
	out := &ext.PromptResult{Description: res.Description, Messages: make([]ext.PromptMessage, 0, len(res.Messages)), Meta: rawJSON(res.Meta)}
	for _, m := range res.Messages {
		if m != nil {
			out.Messages = append(out.Messages, promptMessage(m))
		}
	}
	return out, nil
}

func (c *Cap) bindArgs(p *mcp.Prompt, args []string) (map[string]string, error) {
	var decl []*mcp.PromptArgument
	for _, a := range p.Arguments {
		if a != nil {
			decl = append(decl, a)
		}
	}
	if len(decl) == 0 {
		if len(args) > 0 {
			return nil, fmt.Errorf("mcp server %q: command %q takes no arguments, got %d", c.cfg.Name, c.cfg.Name+":"+p.Name, len(args))
		}
		return nil, nil
	}
	m := make(map[string]string, len(decl))
	for i, a := range decl {
		switch {
		case i < len(args) && i == len(decl)-1:
			m[a.Name] = strings.Join(args[i:], " ")
		case i < len(args):
			m[a.Name] = args[i]
		case a.Required:
			return nil, fmt.Errorf("mcp server %q: command %q: missing required argument %q (position %d)", c.cfg.Name, c.cfg.Name+":"+p.Name, a.Name, i+1)
		}
	}
	return m, nil
}

func (c *Cap) prompts(ctx context.Context) ([]*mcp.Prompt, error) {
	if c.isClosed() {
		return nil, c.errClosed()
	}
	cn, err := c.ensure(ctx)
	if err != nil {
		return nil, err
	}
	return cachedListing(c, cn, &c.promptList, func() ([]*mcp.Prompt, error) {
		list := []*mcp.Prompt{}
		if caps := serverCaps(cn); caps != nil && caps.Prompts == nil {
			c.recordPrompts(list)
			return c.guardPrompts(list), nil // pinned empty: a prompt offered later is new
		}
		err := paginate(func(cursor string) (string, error) {
			res, err := cn.session.ListPrompts(ctx, &mcp.ListPromptsParams{Cursor: cursor})
			if err != nil {
				c.noteCallError(cn, err)
				return "", err
			}
			for _, p := range res.Prompts {
				if p != nil { // a malformed "prompts":[null]
					list = append(list, p)
				}
			}
			return res.NextCursor, nil
		})
		if err != nil {
			return nil, fmt.Errorf("mcp server %q: prompts/list: %w", c.cfg.Name, err)
		}
		c.recordPrompts(list)
		return c.guardPrompts(list), nil
	})
}

// Complete forwards a completion/complete request (argument completion for a prompt or a
// resource template) to the server. A prompt reference may use the command name
// ("<server>:<prompt>"). A server without the completions capability answers with an empty
// completion.
func (c *Cap) Complete(ctx context.Context, req *ext.CompleteRequest) (*ext.CompleteResult, error) {
	if c.isClosed() {
		return nil, c.errClosed()
	}
	cn, err := c.ensure(ctx)
	if err != nil {
		return nil, err
	}
	if caps := serverCaps(cn); caps != nil && caps.Completions == nil {
		return &ext.CompleteResult{Values: []string{}}, nil
	}
	ref := &mcp.CompleteReference{Type: req.Ref.Type, Name: req.Ref.Name, URI: req.Ref.URI}
	if server, rest, ok := strings.Cut(ref.Name, ":"); ok && server == c.cfg.Name {
		ref.Name = rest
	}
	params := &mcp.CompleteParams{Ref: ref, Argument: mcp.CompleteParamsArgument{Name: req.Argument.Name, Value: req.Argument.Value}}
	if len(req.Context) > 0 {
		params.Context = &mcp.CompleteContext{Arguments: req.Context}
	}
	res, err := cn.session.Complete(ctx, params)
	if err != nil {
		c.noteCallError(cn, err)
		return nil, fmt.Errorf("mcp server %q: completion/complete: %w", c.cfg.Name, err)
	}
	out := &ext.CompleteResult{Values: res.Completion.Values, Total: res.Completion.Total, HasMore: res.Completion.HasMore}
	if out.Values == nil {
		out.Values = []string{}
	}
	return out, nil
}
