package kube

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/types"

	"github.com/wintroubleshoot/wintroubleshoot/evidence"
)

// windowsEvents lists the events about each Windows node and about the collected pods.
func (c *Client) windowsEvents(ctx context.Context, win []NodeInfo, pods []corev1.Pod) ([]corev1.Event, error) {
	var out []corev1.Event
	for _, n := range win {
		sel := fields.Set{"involvedObject.kind": "Node", "involvedObject.name": n.Name}.AsSelector().String()
		evs, err := c.events(ctx, sel)
		if err != nil {
			return nil, err
		}
		out = append(out, evs...)
	}
	if len(pods) == 0 {
		return out, nil
	}
	// One list of all pod events, filtered here, costs less than a call per pod.
	uids := map[types.UID]bool{}
	names := map[string]bool{}
	for _, p := range pods {
		uids[p.UID] = true
		names[p.Namespace+"/"+p.Name] = true
	}
	evs, err := c.events(ctx, fields.OneTermEqualSelector("involvedObject.kind", "Pod").String())
	if err != nil {
		return nil, err
	}
	for _, e := range evs {
		o := e.InvolvedObject
		if uids[o.UID] || (o.UID == "" && names[o.Namespace+"/"+o.Name]) {
			out = append(out, e)
		}
	}
	return out, nil
}

func (c *Client) events(ctx context.Context, selector string) ([]corev1.Event, error) {
	evs, err := pages(ctx, func(ctx context.Context, o metav1.ListOptions) ([]corev1.Event, string, error) {
		o.FieldSelector = selector
		l, err := c.cs.CoreV1().Events("").List(ctx, o)
		if err != nil {
			return nil, "", err
		}
		return l.Items, l.Continue, nil
	})
	return evs, c.fail(ctx, err, "list", "events", "", "")
}

func (c *Client) daemonSets(ctx context.Context) ([]appsv1.DaemonSet, error) {
	dss, err := pages(ctx, func(ctx context.Context, o metav1.ListOptions) ([]appsv1.DaemonSet, string, error) {
		l, err := c.cs.AppsV1().DaemonSets(metav1.NamespaceSystem).List(ctx, o)
		if err != nil {
			return nil, "", err
		}
		return l.Items, l.Continue, nil
	})
	return dss, c.fail(ctx, err, "list", "daemonsets", metav1.NamespaceSystem, "")
}

// put stores items as `kubectl get ... -o json` prints a list: {"apiVersion": "v1",
// "kind": "List", "items": [...], "metadata": {"resourceVersion": ""}}, each item with
// apiVersion and kind set (typed client results lack them), managedFields hidden as kubectl
// hides them, keys sorted and a four-space indent. A stale <path>.err is removed.
func (c *Client) put(t *evidence.Tree, path, apiVersion, kind string, items any) error {
	b, err := KubectlList(apiVersion, kind, items)
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	t.Put(path, b)
	t.Delete(path + evidence.ErrSuffix)
	return nil
}

// KubectlList renders typed API objects (a slice of structs) the way kubectl prints a list.
func KubectlList(apiVersion, kind string, items any) ([]byte, error) {
	// A JSON round trip yields exactly the fields the API sent, as plain maps.
	raw, err := json.Marshal(items)
	if err != nil {
		return nil, fmt.Errorf("encoding %s items: %w", kind, err)
	}
	var objs []map[string]any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber() // int64 fields stay exact
	if err := dec.Decode(&objs); err != nil {
		return nil, fmt.Errorf("re-reading %s items: %w", kind, err)
	}
	list := make([]any, 0, len(objs))
	for _, o := range objs {
		o["apiVersion"], o["kind"] = apiVersion, kind
		if md, ok := o["metadata"].(map[string]any); ok {
			delete(md, "managedFields")
		}
		list = append(list, o)
	}
	doc := map[string]any{"apiVersion": "v1", "kind": "List", "items": list,
		"metadata": map[string]any{"resourceVersion": ""}}
	b, err := json.MarshalIndent(doc, "", "    ")
	if err != nil {
		return nil, fmt.Errorf("encoding %s list: %w", kind, err)
	}
	return append(b, '\n'), nil
}
