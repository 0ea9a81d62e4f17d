package kube

import (
	"context"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/wintroubleshoot/wintroubleshoot/evidence/clusterconfig"
)

// clusterConfig works out the service range, the cluster (pod) range and the kube-dns IP
// for cluster/cluster-config.json, most authoritative source first:
//
//	serviceCIDR: kubeadm-config networking.serviceSubnet; the ServiceCIDR objects
//	             (networking.k8s.io/v1, Kubernetes >= 1.33); inferred from Service
//	             default/kubernetes (see clusterconfig.InferServiceCIDR)
//	clusterCIDR: kubeadm-config networking.podSubnet; kube-proxy's config clusterCIDR;
//	             inferred from the nodes' podCIDRs
//	kubeDNS:     Service kube-system/kube-dns (CoreDNS keeps that name), else a kube-system
//	             Service labelled k8s-app=kube-dns, else kube-system/coredns
//
// A source it may not read (403) or that does not exist is skipped; the skipped 403s are
// returned so the user learns the result is a guess.
func (c *Client) clusterConfig(ctx context.Context, nodes []corev1.Node, svcs []corev1.Service) (clusterconfig.Config, []string, error) {
	var cfg clusterconfig.Config
	var skipped []string
	soft := func(err error) error {
		switch {
		case err == nil, IsNotFound(err):
			return nil
		case IsForbidden(err):
			skipped = append(skipped, "cluster-config.json source: "+err.Error())
			return nil
		}
		return err
	}

	kubeadm, err := c.configMap(ctx, "kubeadm-config")
	if err := soft(err); err != nil {
		return cfg, nil, err
	}
	if kubeadm != nil {
		var cc struct {
			Networking struct {
				ServiceSubnet string `json:"serviceSubnet"`
				PodSubnet     string `json:"podSubnet"`
			} `json:"networking"`
		}
		if yaml.Unmarshal([]byte(kubeadm.Data["ClusterConfiguration"]), &cc) == nil {
			src := "ConfigMap kube-system/kubeadm-config: ClusterConfiguration networking."
			cfg.Set(clusterconfig.KeyServiceCIDR, cc.Networking.ServiceSubnet, src+"serviceSubnet")
			cfg.Set(clusterconfig.KeyClusterCIDR, cc.Networking.PodSubnet, src+"podSubnet")
		}
	}

	if cfg.ClusterCIDR == "" {
		kp, err := c.configMap(ctx, "kube-proxy")
		if err := soft(err); err != nil {
			return cfg, nil, err
		}
		if kp != nil {
			keys := make([]string, 0, len(kp.Data))
			for k := range kp.Data {
				keys = append(keys, k)
			}
			sort.Strings(keys) // kubeadm's key is config.conf; others name it differently
			for _, k := range keys {
				var pc struct {
					ClusterCIDR string `json:"clusterCIDR"`
				}
				if yaml.Unmarshal([]byte(kp.Data[k]), &pc) == nil && pc.ClusterCIDR != "" {
					cfg.Set(clusterconfig.KeyClusterCIDR, pc.ClusterCIDR, "ConfigMap kube-system/kube-proxy: "+k+" clusterCIDR")
					break
				}
			}
		}
	}

	if cfg.ServiceCIDR == "" {
		cidrs, err := c.serviceCIDRs(ctx)
		if err := soft(err); err != nil {
			return cfg, nil, err
		}
		cfg.Set(clusterconfig.KeyServiceCIDR, cidrs, "ServiceCIDR kubernetes (networking.k8s.io/v1): spec.cidrs")
	}

	cfg.Infer(nodes, svcs)
	return cfg, skipped, nil
}

func (c *Client) configMap(ctx context.Context, name string) (*corev1.ConfigMap, error) {
	cm, err := c.cs.CoreV1().ConfigMaps(metav1.NamespaceSystem).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, c.fail(ctx, err, "get", "configmaps", metav1.NamespaceSystem, name)
	}
	return cm, nil
}

// serviceCIDRs reads the default ServiceCIDR object, which the apiserver creates from its
// --service-cluster-ip-range; other ServiceCIDRs (ranges added later) are appended.
func (c *Client) serviceCIDRs(ctx context.Context) (string, error) {
	l, err := c.cs.NetworkingV1().ServiceCIDRs().List(ctx, metav1.ListOptions{})
	if err != nil {
		return "", c.fail(ctx, err, "list", "servicecidrs.networking.k8s.io", "", "")
	}
	sort.SliceStable(l.Items, func(i, j int) bool { return l.Items[i].Name == "kubernetes" && l.Items[j].Name != "kubernetes" })
	var cidrs []string
	for _, s := range l.Items {
		if s.DeletionTimestamp == nil {
			cidrs = append(cidrs, s.Spec.CIDRs...)
		}
	}
	return strings.Join(cidrs, ","), nil
}
