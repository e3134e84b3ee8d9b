package skill

import (
	"context"
	"fmt"

	"github.com/agentpool/agentpool/ext"
)

// SubscribeResource accepts a subscription to a skill:// URI the manager has (SkillExists says
// yes; skill://<name> alone included). It holds nothing: with Options.Watch every edit is
// already announced as a resources_changed event naming the file (SourceURI), which is the
// update a subscriber hears of. Without Watch no update would ever come, so the subscription
// is refused with an error saying so. A URI the manager lacks is ErrNotFound.
func (m *Manager) SubscribeResource(ctx context.Context, uri string) error {
	ok, err := m.SkillExists(ctx, uri)
	switch {
	case err != nil:
		return err
	case !ok:
		return fmt.Errorf("skill manager %q: subscribe %s: no such skill or file: %w", m.name, uri, ext.ErrNotFound)
	case !m.opts.Watch:
		return fmt.Errorf("skill manager %q: subscribe %s: the skill folders are not watched, so no update would be sent", m.name, uri)
	}
	return nil
}

// UnsubscribeResource ends a subscription; as SubscribeResource holds nothing, there is
// nothing to give back.
func (m *Manager) UnsubscribeResource(ctx context.Context, _ string) error { return m.check(ctx) }
