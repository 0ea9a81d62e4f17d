package paste

import "regexp"

// Shape names what a block of pasted text is, as a support engineer would say it.
type Shape string

const (
	HNSNetworkList  Shape = "Get-HnsNetwork list view"
	HNSEndpointList Shape = "Get-HnsEndpoint list view"
	HNSPolicyList   Shape = "Get-HnsPolicyList list view"
	ServiceList     Shape = "Get-Service list view"
	ServiceTable    Shape = "Get-Service table"
	DockerImages    Shape = "docker images table"
	CrictlImages    Shape = "crictl images table"
	CrictlPods      Shape = "crictl pods table"
	CrictlPs        Shape = "crictl ps table"
	CtrImages       Shape = "ctr images ls table"
	CtrContainers   Shape = "ctr containers ls table"
	CtrTasks        Shape = "ctr tasks ls table"
	DockerPs        Shape = "docker ps table"
	ProcessList     Shape = "process list view (Name, ProcessId, CommandLine)"
	HostList        Shape = "host facts list view (ComputerName, CurrentBuild, ...)"
	KubectlNodes    Shape = "kubectl get nodes table"
	KubectlDescribe Shape = "kubectl describe node"
	DescribePod     Shape = "kubectl describe pod"
	KlogText        Shape = "klog log"
	EventsBlock     Shape = "kubectl describe Events block"
	EventsTable     Shape = "kubectl get events table"
	JSONText        Shape = "JSON"
	YAMLText        Shape = "kubectl YAML"
	NetRoutes       Shape = "Get-NetRoute output"
	NetIPAddresses  Shape = "Get-NetIPAddress output"
	NetAdapters     Shape = "Get-NetAdapter output"
	NetIPInterfaces Shape = "Get-NetIPInterface output"
	Ipconfig        Shape = "ipconfig output"
	ScQuery         Shape = "sc query / sc qc output"
	RoutePrint      Shape = "route print output"
	HnsDiag         Shape = "hnsdiag list output"
	NetshDump       Shape = "netsh dump (IPv4)"
	NetshShow       Shape = "netsh interface ipv4 show output"
	WinVersion      Shape = "Windows version output (ver)"
	SystemInfo      Shape = "systeminfo output"
	ComputerInfo    Shape = "Get-ComputerInfo list view"
	CurrentVersion  Shape = "Get-ItemProperty HKLM:\\SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion list view"
	OSVersion       Shape = "[Environment]::OSVersion table"
	OtherList       Shape = "a PowerShell list view of another command"
	OtherTable      Shape = "a table of another command"
	PSError         Shape = "a PowerShell error"
	Prose           Shape = "words around the output"
	Unrecognized    Shape = ""
)

// commandShapes say what a command prints, first match wins: JSON and YAML before the
// command's own shape, describe before get.
func commandShapes(re func(string) *regexp.Regexp) []cmdShape {
	return []cmdShape{
		{re(`(?i)convertto-json|-o ?json|--output[= ]json`), JSONText},
		{re(`(?i)kubectl.*(?:-o ?yaml|--output[= ]yaml)`), YAMLText},
		{re(`(?i)win32_process|get-process`), ProcessList},
		{re(`(?i)get-hnsnetwork`), HNSNetworkList},
		{re(`(?i)get-hnsendpoint`), HNSEndpointList},
		{re(`(?i)get-hnspolicylist`), HNSPolicyList},
		{re(`(?i)get-service.*(?:format-list|\bfl\b)`), ServiceList},
		{re(`(?i)get-service`), ServiceTable},
		{re(`(?i)docker(?:\.exe)? (?:images|image ls)`), DockerImages},
		{re(`(?i)get-netroute`), NetRoutes},
		{re(`(?i)get-netadapter\b`), NetAdapters},
		{re(`(?i)get-netipinterface`), NetIPInterfaces},
		{re(`(?i)^ipconfig(?:\.exe)?\b`), Ipconfig},
		{re(`(?i)^hnsdiag(?:\.exe)? list\b`), HnsDiag},
		{re(`(?i)^netsh(?:\.exe)? (?:int(?:erface)? )?(?:ipv4|ip) (?:show|sh)\b`), NetshShow},
		{re(`(?i)^netsh(?:\.exe)? (?:dump|interface ipv4 dump)\b`), NetshDump},
		{re(`(?i)^systeminfo(?:\.exe)?\b`), SystemInfo},
		{re(`(?i)^(?:get-computerinfo|gin)\b`), ComputerInfo},
		{re(`(?i)^(?:get-itemproperty|gp)\b.*\\windows nt\\currentversion`), CurrentVersion},
		{re(`(?i)^\[(?:system\.)?environment\]::osversion`), OSVersion},
		{re(`(?i)^(?:cmd(?:\.exe)? /c ver|ver)\s*$`), WinVersion},
		{re(`(?i)^(?:route(?:\.exe)? print|netstat(?:\.exe)? -rn?)\b`), RoutePrint},
		{re(`(?i)^sc(?:\.exe)? (?:query|queryex|qc)\b`), ScQuery},
		{re(`(?i)get-netipaddress`), NetIPAddresses},
		{re(`(?i)crictl(?:\.exe)? (?:images|img)\b`), CrictlImages},
		{re(`(?i)crictl(?:\.exe)? pods\b`), CrictlPods},
		{re(`(?i)crictl(?:\.exe)? ps\b`), CrictlPs},
		{re(`(?i)ctr(?:\.exe)? (?:.+ )?(?:images?|i) (?:ls|list)\b`), CtrImages},
		{re(`(?i)ctr(?:\.exe)? (?:.+ )?(?:containers?|c) (?:ls|list)\b`), CtrContainers},
		{re(`(?i)ctr(?:\.exe)? (?:.+ )?(?:tasks?|t) (?:ls|list)\b`), CtrTasks},
		{re(`(?i)docker(?:\.exe)? (?:ps|container ls)\b`), DockerPs},
		{re(`(?i)kubectl(?:\.exe)? (?:.+ )?describe (?:-\S+(?:[ =]\S+)? )*(?:pods?|po)\b`), DescribePod},
		{re(`(?i)kubectl(?:\.exe)? (?:.+ )?describe (?:-\S+(?:[ =]\S+)? )*(?:nodes?|no)\b`), KubectlDescribe},
		{re(`(?i)kubectl(?:\.exe)? (?:.+ )?get (?:-\S+(?:[ =]\S+)? )*(?:nodes?|no)\b`), KubectlNodes},
		{re(`(?i)kubectl(?:\.exe)? (?:.+ )?get (?:-\S+(?:[ =]\S+)? )*(?:events?|ev)\b`), EventsTable},
	}
}

