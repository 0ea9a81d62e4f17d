package probes

// Default is the registry of every probe, in the order findings are shown.
func Default() *Registry {
	r, err := NewRegistry(
		NodeReadyProbe{},
		PodCIDRProbe{},
		NodeIPProbe{},
		HostNameProbe{},
		NewKubeletProbe(),
		NewKubeProxyProbe(),
		NewRuntimeProbe(),
		RebootProbe{},
		HNSNetworkProbe{},
		KubeProxyNetworkProbe{},
		RoutesProbe{},
		DNSConfigProbe{},
		PauseImageProbe{},
		PauseBuildProbe{},
		PodImageBuildProbe{},
		NodeTaintProbe{},
		LeftoversProbe{},
		SchedulingProbe{},
	)
	if err != nil {
		panic(err) // a duplicate ID is a programming error caught by every test
	}
	return r
}
