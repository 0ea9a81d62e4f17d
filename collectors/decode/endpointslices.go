package decode

import (
	discoveryv1 "k8s.io/api/discovery/v1"
)

// EndpointSlices reads cluster/endpointslices.json (`kubectl get endpointslices -A -o json`).
func EndpointSlices(file string, b []byte) ([]discoveryv1.EndpointSlice, error) {
	return kubeList[discoveryv1.EndpointSlice](file, b, "EndpointSlice")
}

// ServiceEndpoints are the addresses of one Service's endpoints in its EndpointSlices
// (label kubernetes.io/service-name), split into ready and not. A nil Ready condition
// counts as ready, as the discovery.k8s.io/v1 API defines it ("should be interpreted as
// true"), and a terminating endpoint is not ready.
type ServiceEndpoints struct {
	Ready, NotReady []string
	Slices          int // how many slices the Service has
}

// EndpointsOf collects the Service's endpoint addresses from the slices.
func EndpointsOf(slices []discoveryv1.EndpointSlice, namespace, name string) ServiceEndpoints {
	var out ServiceEndpoints
	for _, s := range slices {
		if s.Namespace != namespace || s.Labels[discoveryv1.LabelServiceName] != name {
			continue
		}
		out.Slices++
		for _, e := range s.Endpoints {
			ready := e.Conditions.Ready == nil || *e.Conditions.Ready
			if e.Conditions.Terminating != nil && *e.Conditions.Terminating {
				ready = false
			}
			for _, a := range e.Addresses {
				if ready {
					out.Ready = append(out.Ready, a)
				} else {
					out.NotReady = append(out.NotReady, a)
				}
			}
		}
	}
	return out
}