func listShape(r Record) Shape {
	has := func(names ...string) bool {
		for _, n := range names {
			if _, ok := r.Get(n); !ok {
				return false
			}
		}
		return true
	}
	switch {
	case has("ProcessId", "CommandLine"):
		return ProcessList
	case has("ComputerName", "CurrentBuild") || has("ComputerName", "ProductName", "LastBootUpTime"):
		return HostList
	case has("WindowsProductName") || has("WindowsUBR") || has("CsName", "OsVersion") || has("OsBuildNumber"):
		return ComputerInfo
	case has("CurrentBuild", "UBR") || has("CurrentBuildNumber", "ProductName") || has("BuildLabEx", "ProductName"):
		return CurrentVersion
	case has("Name", "State", "StartMode"):
		return ServiceList
	case has("IPAddress", "PrefixLength", "AddressFamily"):
		return NetIPAddresses
	case has("DestinationPrefix", "NextHop"):
		return NetRoutes
	case has("InterfaceDescription", "MacAddress") || has("ifDesc", "MacAddress"):
		return NetAdapters
	case has("InterfaceAlias", "NlMtu") || has("InterfaceAlias", "InterfaceMetric", "Dhcp"):
		return NetIPInterfaces
	case has("VirtualNetwork") || has("IPAddress", "MacAddress") || has("IsRemoteEndpoint"):
		return HNSEndpointList
	case has("References") || has("Policies", "IsApplied"):
		return HNSPolicyList
	case has("Subnets") || has("ID", "Type", "Extensions") || has("ManagementIP") || has("MacPools"):
		return HNSNetworkList
	case has("Status", "Name", "DisplayName") || has("Name", "StartType", "Status"):
		return ServiceList
	}
	return OtherList
}

func tableShape(t Table) Shape {
	switch {
	case t.Has("REPOSITORY", "TAG", "IMAGE ID"):
		return DockerImages
	case t.Has("CONTAINER ID", "NAMES"):
		return DockerPs
	case t.Has("IMAGE", "TAG", "IMAGE ID"):
		return CrictlImages
	case t.Has("POD ID", "STATE", "NAME", "NAMESPACE") && !t.Has("IMAGE"):
		return CrictlPods
	case t.Has("CONTAINER", "IMAGE", "STATE", "POD ID"):
		return CrictlPs
	case t.Has("REF", "TYPE", "DIGEST"):
		return CtrImages
	case t.Has("CONTAINER", "IMAGE", "RUNTIME"):
		return CtrContainers
	case t.Has("TASK", "PID", "STATUS"):
		return CtrTasks
	case t.Has("NAME", "STATUS", "ROLES", "VERSION"):
		return KubectlNodes
	case t.Has("TYPE", "REASON", "MESSAGE") && (t.Has("LAST SEEN") || t.Has("LASTSEEN")):
		return EventsTable
	case t.Has("DestinationPrefix", "NextHop"):
		return NetRoutes
	case t.Has("IPAddress", "PrefixLength"):
		return NetIPAddresses
	case t.Has("Name", "InterfaceDescription", "ifIndex") || t.Has("Name", "MacAddress", "LinkSpeed"):
		return NetAdapters
	case t.Has("ifIndex", "InterfaceAlias", "AddressFamily"):
		return NetIPInterfaces
	case t.Has("Status", "Name", "DisplayName") || t.Has("Status", "Name", "StartType"):
		return ServiceTable
	case t.Has("Platform", "Version", "VersionString") || t.Has("Major", "Minor", "Build", "Revision"):
		return OSVersion
	}
	return OtherTable
}
