package paste

import "testing"

// BenchmarkParseListWrapped: a 200-network list view wrapped at 80 columns.
func BenchmarkParseListWrapped(b *testing.B) {
	p := New()
	rec := Record{Fields: []Field{
		{Name: "Name", Value: ParseValue("cbr0")},
		{Name: "Extensions", Value: ParseValue("{@{Id=E7C3B2F0-F3C5-48DF-AF2B-10FED6D72E7A; IsEnabled=False; Name=Microsoft Windows-Filterplattform}, @{Id=EA24CD6C-D17A-4348-9190-09F0D5BE83DD; IsEnabled=True; Name=Microsoft-NDIS-Aufzeichnung}}")},
		{Name: "Subnets", Value: ParseValue("{@{AdditionalParams=; AddressPrefix=10.244.1.0/24; GatewayAddress=10.244.1.1; Policies=System.Object[]; State=0}}")},
		{Name: "Type", Value: ParseValue("L2Bridge")},
	}}
	recs := make([]Record, 200)
	for i := range recs {
		recs[i] = rec
	}
	text := FormatList(recs, 80, WordWrap, 0)
	b.SetBytes(int64(len(text)))
	b.ResetTimer()
	for b.Loop() {
		if lv := p.ParseList(p.Lines(text)); len(lv.Records) != 200 {
			b.Fatal(len(lv.Records))
		}
	}
}

// BenchmarkNew is what an import pays once for its patterns.
func BenchmarkNew(b *testing.B) {
	for b.Loop() {
		_ = New()
	}
}
