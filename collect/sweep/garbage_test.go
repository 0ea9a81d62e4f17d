package sweep_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/wintroubleshoot/wintroubleshoot/collect/scripts"
	"github.com/wintroubleshoot/wintroubleshoot/collect/sweep"
	"github.com/wintroubleshoot/wintroubleshoot/collect/transport"
	"github.com/wintroubleshoot/wintroubleshoot/demo/fakenode"
)

// A node whose reply is not a sweep reply is named by transport and address, as every
// other failure is: the error reaches `snapshot` and `fix` as it is, without the engine's
// node line, and "the node's reply is not a sweep reply" alone says neither which node
// nor how it was reached.
func TestGarbageReplyNamesTransportAndAddress(t *testing.T) {
	for _, kind := range kinds {
		t.Run(string(kind), func(t *testing.T) {
			node := fakenode.NewNode(fakenode.NodeOptions{Scenario: scenario(false), Node: "win-1", Garbage: true})
			tr, _ := over(t, kind, node, nil)
			_, err := sweep.Run(t.Context(), tr, sweep.Request{Names: scripts.Snippets()})
			var te *transport.Error
			if !errors.As(err, &te) {
				t.Fatalf("error %v (%T), want a *transport.Error", err, err)
			}
			_, addr := tr.(transport.Endpoint).Endpoint()
			msg := err.Error()
			for _, want := range []string{string(kind) + " " + addr + ": ", "not a sweep reply", "default shell"} {
				if !strings.Contains(msg, want) {
					t.Errorf("error lacks %q: %s", want, msg)
				}
			}
		})
	}
}
