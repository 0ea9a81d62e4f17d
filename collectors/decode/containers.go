package decode

import "strings"

// Container is one container or pod sandbox the runtime knows, tied to its pod.
type Container struct {
	ID           string
	PodName      string
	PodNamespace string
	PodUID       string
	State        string
}

type rawContainer struct {
	// docker ps --format '{{json .}}'
	ID    Str
	Names Str
	State Str
	// crictl pods -o json
	Items []struct {
		ID       Str `json:"id"`
		State    Str `json:"state"`
		Metadata struct {
			Name      Str `json:"name"`
			UID       Str `json:"uid"`
			Namespace Str `json:"namespace"`
		} `json:"metadata"`
	} `json:"items"`
}

// DecodeContainers reads containers.json. Docker containers that are not Kubernetes'
// (names not in dockershim's k8s_<container>_<pod>_<namespace>_<uid>_<attempt> form)
// are left out.
func DecodeContainers(file string, b []byte) ([]Container, error) {
	raws, err := Array[rawContainer](file, b)
	if err != nil {
		return nil, err
	}
	var out []Container
	for _, r := range raws {
		for _, it := range r.Items {
			out = append(out, Container{ID: string(it.ID), PodName: string(it.Metadata.Name),
				PodNamespace: string(it.Metadata.Namespace), PodUID: string(it.Metadata.UID), State: string(it.State)})
		}
		if r.ID == "" {
			continue
		}
		parts := strings.Split(strings.TrimPrefix(string(r.Names), "/"), "_")
		if len(parts) != 6 || parts[0] != "k8s" {
			continue
		}
		out = append(out, Container{ID: string(r.ID), PodName: parts[2], PodNamespace: parts[3], PodUID: parts[4], State: string(r.State)})
	}
	return out, nil
}
