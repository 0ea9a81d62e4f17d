package kube

// RateLimit is the client's own limit on its requests to the API server (client-go's
// token bucket): QPS sustained, Burst at once. A zero field takes DefaultRateLimit's; a
// negative QPS turns the client's own limit off, as in client-go's rest.Config (the API
// server's priority and fairness still applies). The flags --kube-api-qps and
// --kube-api-burst set it, as the kubelet's flags of those names set its own.
type RateLimit struct {
	QPS   float32
	Burst int
}

// DefaultRateLimit is the limit of a run that has no flags for it: kubectl's 50 requests a
// second, a burst of 100. client-go's own default (5) made one node's requests wait on
// another's.
func DefaultRateLimit() RateLimit { return RateLimit{QPS: 50, Burst: 100} }

// FleetRateLimit sizes the limit for a run that sweeps concurrency nodes at once, unless
// the user set it (qps, burst non-zero). A node asks the API server for at most a few
// things while it is swept (node log query: up to four logs, two requests each; a
// HostProcess pod: create, watch, exec, delete), so a window of concurrency nodes needs
// about 8 requests each at once and the sweep's pace after that: at DefaultRateLimit a
// fleet of 1000 nodes waited 38 s on the limiter alone, ten times the sweep's latency
// floor. Never below DefaultRateLimit.
func FleetRateLimit(concurrency int, qps float32, burst int) RateLimit {
	r := RateLimit{QPS: qps, Burst: burst}
	d := DefaultRateLimit()
	if r.QPS == 0 {
		r.QPS = max(d.QPS, float32(8*concurrency))
	}
	if r.Burst == 0 {
		r.Burst = max(d.Burst, 2*int(r.QPS))
	}
	return r
}

// resolve is the QPS and burst to set on a rest.Config.
func (r RateLimit) resolve() (float32, int) {
	d := DefaultRateLimit()
	if r.QPS == 0 {
		r.QPS = d.QPS
	}
	if r.Burst <= 0 {
		r.Burst = max(d.Burst, 2*int(r.QPS))
	}
	return r.QPS, r.Burst
}
