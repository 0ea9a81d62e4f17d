package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	"k8s.io/client-go/kubernetes"
)

// Publisher writes one node's results to the API server: its conditions (status
// subresource), an Event per transition and its report ConfigMap. It writes nothing
// about any other node; the admission policy in deploy/ holds it to that.
type Publisher struct {
	Client    kubernetes.Interface
	Node      string
	Namespace string // of the report; "" means Namespace
	// Now is the clock (tests pin it); nil means time.Now.
	Now func() time.Time

	// known are the node's conditions as the last patch returned them, so a sweep after
	// the first costs no read of the Node; nil before the first.
	known []corev1.NodeCondition
}

func (p *Publisher) ns() string {
	if p.Namespace == "" {
		return Namespace
	}
	return p.Namespace
}

func (p *Publisher) now() time.Time {
	if p.Now == nil {
		return time.Now()
	}
	return p.Now()
}

// Publish writes a sweep's results: conditions first (what schedulers and people see),
// then the events of the transitions, then the report. It returns the first error and
// still tries the others, so a missing Event permission does not hide the conditions.
func (p *Publisher) Publish(ctx context.Context, r Report, moves []Transition) error {
	errs := []error{p.setConditions(ctx, Conditions(r.Findings, r.SweepError))}
	for _, t := range moves {
		errs = append(errs, p.event(ctx, t))
	}
	errs = append(errs, p.putReport(ctx, r))
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// setConditions patches the node's status with a strategic merge patch, as
// node-problem-detector does: conditions merge by type, so the kubelet's own (Ready,
// MemoryPressure, ...) are untouched. A condition whose status is unchanged keeps its
// lastTransitionTime; the heartbeat moves every sweep.
func (p *Publisher) setConditions(ctx context.Context, conds []corev1.NodeCondition) error {
	if p.known == nil {
		node, err := p.Client.CoreV1().Nodes().Get(ctx, p.Node, metav1.GetOptions{})
		if err != nil {
			return fmt.Errorf("reading node %s before setting its conditions: %w", p.Node, err)
		}
		p.known = node.Status.Conditions
	}
	now := metav1.NewTime(p.now())
	for i := range conds {
		conds[i].LastHeartbeatTime = now
		conds[i].LastTransitionTime = now
		for _, old := range p.known {
			if old.Type == conds[i].Type && old.Status == conds[i].Status {
				conds[i].LastTransitionTime = old.LastTransitionTime
			}
		}
	}
	patch, err := json.Marshal(map[string]any{"status": map[string]any{"conditions": conds}})
	if err != nil {
		return fmt.Errorf("encoding the conditions of %s: %w", p.Node, err)
	}
	node, err := p.Client.CoreV1().Nodes().PatchStatus(ctx, p.Node, patch)
	if err != nil {
		p.known = nil // read it again next time: someone else may have changed it
		return fmt.Errorf("setting the conditions of node %s: %w", p.Node, err)
	}
	p.known = node.Status.Conditions
	return nil
}

// EventNamespace holds the events on Nodes, as the kubelet's: an event of a cluster-scoped
// object lives in "default" with no namespace in its reference, and that is where
// `kubectl describe node` looks for them.
const EventNamespace = metav1.NamespaceDefault

// event records one transition on the Node, named and referenced as the kubelet names
// its node events (<node>.<unix nanos in hex>, UID = the node name).
func (p *Publisher) event(ctx context.Context, t Transition) error {
	now := p.now()
	typ, msg := corev1.EventTypeWarning, "failing: "+t.Summary
	if t.Recovered {
		typ, msg = corev1.EventTypeNormal, "recovered: "+t.Summary
	}
	ev := &corev1.Event{
		ObjectMeta:     metav1.ObjectMeta{Name: fmt.Sprintf("%s.%x", p.Node, now.UnixNano()), Namespace: EventNamespace},
		InvolvedObject: corev1.ObjectReference{Kind: "Node", Name: p.Node, UID: types.UID(p.Node)},
		Reason:         t.Probe,
		Message:        msg,
		Type:           typ,
		Source:         corev1.EventSource{Component: FieldManager, Host: p.Node},
		FirstTimestamp: metav1.NewTime(now),
		LastTimestamp:  metav1.NewTime(now),
		Count:          1,
	}
	if _, err := p.Client.CoreV1().Events(EventNamespace).Create(ctx, ev, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("recording event %s on node %s: %w", t.Probe, p.Node, err)
	}
	return nil
}

// putReport writes the report ConfigMap with server-side apply: one request that creates
// it or replaces the agent's fields, with no read first.
func (p *Publisher) putReport(ctx context.Context, r Report) error {
	b, err := r.Encode()
	if err != nil {
		return err
	}
	cm := corev1ac.ConfigMap(p.Node, p.ns()).
		WithLabels(map[string]string{ReportLabel: "agent", "app.kubernetes.io/name": "wintroubleshoot"}).
		WithData(map[string]string{ReportKey: string(b)})
	if _, err := p.Client.CoreV1().ConfigMaps(p.ns()).Apply(ctx, cm, metav1.ApplyOptions{FieldManager: FieldManager, Force: true}); err != nil {
		return fmt.Errorf("writing the report of node %s: %w", p.Node, err)
	}
	return nil
}

// Previous reads the node's last report, so an agent that restarts neither repeats the
// events of failures it already recorded nor misses a recovery; none yet is (nil, nil).
func (p *Publisher) Previous(ctx context.Context) (*Report, error) {
	cm, err := p.Client.CoreV1().ConfigMaps(p.ns()).Get(ctx, p.Node, metav1.GetOptions{})
	if err != nil {
		if apierrors.IsNotFound(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("reading the last report of node %s: %w", p.Node, err)
	}
	r, err := DecodeReport([]byte(cm.Data[ReportKey]))
	if err != nil {
		return nil, err
	}
	return &r, nil
}
