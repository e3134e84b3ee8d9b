package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/agentpool/agentpool/connpool"
	"github.com/agentpool/agentpool/host"
	"github.com/agentpool/agentpool/trust"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/spf13/cobra"
)

// loginWait bounds how long `agentpool login` waits for the user to authorize.
const loginWait = 10 * time.Minute

// tokenStore is where users' OAuth tokens are kept ($XDG_CONFIG_HOME/agentpool/tokens, one
// 0600 file a server); nil when there is no config folder.
func tokenStore() connpool.TokenStore {
	dir, err := trust.ConfigDir()
	if err != nil {
		return nil
	}
	return &connpool.FileTokenStore{Dir: filepath.Join(dir, "tokens")}
}

// newLoginCmd is `agentpool login SERVER`.
func newLoginCmd(opts *options) *cobra.Command {
	return &cobra.Command{
		Use:   "login SERVER",
		Short: "Log in to an MCP server that needs a user's authorization (auth: {type: authorization_code})",
		Long: "Prints the authorization URL (and opens it in a browser when one can be opened), waits for the\n" +
			"authorization server to redirect back to the loopback address the server's auth.redirect_port names,\n" +
			"and keeps the token in $XDG_CONFIG_HOME/agentpool/tokens (0600), where serve and every other command\n" +
			"find it and refresh it.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			store := tokenStore()
			if store == nil {
				return errors.New("login: no config folder to keep the token in ($XDG_CONFIG_HOME or $HOME)")
			}
			cfg, _, _, err := configs(opts, "", homeDir())
			if err != nil {
				return err
			}
			ctx, cancel := context.WithTimeout(cmd.Context(), loginWait)
			defer cancel()
			if err := host.Login(ctx, cfg, args[0], store, loopbackAuthorize(cmd.ErrOrStderr())); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "logged in to %s\n", cell(args[0]))
			return nil
		},
	}
}

// loopbackAuthorize returns the user's part of the authorization code grant: it listens on
// the loopback redirect the authorization URL names, prints the URL on w (and opens it with
// $BROWSER or xdg-open when there is a display), and returns the code of the first redirect
// that reaches it, or the authorization server's error.
func loopbackAuthorize(w io.Writer) host.Authorize {
	return func(ctx context.Context, server, authURL string) (*auth.AuthorizationResult, error) {
		u, err := url.Parse(authURL)
		if err != nil {
			return nil, fmt.Errorf("the authorization URL: %w", err)
		}
		redirect, err := url.Parse(u.Query().Get("redirect_uri"))
		if err != nil || redirect.Scheme != "http" || redirect.Host == "" {
			return nil, fmt.Errorf("the authorization URL has no loopback redirect_uri")
		}
		ln, err := net.Listen("tcp", redirect.Host)
		if err != nil {
			return nil, fmt.Errorf("listen for the redirect on %s (set auth.redirect_port to a free port): %w", redirect.Host, err)
		}
		got := make(chan *auth.AuthorizationResult, 1)
		failed := make(chan error, 1)
		srv := &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
			if r.URL.Path != redirect.Path {
				http.NotFound(rw, r)
				return
			}
			q := r.URL.Query()
			if e := q.Get("error"); e != "" {
				fmt.Fprintln(rw, "agentpool: the authorization was refused; see the terminal.")
				_ = http.NewResponseController(rw).Flush()
				select {
				case failed <- fmt.Errorf("the authorization server refused: %s %s", e, q.Get("error_description")):
				default:
				}
				return
			}
			fmt.Fprintln(rw, "agentpool: logged in; you can close this page.")
			// The page reaches the browser before login goes on to end this server.
			_ = http.NewResponseController(rw).Flush()
			select {
			case got <- &auth.AuthorizationResult{Code: q.Get("code"), State: q.Get("state"), Iss: q.Get("iss")}:
			default:
			}
		})}
		go func() { _ = srv.Serve(ln) }()
		defer func() {
			// Gracefully: the handler that took the code may still be finishing its answer,
			// which Close would cut off (the browser would show an empty reply).
			sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			if srv.Shutdown(sctx) != nil {
				_ = srv.Close()
			}
		}()
		fmt.Fprintf(w, "agentpool: to log in to %s, open this URL in a browser:\n%s\n", cell(server), authURL)
		openBrowser(authURL)
		select {
		case r := <-got:
			return r, nil
		case err := <-failed:
			return nil, err
		case <-ctx.Done():
			return nil, fmt.Errorf("no authorization within %s: %w", loginWait, ctx.Err())
		}
	}
}

// openBrowser opens url with $BROWSER, or xdg-open when there is a display; it does not wait
// and says nothing when it cannot: the URL is printed either way.
func openBrowser(url string) {
	name := os.Getenv("BROWSER")
	if name == "" && (os.Getenv("DISPLAY") != "" || os.Getenv("WAYLAND_DISPLAY") != "") {
		name = "xdg-open"
	}
	if name == "" {
		return
	}
	c := exec.Command(name, url)
	if c.Start() == nil {
		go func() { _ = c.Wait() }()
	}
}
