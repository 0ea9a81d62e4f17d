package evidence

// Bundle files outside the evidence tree: what a snapshot bundle holds beside nodes/ and
// cluster/.
const (
	BundleManifest = "manifest.json" // format version, tool version, time, per-node transport, per-item status/size/sha256/error, redactions
	BundleFindings = "findings.json" // the report's JSON
	BundleReport   = "report.md"     // the Markdown report
	BundleAudit    = "audit.jsonl"   // fix attempts, one JSON object a line
)
