package agent

import (
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/wintroubleshoot/wintroubleshoot/probes"
)

// Metrics are the agent's Prometheus metrics, on a registry of their own (no global
// state: tests run several agents in one process).
type Metrics struct {
	reg         *prometheus.Registry
	status      *prometheus.GaugeVec
	duration    prometheus.Histogram
	sweeps      *prometheus.CounterVec
	errors      prometheus.Counter
	timeouts    prometheus.Counter
	lastSuccess prometheus.Gauge
}

// NewMetrics registers the agent's metrics, plus the Go runtime's and the process's
// (memory, CPU), which are the per-agent costs the issue asks to watch.
func NewMetrics() *Metrics {
	m := &Metrics{reg: prometheus.NewRegistry(),
		// A state set, one series per probe and status, 1 for the current one: alerts
		// read `wintroubleshoot_probe_status{status="fail"} == 1`.
		status: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "wintroubleshoot_probe_status",
			Help: "1 for the status each probe gave in the last sweep (pass, skip, warn, fail, error), else 0."}, []string{"probe", "status"}),
		duration: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "wintroubleshoot_sweep_duration_seconds",
			Help: "Time to sweep and judge the node.", Buckets: []float64{1, 2, 5, 10, 20, 30, 60, 120, 300}}),
		sweeps: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "wintroubleshoot_sweeps_total",
			Help: "Sweeps by result: ok (evidence judged) or error (the sweep gave nothing)."}, []string{"result"}),
		errors: prometheus.NewCounter(prometheus.CounterOpts{Name: "wintroubleshoot_snippet_errors_total",
			Help: "Snippets that failed, timed out or never answered, over all sweeps."}),
		timeouts: prometheus.NewCounter(prometheus.CounterOpts{Name: "wintroubleshoot_snippet_timeouts_total",
			Help: "Snippets cut short by the sweep's time limit, over all sweeps."}),
		lastSuccess: prometheus.NewGauge(prometheus.GaugeOpts{Name: "wintroubleshoot_last_success_timestamp_seconds",
			Help: "Unix time of the last sweep that gave evidence to judge."}),
	}
	m.reg.MustRegister(m.status, m.duration, m.sweeps, m.errors, m.timeouts, m.lastSuccess,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// Observe records one sweep.
func (m *Metrics) Observe(r Report) {
	m.duration.Observe(r.Duration.Seconds())
	m.errors.Add(float64(len(r.Evidence.Errors)))
	m.timeouts.Add(float64(len(r.Evidence.Timeouts)))
	if r.SweepError != "" {
		m.sweeps.WithLabelValues("error").Inc()
		return
	}
	m.sweeps.WithLabelValues("ok").Inc()
	m.lastSuccess.Set(float64(r.SweptAt.Unix()))
	m.status.Reset() // a probe no longer run leaves no stale series
	names := []probes.Status{probes.Pass, probes.Skip, probes.Warn, probes.Fail, probes.Error}
	for _, f := range r.Findings {
		for _, s := range names {
			v := 0.0
			if f.Status == s {
				v = 1
			}
			m.status.WithLabelValues(f.Probe, s.String()).Set(v)
		}
	}
}

// Handler serves /metrics.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg})
}

// Registry is the registry behind Handler, for tests that read values.
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }
