package probes

import "testing"

func TestHostUptime(t *testing.T) {
	host := func(boot, collected string) map[string]string {
		return map[string]string{"nodes/win-1/host.json": `{"CurrentBuild":"17763","LastBootUpTime":"` + boot + `","CollectedAt":"` + collected + `"}`}
	}
	for _, tc := range []struct {
		name, boot, collected string
		status                Status
		want                  string
	}{
		{"a week", "2026-11-24T08:00:00Z", "2026-12-01T08:00:00Z", Pass, "up 7 days"},
		{"just rebooted", "2026-12-01T07:48:00Z", "2026-12-01T08:00:00Z", Warn, "rebooted 12 minutes ago"},
		{"an hour exactly", "2026-12-01T07:00:00Z", "2026-12-01T08:00:00Z", Pass, "up 1 hour"},
		{"61 days", "2026-10-01T08:00:00Z", "2026-12-01T08:00:00Z", Warn, "up 61 days without a reboot"},
		{"PS 5.1 dates", "/Date(1764403200000)/", "/Date(1764576000000)/", Pass, "up 2 days"},
		{"clock moved", "2026-12-01T09:00:00Z", "2026-12-01T08:00:00Z", Skip, "boot time is after the collection time"},
		{"older evidence", "2026-11-24T08:00:00Z", "", Skip, "no collection time"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := clOne(t, hostUptime{}, "win-1", clEv(host(tc.boot, tc.collected)), tc.status, tc.want)
			if (f.Fix != nil) != (tc.name == "61 days") {
				t.Errorf("fix %+v", f.Fix)
			}
		})
	}
	clOne(t, hostUptime{}, "win-1", clEv(nil), Skip, "no evidence at nodes/win-1/host.json")
}
