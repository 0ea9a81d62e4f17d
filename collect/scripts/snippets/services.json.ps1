# RemoteAccess: the RRAS BGP router Calico's windows-bgp mode peers through.
$names = 'kubelet','kube-proxy','kubeproxy','containerd','docker','flanneld','hns','RemoteAccess'
$rows = @(Get-CimInstance Win32_Service | Where-Object { $names -contains $_.Name } | ForEach-Object {
    $p = "HKLM:\SYSTEM\CurrentControlSet\Services\$($_.Name)\Parameters"
    # A service without AppEnvironmentExtra gives $null, and @($null) is a list of one
    # null ([null] in JSON, an environment of one empty entry): an empty list is meant.
    $extra = (Get-ItemProperty $p -Name AppEnvironmentExtra -ErrorAction SilentlyContinue).AppEnvironmentExtra
    $app = (Get-ItemProperty $p -Name AppParameters -ErrorAction SilentlyContinue).AppParameters
    [pscustomobject]@{
        Name = $_.Name; State = $_.State; StartMode = $_.StartMode
        PathName = $_.PathName; ProcessId = $_.ProcessId
        AppParameters = $app; AppEnvironmentExtra = @($extra | Where-Object { $null -ne $_ })
    }
})
ConvertTo-Json -Depth 3 -InputObject $rows
